"""``--fail-on`` guardrails: parse the conditions and find the changes that meet them.

Conditions (comma-separated or repeated): ``cluster-emptied`` (a cluster folder loses every object),
``replicas-moved>N%`` (more than N % of a workload's replicas change cluster; ``replicas-moved=N`` is the
same), ``unschedulable``, ``quota-blocked`` and ``failed`` (a template the change leaves unschedulable,
blocked by a FederatedResourceQuota, or failing to render; problems the base side already had do not count).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.model import GuardrailViolation, ProblemKind
from gitops_karmada.core.diff.wording import percent
from gitops_karmada.model.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.core.diff.model import PlanDiff


class GuardrailKind(enum.StrEnum):
    CLUSTER_EMPTIED = "cluster-emptied"
    REPLICAS_MOVED = "replicas-moved"
    UNSCHEDULABLE = "unschedulable"
    QUOTA_BLOCKED = "quota-blocked"
    FAILED = "failed"


class GuardrailSyntaxError(InputError):
    """A ``--fail-on`` condition that is not one of the known ones."""


_MOVED = re.compile(r"^replicas-moved\s*(?:>|=|:)\s*(\d+)\s*%?$")


@dataclass(frozen=True, slots=True)
class Guardrail:
    kind: GuardrailKind
    threshold: int | None = None
    """Percent, for ``replicas-moved``."""

    def __str__(self) -> str:
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
            raise GuardrailSyntaxError(f"--fail-on {text!r}: a percentage must be at most 100")
        return Guardrail(GuardrailKind.REPLICAS_MOVED, threshold)
    try:
        kind = GuardrailKind(text)
    except ValueError:
        kind = None
    if kind is None or kind is GuardrailKind.REPLICAS_MOVED:
        known = ", ".join(
            k.value if k is not GuardrailKind.REPLICAS_MOVED else "replicas-moved>N%" for k in GuardrailKind
        )
        raise GuardrailSyntaxError(f"--fail-on {text!r} is not a known condition (known: {known})")
    return Guardrail(kind)


_PROBLEM_KINDS = {
    GuardrailKind.UNSCHEDULABLE: ProblemKind.UNSCHEDULABLE,
    GuardrailKind.QUOTA_BLOCKED: ProblemKind.QUOTA_BLOCKED,
    GuardrailKind.FAILED: ProblemKind.FAILED,
}


def check_guardrails(diff: PlanDiff, guardrails: Iterable[Guardrail]) -> tuple[GuardrailViolation, ...]:
    """Every (guardrail, subject) the change violates, in guardrail order then subject order."""
    violations: list[GuardrailViolation] = []
    for guardrail in guardrails:
        name = str(guardrail)
        if guardrail.kind is GuardrailKind.CLUSTER_EMPTIED:
            violations.extend(
                GuardrailViolation(
                    guardrail=name,
                    subject=c.cluster,
                    detail=f"cluster {c.cluster} is emptied: {c.objects_before} object(s) → 0",
                )
                for c in diff.clusters
                if c.emptied
            )
        elif guardrail.kind is GuardrailKind.REPLICAS_MOVED:
            assert guardrail.threshold is not None
            for workload in diff.workloads:
                fraction = workload.moved_fraction
                if fraction is not None and fraction * 100 > guardrail.threshold:
                    violations.append(
                        GuardrailViolation(
                            guardrail=name,
                            subject=workload.template,
                            detail=(
                                f"{workload.template} moves {workload.moved} of {workload.replicas_before} "
                                f"replica(s) ({percent(fraction)}), more than {guardrail.threshold} %"
                            ),
                        )
                    )
        else:
            kind = _PROBLEM_KINDS[guardrail.kind]
            violations.extend(
                GuardrailViolation(
                    guardrail=name,
                    subject=p.template,
                    detail=f"{p.template} is {kind.value}: {p.message or p.reason}",
                )
                for p in diff.problems
                if p.kind is kind and p.new
            )
    return tuple(violations)
