"""Placement compared binding by binding: replicas per cluster, claims, and Scheduled problems.

Reads only ``ResourceBinding`` records (``spec.clusters``, the claim annotations, the ``Scheduled``
condition) and error diagnostics; never the manifests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.diff.bound import BoundPlacement, binding_key
from gitops_karmada.core.diff.model import (
    ChangeKind,
    PlacementCell,
    ProblemKind,
    TemplateProblem,
    WorkloadPlacement,
)
from gitops_karmada.core.layout import key_of_identity
from gitops_karmada.core.schema_check import SCHEMA_CODE

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.core.incremental.state_index import IndexEntry, StateIndex
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic

Identity = tuple[str, str, str, str]

QUOTA_EXCEEDED_REASON = "QuotaExceeded"
"""The Scheduled reason Karmada (v1.17+) records when FederatedResourceQuota admission refuses a placement."""
FAILED_REASON = "RenderFailed"
SCHEMA_REASON = "SchemaInvalid"


def placements_from_index(index: StateIndex) -> dict[Identity, BoundPlacement]:
    """Every template's placement as the state index records it (no binding record is read)."""
    return {identity: placement_of(identity, entry) for identity, entry in index.entries.items()}


def placement_of(identity: Identity, entry: IndexEntry) -> BoundPlacement:
    """One template's placement as its state index entry records it."""
    claim = entry.claim
    policy = "" if claim is None else f"{'pp' if claim[0] == 'PropagationPolicy' else 'cpp'}/{claim[2]}"
    return BoundPlacement(
        key=key_of_identity(identity),
        policy=policy,
        has_replicas=entry.workload,
        replicas=entry.placement,
        tiers=entry.tiers,
    )


def compare_placement(
    base: Mapping[Identity, BoundPlacement],
    head: Mapping[Identity, BoundPlacement],
    released: frozenset[Identity] = frozenset(),
) -> tuple[WorkloadPlacement, ...]:
    """Templates whose clusters, replicas or claiming policy differ, in template identity order.

    A template in ``released`` lost its binding but not its files (preserveResourcesOnDeletion): it is
    shown as released with its replicas where they were, not as removed.
    """
    changes: list[WorkloadPlacement] = []
    # equal cells are one object: a first reconcile at fleet XL places 20,000 templates on 200 clusters, and
    # the cells' distinct values are a few per cluster
    cells_made: dict[tuple[str, int | None, int | None, str, str], PlacementCell] = {}
    for identity in sorted(base.keys() | head.keys()):
        before, after = base.get(identity), head.get(identity)
        if before is not None and after is not None and _same(before, after):
            continue
        if before is not None and after is None and identity in released:
            changes.append(_released(before))
            continue
        either = after if after is not None else before
        assert either is not None
        old = before.replicas if before is not None else {}
        new = after.replicas if after is not None else {}
        tiers_before = before.tiers if before is not None else {}
        tiers_after = after.tiers if after is not None else {}
        cells = tuple(
            _cell(
                cells_made,
                (name, old.get(name), new.get(name), tiers_before.get(name, ""), tiers_after.get(name, "")),
            )
            for name in sorted(old.keys() | new.keys())
        )
        changes.append(
            WorkloadPlacement(
                template=str(either.key),
                change=ChangeKind.ADDED
                if before is None
                else ChangeKind.REMOVED
                if after is None
                else ChangeKind.MODIFIED,
                policy_before=before.policy if before is not None else "",
                policy_after=after.policy if after is not None else "",
                has_replicas=(before is not None and before.has_replicas)
                or (after is not None and after.has_replicas),
                replicas_before=sum(old.values()),
                replicas_after=sum(new.values()),
                cells=cells,
            )
        )
    return tuple(changes)


def _cell(
    made: dict[tuple[str, int | None, int | None, str, str], PlacementCell],
    fields: tuple[str, int | None, int | None, str, str],
) -> PlacementCell:
    cell = made.get(fields)
    if cell is None:
        cluster, before, after, tier_before, tier_after = fields
        cell = made[fields] = PlacementCell(
            cluster=cluster, before=before, after=after, tier_before=tier_before, tier_after=tier_after
        )
    return cell


def _released(before: BoundPlacement) -> WorkloadPlacement:
    return WorkloadPlacement(
        template=str(before.key),
        change=ChangeKind.RELEASED,
        policy_before=before.policy,
        policy_after="",
        has_replicas=before.has_replicas,
        replicas_before=sum(before.replicas.values()),
        replicas_after=sum(before.replicas.values()),
        cells=tuple(
            PlacementCell(cluster=name, before=count, after=count)
            for name, count in sorted(before.replicas.items())
        ),
    )


def _same(before: BoundPlacement, after: BoundPlacement) -> bool:
    return before.replicas == after.replicas and before.policy == after.policy and before.tiers == after.tiers


def template_problems(
    bindings: Iterable[ResourceBinding], diagnostics: Iterable[Diagnostic]
) -> dict[tuple[str, ProblemKind], TemplateProblem]:
    """Templates that are unschedulable, quota-blocked or failed to render, by (template, kind)."""
    problems: dict[tuple[str, ProblemKind], TemplateProblem] = {}
    for binding in bindings:
        condition = binding.condition("Scheduled")
        if condition is None or condition.status != "False":
            continue
        kind = (
            ProblemKind.QUOTA_BLOCKED
            if condition.reason == QUOTA_EXCEEDED_REASON
            else ProblemKind.UNSCHEDULABLE
        )
        template = str(binding_key(binding))
        problems[(template, kind)] = TemplateProblem(
            template=template, kind=kind, reason=condition.reason, message=condition.message
        )
    scheduled = {template for template, _ in problems}
    for diagnostic in diagnostics:
        subject = diagnostic.subject
        # a scheduling failure is also reported as an error diagnostic: the condition says it already
        if not diagnostic.is_error or not subject or subject in scheduled:
            continue
        kind, reason = (
            (ProblemKind.SCHEMA, SCHEMA_REASON)
            if diagnostic.code == SCHEMA_CODE
            else (ProblemKind.FAILED, FAILED_REASON)
        )
        entry = (subject, kind)
        message = (
            diagnostic.message.removeprefix(f"{SCHEMA_CODE}: ")
            if kind is ProblemKind.SCHEMA
            else diagnostic.message
        )
        if entry in problems:
            previous = problems[entry]
            problems[entry] = TemplateProblem(
                template=subject,
                kind=kind,
                reason=reason,
                message=f"{previous.message}; {message}",
            )
        else:
            problems[entry] = TemplateProblem(template=subject, kind=kind, reason=reason, message=message)
    return problems
