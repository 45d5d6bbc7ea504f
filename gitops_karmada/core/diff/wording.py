"""Words and numbers shared by the text and markdown reports, so both say the same thing the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.diff.model import OBJECT_CHANGES, ChangeKind, PlacementCell

if TYPE_CHECKING:
    from fractions import Fraction

    from gitops_karmada.core.diff.model import ClusterChange, PlanDiff, WorkloadPlacement

ABSENT = "–"
PLACED = "✓"
ARROW = "→"


def percent(fraction: Fraction) -> str:
    """``12.5 %``: one decimal, rounded half up, exact (no float on the way)."""
    tenths = (fraction.numerator * 1000 * 2 + fraction.denominator) // (fraction.denominator * 2)
    whole, decimal = divmod(tenths, 10)
    return f"{whole} %" if decimal == 0 else f"{whole}.{decimal} %"


def replicas_text(value: int | None, has_replicas: bool) -> str:
    if value is None:
        return ABSENT
    return str(value) if has_replicas else PLACED


def cell_text(before: int | None, after: int | None, has_replicas: bool) -> str:
    """``4``, ``4 → 3``, ``– → 2``, ``✓ → –``."""
    old, new = replicas_text(before, has_replicas), replicas_text(after, has_replicas)
    return old if old == new else f"{old} {ARROW} {new}"


def placement_cell_text(cell: PlacementCell, has_replicas: bool) -> str:
    """``cell_text`` with the overflow tier the replicas are in, when a side records one: ``4 (on-prem)``,
    ``3 → 5 (cloud)``, ``2 (on-prem → cloud)`` (a side without tiers, or without replicas there, shows the
    other side's)."""
    text = cell_text(cell.before, cell.after, has_replicas)
    old, new = cell.tier_before, cell.tier_after
    if not old and not new:
        return text
    if old and new and old != new and cell.before is not None and cell.after is not None:
        return f"{text} ({old} {ARROW} {new})"
    return f"{text} ({new or old})"


def policy_text(workload: WorkloadPlacement) -> str:
    before, after = workload.policy_before or ABSENT, workload.policy_after or ABSENT
    if workload.change is ChangeKind.ADDED:
        return after
    if workload.change is ChangeKind.REMOVED:
        return before
    return before if before == after else f"{before} {ARROW} {after}"


def total_text(workload: WorkloadPlacement) -> str:
    if not workload.has_replicas:
        return ""
    if workload.change is ChangeKind.ADDED:
        return str(workload.replicas_after)
    if workload.change is ChangeKind.REMOVED:
        return str(workload.replicas_before)
    return cell_text(workload.replicas_before, workload.replicas_after, True)


def moved_text(workload: WorkloadPlacement) -> str:
    fraction = workload.moved_fraction
    if fraction is None or workload.moved == 0:
        return ""
    return f"{workload.moved} of {workload.replicas_before} ({percent(fraction)})"


def changed_clusters(workloads: tuple[WorkloadPlacement, ...]) -> list[str]:
    """The clusters where at least one shown workload changes: the placement table's columns."""
    return sorted({cell.cluster for w in workloads for cell in w.cells if cell.changed})


def cluster_status(change: ClusterChange) -> str:
    """``emptied``/``gained``/``changed`` with the object and replica counts."""
    objects = (
        f"{change.objects_before} {ARROW} {change.objects_after} objects"
        if change.objects_before != change.objects_after
        else plural(change.objects_after, "object")
    )
    replicas = (
        f", {change.replicas_before} {ARROW} {change.replicas_after} replicas"
        if change.replicas_before != change.replicas_after
        else ""
    )
    word = "emptied" if change.emptied else "gained" if change.gained else "changed"
    return f"{word} ({objects}{replicas})"


def manifest_counts(change: ClusterChange) -> str:
    parts = [
        f"{count} {word}"
        for count, word in (
            (change.added, "added"),
            (change.modified, "modified"),
            (change.removed, "removed"),
        )
        if count
    ]
    return ", ".join(parts) if parts else "no manifest change"


def noun(count: int, word: str, words: str | None = None) -> str:
    """``word`` for one, ``words`` (default ``word`` + s) for any other count."""
    return word if count == 1 else words or word + "s"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 cluster``, ``1,000 clusters``."""
    return f"{count:,} {noun(count, word, words)}"


def summary_line(diff: PlanDiff) -> str:
    """One sentence with the size of the change."""
    if not diff.has_changes:
        return "No change to the rendered fleet."
    counts = {kind: sum(1 for o in diff.objects if o.change is kind) for kind in OBJECT_CHANGES}
    detail = ", ".join(f"{counts[kind]} {kind.value}" for kind in OBJECT_CHANGES if counts[kind])
    parts = [
        plural(len(diff.workloads), "template") + " re-placed" if diff.workloads else "placement unchanged",
        plural(len(diff.clusters), "cluster") + " changed",
        plural(len(diff.objects), "manifest") + (f" ({detail})" if detail else ""),
    ]
    if diff.inputs:
        parts.append(plural(len(diff.inputs), "input") + " changed")
    return " · ".join(parts)
