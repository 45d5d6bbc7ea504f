"""Why the scheduler decided what it did: JSON-ready records and a compact text rendering.

Karmada cannot explain a placement offline; this can. An explanation lists every clusterAffinities term
tried, each cluster's filter verdict, scores and capacity arithmetic, the spread-constraint selection and the
division down to every Webster seat. ``to_dict()`` is stable (fixed key order, lists sorted by cluster name
where their order carries no meaning); ``to_text()`` is what ``explain`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.scheduler.errors import ConditionReason

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.core.scheduler.division import DivisionRecord
    from gitops_karmada.core.scheduler.estimate import GeneralEstimate
    from gitops_karmada.core.scheduler.filters import FilterVerdict
    from gitops_karmada.core.scheduler.spread import ClusterDetail, SelectionRecord
    from gitops_karmada.model.bindings import TargetCluster


@dataclass(frozen=True, slots=True, kw_only=True)
class CapacityEstimate:
    """A candidate's capacity: the general estimator's arithmetic, other estimators' answers, the merge."""

    cluster: str
    value: int
    """What selection and division use as the cluster's allocatable replicas (or sets)."""
    unit: str
    general: GeneralEstimate | None = None
    others: tuple[tuple[str, int | None], ...] = ()
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"cluster": self.cluster, "value": self.value, "unit": self.unit}
        if self.general is not None:
            data["general"] = self.general.to_dict()
        if self.others:
            data["estimators"] = [{"name": name, "answer": answer} for name, answer in self.others]
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleAttempt:
    """One run of the algorithm (one clusterAffinities term, or the placement as a whole)."""

    affinity_term: str | None
    verdicts: tuple[FilterVerdict, ...] = ()
    candidates: tuple[ClusterDetail, ...] = ()
    """Ranked: overflow order, score, available replicas, name."""
    estimates: tuple[CapacityEstimate, ...] = ()
    selection: SelectionRecord | None = None
    division: DivisionRecord | None = None
    reason: ConditionReason
    message: str
    clusters: tuple[TargetCluster, ...] = ()

    @property
    def succeeded(self) -> bool:
        return self.reason is ConditionReason.SUCCESS

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {}
        if self.affinity_term is not None:
            data["affinityTerm"] = self.affinity_term
        data["outcome"] = {"reason": str(self.reason), "message": self.message}
        data["filters"] = [v.to_dict() for v in sorted(self.verdicts, key=lambda v: v.cluster)]
        if self.candidates:
            data["candidates"] = [c.to_dict() for c in self.candidates]
        if self.estimates:
            data["capacity"] = [e.to_dict() for e in sorted(self.estimates, key=lambda e: e.cluster)]
        if self.selection is not None:
            data["selection"] = self.selection.to_dict()
        if self.division is not None:
            data["division"] = self.division.to_dict()
        if self.succeeded:
            data["clusters"] = [c.to_api() for c in self.clusters]
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleExplanation:
    """The whole decision for one template."""

    template: str
    replicas: int
    components: tuple[str, ...] = ()
    affinity_start: str = ""
    """Why the clusterAffinities terms were tried from where they were (empty without clusterAffinities)."""
    attempts: tuple[ScheduleAttempt, ...]
    reason: ConditionReason
    message: str
    clusters: tuple[TargetCluster, ...]
    kept_previous: bool = False
    """The schedule failed and the previous result was kept."""
    tiers: Mapping[str, str] = field(default_factory=dict)
    """With overflow affinities: each result cluster's tier, by name (``filters.tier_names``)."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"template": self.template, "replicas": self.replicas}
        if self.components:
            data["components"] = list(self.components)
        data["outcome"] = {"reason": str(self.reason), "message": self.message}
        data["clusters"] = [c.to_api() for c in self.clusters]
        if self.tiers:
            data["tiers"] = dict(sorted(self.tiers.items()))
        if self.kept_previous:
            data["keptPreviousClusters"] = True
        if self.affinity_start:
            data["affinityStart"] = self.affinity_start
        data["attempts"] = [a.to_dict() for a in self.attempts]
        return data

    def to_text(self) -> str:
        return "\n".join(_render(self))


# -- text rendering ---------------------------------------------------------------------------------------


def _clusters_text(clusters: tuple[TargetCluster, ...]) -> str:
    if not clusters:
        return "(none)"
    return " ".join(f"{c.name}={c.replicas}" if not c.components else c.name for c in clusters)


def _table(rows: Sequence[Sequence[str]], indent: str, align: str) -> list[str]:
    """Rows aligned in columns; ``align`` has one letter per column, ``l``eft or ``r``ight."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(align))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if side == "r" else cell.ljust(width)
            for cell, width, side in zip(row, widths, align, strict=True)
        ]
        lines.append(indent + "  ".join(cells).rstrip())
    return lines


