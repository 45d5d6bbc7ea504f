"""The guardrail grammar: the conditions ``--fail-on`` and the ``guardrails:`` list of gitops-karmada.yaml
name (what each condition means, and how a change is checked against it, is ``core.diff.guardrails``), and
the causes a file can leave a cluster folder for (``core.diff.removals``): those a change must not bring
about unasked are refused unless ``--allow`` or ``removals.allow`` names them."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.model.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


class GuardrailKind(enum.StrEnum):
    CLUSTER_EMPTIED = "cluster-emptied"
    REPLICAS_MOVED = "replicas-moved"
    WORKLOAD_REMOVED = "workload-removed"
    NAMESPACE_REMOVED = "namespace-removed"
    MAX_DELETED = "max-deleted"
    UNSCHEDULABLE = "unschedulable"
    QUOTA_BLOCKED = "quota-blocked"
    FAILED = "failed"
    SCHEMA = "schema"


_THRESHOLD_KINDS = {GuardrailKind.REPLICAS_MOVED, GuardrailKind.MAX_DELETED}


class GuardrailSyntaxError(InputError):
    """A ``--fail-on`` condition that is not one of the known ones."""


_MOVED = re.compile(r"^replicas-moved\s*(?:>|=|:)\s*(\d+)\s*%?$")
_DELETED = re.compile(r"^max-deleted\s*(?:=|:)\s*(\d+)$")


@dataclass(frozen=True, slots=True)
class Guardrail:
    kind: GuardrailKind
    threshold: int | None = None
    """Percent, for ``replicas-moved``; a count of files, for ``max-deleted``."""

    def __str__(self) -> str:
        if self.kind is GuardrailKind.MAX_DELETED:
            return f"{self.kind.value}={self.threshold}"
        return f"{self.kind.value}>{self.threshold}%" if self.threshold is not None else self.kind.value


def parse_guardrails(specs: Iterable[str]) -> tuple[Guardrail, ...]:
    """The guardrails named by ``specs`` (each may hold several, comma-separated), without duplicates."""
    found: list[Guardrail] = []
    for spec in specs:
        for part in spec.split(","):
            text = part.strip().lower()
            if not text:
                continue
            guardrail = _parse_one(text)
            if guardrail not in found:
                found.append(guardrail)
    return tuple(found)


def _parse_one(text: str) -> Guardrail:
    moved = _MOVED.match(text)
    if moved:
        threshold = int(moved.group(1))
        if threshold > 100:
            raise GuardrailSyntaxError(f"{text!r}: a percentage must be at most 100")
        return Guardrail(GuardrailKind.REPLICAS_MOVED, threshold)
    deleted = _DELETED.match(text)
    if deleted:
        return Guardrail(GuardrailKind.MAX_DELETED, int(deleted.group(1)))
    try:
        kind = GuardrailKind(text)
    except ValueError:
        kind = None
    if kind is None or kind in _THRESHOLD_KINDS:
        spelled = {
            GuardrailKind.REPLICAS_MOVED: "replicas-moved>N%",
            GuardrailKind.MAX_DELETED: "max-deleted=N",
        }
        known = ", ".join(spelled.get(k, k.value) for k in GuardrailKind)
        raise GuardrailSyntaxError(f"{text!r} is not a known guardrail (known: {known})")
    return Guardrail(kind)


class RemovalCause(enum.StrEnum):
    TEMPLATE_DELETED = "template-deleted"
    POLICY_CHANGED = "policy-changed"
    CLUSTER_DELETED = "cluster-deleted"
    EVICTED = "evicted"
    RESCHEDULED = "rescheduled"
    ROLLED_BACK = "rolled-back"
    ROLLOUT_FAILED = "rollout-failed"
    TEMPLATE_EDITED = "template-edited"
    CLUSTER_CHANGED = "cluster-changed"
    CRD_IN_USE = "crd-in-use"
    DEPENDENCY_DROPPED = "dependency-dropped"
    CONFIG_CHANGED = "config-changed"
    UNEXPLAINED = "unexplained"


DELIBERATE = frozenset(
    {
        RemovalCause.TEMPLATE_DELETED,
        RemovalCause.POLICY_CHANGED,
        RemovalCause.CLUSTER_DELETED,
        RemovalCause.EVICTED,
        RemovalCause.RESCHEDULED,
        RemovalCause.ROLLED_BACK,
        RemovalCause.ROLLOUT_FAILED,
    }
)
"""Causes whose input change says itself that files go: they pass unasked, and are named."""

CAUSE_TITLES: Mapping[RemovalCause, str] = {
    RemovalCause.TEMPLATE_DELETED: "template deleted",
    RemovalCause.POLICY_CHANGED: "policy deleted or edited",
    RemovalCause.CLUSTER_DELETED: "cluster deleted from the inventory",
    RemovalCause.EVICTED: "evicted by failover",
    RemovalCause.RESCHEDULED: "rescheduled on request",
    RemovalCause.ROLLED_BACK: "rolled back on request",
    RemovalCause.ROLLOUT_FAILED: "rolled back by its RolloutPolicy (a wave failed its gate)",
    RemovalCause.TEMPLATE_EDITED: "template's own edit",
    RemovalCause.CLUSTER_CHANGED: "Cluster's labels or fields changed",
    RemovalCause.CRD_IN_USE: "CRD removed while objects of its kind are rendered",
    RemovalCause.DEPENDENCY_DROPPED: "dependency no longer required",
    RemovalCause.CONFIG_CHANGED: "configuration changed",
    RemovalCause.UNEXPLAINED: "no input change explains it",
}

REFUSED = frozenset(RemovalCause) - DELIBERATE
"""Causes that refuse a commit unless allowed (``--allow <cause>``, or ``removals.allow`` in the config)."""
