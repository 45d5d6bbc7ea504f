"""Approve a rollout's wave: a commit of its own that records the approval, then the reconcile it allows.

A wave gated on ``approval`` waits until a commit carrying ``Rollout-Approved: <namespace>/<policy> <wave>``
is made after the wave was promoted (``adapters.rollout_signals`` reads them from the branch's history).
The approval is the audit trail: who approved what, and when, is the commit's author, trailer and date.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.views.rollouts import governed_states
from gitops_karmada.model import wellknown
from gitops_karmada.model.errors import NotFoundError, UsageError
from gitops_karmada.usecases.fleet_view import read_fleet
from gitops_karmada.usecases.reconcile import reconcile_ref
from gitops_karmada.usecases.up_to_date import target_ref

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.rollouts import RolloutPolicy
    from gitops_karmada.usecases.reconcile import ReconcileOutcome


class NothingToApproveError(NotFoundError):
    """No wave of the rollout waits for an approval."""


@dataclass(frozen=True, slots=True)
class Approval:
    policy: str
    """``namespace/name``."""
    wave: str
    commit: str
    """The approval commit."""
    reconciled: ReconcileOutcome
    """The reconcile made right after it."""


def approve(store: GitStore, rev: str, reference: str, wave: str | None = None) -> Approval:
    """Approve ``wave`` (default: the one the rollout of ``reference``, ``NAMESPACE/NAME``, waits on) with
    a commit on ``rev``'s branch, then reconcile it."""
    ref = target_ref(store, rev)
    namespace, _, name = reference.partition("/")
    if not namespace or not name or "/" in name:
        raise UsageError(f"{reference} is not NAMESPACE/NAME (a RolloutPolicy)")
    fleet = read_fleet(store, ref, with_inputs=True)
    policy = next(
        (p for p in fleet.inputs.rollout_policies if p.namespace == namespace and p.name == name), None
    )
    if policy is None:
        known = ", ".join(p.ref for p in fleet.inputs.rollout_policies) or "none"
        raise NotFoundError(f"no RolloutPolicy {reference} at {ref} (RolloutPolicies: {known})")
    chosen = _wave(policy, waiting_waves(policy, fleet.bindings), wave)
    head = store.resolve(ref)
    commit = store.commit(
        parent=head,
        ref=ref,
        changes={},
        message=(
            f"gitops-karmada: approve wave {chosen} of rollout {policy.ref}\n\n"
            f"{wellknown.ROLLOUT_APPROVED_TRAILER}: {policy.ref} {chosen}\n"
        ),
        empty=True,
    )
    assert commit is not None
    return Approval(policy.ref, chosen, commit, reconcile_ref(store, ref))


def waiting_waves(policy: RolloutPolicy, bindings: Sequence[ResourceBinding]) -> tuple[str, ...]:
    """The waves whose gate the rollouts of ``policy`` in flight judge now (their last promoted wave)."""
    waves = {
        state.reached[-1].split(" ", 1)[0]  # a step's label is its wave's name, and its batch when split
        for _, state in governed_states(policy, bindings)
        if state.in_flight and state.reached
    }
    return tuple(sorted(waves))


def _wave(policy: RolloutPolicy, waiting: tuple[str, ...], wave: str | None) -> str:
    names = [w.name for w in policy.spec.waves]
    if wave is not None:
        if wave not in names:
            raise UsageError(f"rollout {policy.ref} has no wave {wave!r} (waves: {', '.join(names)})")
        return wave
    if not waiting:
        raise NothingToApproveError(f"no wave of rollout {policy.ref} is in flight: nothing to approve")
    if len(waiting) > 1:
        raise UsageError(
            f"waves {', '.join(waiting)} of rollout {policy.ref} are in flight: name one (--wave)"
        )
    return waiting[0]