def _render(explanation: ScheduleExplanation) -> list[str]:
    lines = [f"{explanation.template}: {explanation.reason} - {explanation.message}"]
    what = f"{explanation.replicas} replicas"
    if explanation.components:
        what = f"components {', '.join(explanation.components)}"
    kept = " (previous result kept)" if explanation.kept_previous else ""
    lines.append(f"  {what} -> {_clusters_text(explanation.clusters)}{kept}")
    if explanation.tiers:
        placed = ", ".join(
            f"{c.name}={c.replicas} in tier {explanation.tiers.get(c.name) or '(none)'}"
            for c in explanation.clusters
        )
        lines.append(f"  overflow tiers: {placed}")
    if explanation.affinity_start:
        lines.append(f"  clusterAffinities: {explanation.affinity_start}")
    for number, attempt in enumerate(explanation.attempts, start=1):
        lines.extend(_render_attempt(number, attempt))
    return lines


def _render_attempt(number: int, attempt: ScheduleAttempt) -> list[str]:
    term = f" (affinity term {attempt.affinity_term!r})" if attempt.affinity_term is not None else ""
    lines = [f"  attempt {number}{term}: {attempt.reason}"]
    if not attempt.succeeded:
        lines.append(f"    {attempt.message}")
    verdicts = sorted(attempt.verdicts, key=lambda v: v.cluster)
    fitting = sum(1 for v in verdicts if v.fits)
    lines.append(f"    filters: {fitting} of {len(verdicts)} clusters fit")
    rows = []
    for verdict in verdicts:
        if verdict.skipped:
            rows.append((verdict.cluster, "skipped: being deleted"))
        elif verdict.plugin is None:
            rows.append((verdict.cluster, f"fits ({verdict.detail})" if verdict.detail else "fits"))
        else:
            detail = f" ({verdict.detail})" if verdict.detail else ""
            rows.append((verdict.cluster, f"{verdict.plugin}: {verdict.reason}{detail}"))
    if rows:
        lines.extend(_table(rows, "      ", "ll"))
    if attempt.candidates:
        lines.append("    candidates (ranked):")
        header = ("#", "cluster", "score", "overflow", "allocatable", "available")
        table = [header] + [
            (str(i), c.name, str(c.score), str(c.overflow_order), str(c.allocatable), str(c.available))
            for i, c in enumerate(attempt.candidates, start=1)
        ]
        lines.extend(_table(table, "      ", "rlrrrr"))
    if attempt.estimates:
        lines.append("    capacity:")
        for estimate in sorted(attempt.estimates, key=lambda e: e.cluster):
            lines.extend(_render_estimate(estimate))
    if attempt.selection is not None:
        lines.extend(_render_selection(attempt.selection))
    if attempt.division is not None:
        lines.extend(_render_division(attempt.division, "    "))
    return lines


