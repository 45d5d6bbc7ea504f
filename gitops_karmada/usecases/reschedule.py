"""Reschedule: divide replicas afresh, as Karmada's WorkloadRebalancer does, and commit the result.

Karmada's Steady division never moves running replicas on scale-up and keeps a division while the
placement and replicas do not change; a rebalance asks for a Fresh division instead (every candidate's
free capacity plus what it already runs). The templates are chosen on the current run of the branch; the
result is one reconcile commit on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.explain import find_outcome
from gitops_karmada.usecases.reconcile import reconcile_ref
from gitops_karmada.usecases.up_to_date import target_ref

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.reconcile import RenderResult
    from gitops_karmada.usecases.reconcile import ReconcileOutcome


@dataclass(frozen=True, slots=True)
class RescheduleOutcome:
    current: RenderResult
    """The run of the branch as it is, on which the templates were chosen."""
    reconciled: ReconcileOutcome | None
    """The rescheduling reconcile; None when the current input does not load (see ``current``)."""


def reschedule(
    store: GitStore,
    rev: str,
    references: Sequence[str] = (),
    *,
    everything: bool = False,
    dry_run: bool = False,
    allow: frozenset[str] = frozenset(),
) -> RescheduleOutcome:
    """Divide the replicas of the templates ``references`` names (``everything``: every propagated one)
    afresh and commit on ``rev``'s branch (``dry_run``: commit nothing); ``allow`` lifts guardrails."""
    ref = target_ref(store, rev) if not dry_run else rev
    current = reconcile(read_commit(store, ref).request)
    if not current.input_ok:
        return RescheduleOutcome(current, None)
    outcomes = current.outcomes if everything else [find_outcome(current, r) for r in references]
    identities = frozenset(o.key.identity for o in outcomes if o.binding is not None)
    names = ", ".join(sorted(str(o.key) for o in outcomes if o.binding is not None))
    reconciled = reconcile_ref(
        store,
        ref,
        dry_run=dry_run,
        message=f"gitops-karmada: reschedule {names}"[:200],
        reschedule=identities,
        allow=allow,
    )
    return RescheduleOutcome(current, reconciled)