def _render_estimate(estimate: CapacityEstimate) -> list[str]:
    head = f"      {estimate.cluster}: {estimate.value} {estimate.unit}"
    if estimate.note:
        head += f" ({estimate.note})"
    lines = [head]
    general = estimate.general
    if general is not None:
        text = f"        general: {general.value} via {general.path}, bound: {general.bound}"
        if general.pod_slots is not None:
            slots = general.pod_slots
            text += (
                f"; pods {slots.allowed} = {slots.allocatable} allocatable - {slots.allocated} allocated"
                f" - {slots.allocating} allocating"
            )
            if slots.assumed:
                text += f" - {slots.assumed} assumed"
        if general.pods_per_set:
            text += f"; {general.pods_per_set} pods per set"
        lines.append(text)
        if general.resources:
            rows = [
                (
                    r.resource,
                    r.available,
                    "/",
                    r.request,
                    f"= {r.available_units}/{r.request_units} {r.unit}",
                    f"-> {r.bound}",
                )
                for r in general.resources
            ]
            lines.extend(_table(rows, "          ", "lrlrll"))
        models = general.models
        if models is not None:
            if models.error:
                lines.append(f"          resource models unusable: {models.error}")
            else:
                for node in models.nodes:
                    capacity = ", ".join(f"{k}={v}" for k, v in node.capacity)
                    fits = "" if node.fits_per_node is None else f" fit {node.fits_per_node} each"
                    lines.append(
                        f"          grade {node.grade}: {node.count} node(s) [{capacity}, pods=110]{fits}"
                    )
                lines.append(f"          resource models total: {models.total}")
    for name, answer in estimate.others:
        lines.append(f"        {name}: {'no answer' if answer is None else answer}")
    return lines


def _render_selection(selection: SelectionRecord) -> list[str]:
    lines = [f"    selection: {selection.algorithm} - {selection.why}"]
    if selection.need_replicas is not None:
        lines.append(f"      must cover {selection.need_replicas} replicas")
    for region in selection.regions:
        members = ", ".join(c.name for c in region.clusters)
        lines.append(f"      region {region.name}: score {region.score}, clusters {members}")
    if selection.paths:
        shown = sorted(selection.paths, key=lambda p: (-p.weight, -p.value, p.id))[:5]
        for path in shown:
            lines.append(
                f"      path #{path.id}: {', '.join(path.names)} (weight {path.weight}, value {path.value})"
            )
        if len(selection.paths) > len(shown):
            lines.append(f"      ... {len(selection.paths) - len(shown)} more feasible paths")
    if selection.chosen_regions:
        lines.append(f"      chosen regions: {', '.join(selection.chosen_regions)}")
    for swap in selection.swaps:
        lines.append(f"      swap: {swap}")
    lines.append(f"      selected: {', '.join(selection.selected) or '(none)'}")
    return lines


def _render_division(division: DivisionRecord, indent: str) -> list[str]:
    strategy = (
        str(division.strategy) if division.strategy is not None else "none (not a workload: no replica count)"
    )
    head = f"{indent}division: {strategy}"
    if division.mode is not None:
        head += f", {division.mode}"
    if division.direction is not None:
        head += f", {division.direction} ({division.assigned_before} -> {division.replicas} replicas)"
    elif division.strategy is not None:
        head += f", {division.replicas} replicas"
    lines = [head]
    if division.note:
        lines.append(f"{indent}  {division.note}")
    if division.weights:
        sources = sorted({w.source for w in division.weights if w.source})
        weights = " ".join(f"{w.cluster}={w.weight}" for w in division.weights)
        lines.append(f"{indent}  weights: {weights}" + (f" ({'; '.join(sources)})" if sources else ""))
        lines.append(f"{indent}  seats to hand out: {division.target}")
    if division.kept:
        lines.append(f"{indent}  kept from before: {_clusters_text(division.kept)}")
    if division.aggregated_prefix:
        lines.append(f"{indent}  aggregated onto: {', '.join(division.aggregated_prefix)}")
    for seat in division.seats:
        tie = f"  tie with {seat.runner_up}: {seat.tie_reason}" if seat.tie_reason else ""
        lines.append(f"{indent}  seat {seat.number:>3}: {seat.party} at {seat.priority}{tie}")
    for tier in division.tiers:
        lines.append(f"{indent}  tier {tier.order} ({', '.join(tier.clusters)}; capacity {tier.capacity}):")
        lines.extend(_render_division(tier.division, indent + "    "))
    if division.removed_zero:
        lines.append(f"{indent}  dropped with 0 replicas: {', '.join(division.removed_zero)}")
    lines.append(f"{indent}  result: {_clusters_text(division.result)}")
    return lines
