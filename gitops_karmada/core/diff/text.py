"""The diff for a terminal: aligned placement table, sections in the markdown's order, optional colour.

Colour is plain ANSI SGR codes (the caller decides: a TTY, ``--color``); without it the text is plain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.diff.model import ChangeKind, ProblemKind
from gitops_karmada.core.diff.wording import (
    ARROW,
    changed_clusters,
    cluster_status,
    manifest_counts,
    moved_text,
    placement_cell_text,
    plural,
    policy_text,
    summary_line,
    total_text,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.core.diff.model import (
        ClusterChange,
        InputChange,
        ObjectDiff,
        PlanDiff,
        WorkloadPlacement,
    )

_CODES = {"bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36", "dim": "2"}


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *styles: str) -> str:
        if not self.colour or not styles or not text:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def render_text(diff: PlanDiff, *, colour: bool = False) -> str:
    style = _Style(colour)
    out: list[str] = [
        f"{style('Karmada placement diff', 'bold')}: base {diff.base} {ARROW} head {diff.head}",
        "",
    ]
    for side, errors in (("base", diff.base_errors), ("head", diff.head_errors)):
        if errors:
            title = f"The {side} revision does not render ({plural(len(errors), 'input error')}):"
            out += [style(title, "red", "bold"), *(f"  {e}" for e in errors), ""]
    if diff.violations:
        title = (
            f"{plural(len(diff.violations), 'guardrail violation')} (--fail-on {', '.join(diff.fail_on)}):"
        )
        out += [
            style(title, "red", "bold"),
            *(f"  {style('✗', 'red')} {v.detail}" for v in diff.violations),
            "",
        ]
    out += [f"Summary: {summary_line(diff)}", ""]
    if diff.workloads:
        out += [style("PLACEMENT", "bold"), *_table(diff.workloads, style), ""]
    out += _clusters(diff.clusters, style)
    out += _removals(diff, style)
    out += _problems(diff, style)
    if diff.unmatched:
        out += [
            style("NOT PROPAGATED (no propagation policy selects them)", "bold"),
            *(f"  {style('!', 'yellow')} {t}" for t in diff.unmatched),
            "",
        ]
    out += _rollouts(diff, style)
    out += _inputs(diff.inputs, style)
    out += _manifests(diff, style)
    return "\n".join(out).rstrip("\n") + "\n"


def _rollouts(diff: PlanDiff, style: _Style) -> list[str]:
    if not diff.rollouts:
        return []
    lines = [
        style(
            "ROLLOUTS (a RolloutPolicy sends the change wave by wave; * marks the waves it reaches)", "bold"
        )
    ]
    for plan in diff.rollouts:
        lines.append(f"  {plan.template} (rollout {plan.policy}, {plan.phase})")
        for wave in plan.waves:
            mark = style("*", "green") if wave.reached else " "
            lines.append(f"    {mark} {wave.label}: {', '.join(wave.clusters)}; then waits for {wave.gate}")
    return [*lines, ""]


def _clusters(changes: Sequence[ClusterChange], style: _Style) -> list[str]:
    if not changes:
        return []
    lines = [style("CLUSTERS", "bold")]
    for change in changes:
        colour = "red" if change.emptied else "green" if change.gained else "yellow"
        lines.append(f"  {change.cluster}: {style(cluster_status(change), colour)}")
    return [*lines, ""]


def _removals(diff: PlanDiff, style: _Style) -> list[str]:
    if not diff.removals:
        return []
    lines = [style("REMOVED FROM CLUSTER FOLDERS, BY CAUSE", "bold")]
    for group in diff.removals:
        verdict = "deliberate" if group.deliberate else f"reconcile needs --allow {group.cause.value}"
        mark = style("-", "yellow") if group.deliberate else style("✗", "red")
        lines.append(f"  {mark} {group.cause.value} ({verdict}): {group.change}")
        lines.append(f"      {', '.join(group.owners)} from {', '.join(group.clusters)}")
    return [*lines, ""]


def _problems(diff: PlanDiff, style: _Style) -> list[str]:
    lines: list[str] = []
    for title, wanted in (("SCHEDULING PROBLEMS", False), ("SCHEMA PROBLEMS", True)):
        shown = [p for p in diff.problems if (p.kind is ProblemKind.SCHEMA) is wanted]
        if not shown:
            continue
        lines.append(style(title, "bold"))
        for problem in shown:
            when = "" if problem.new else " (already on base)"
            reason = f" ({problem.reason})" if problem.reason else ""
            kind = style(problem.kind.value, "red")
            lines.append(
                f"  {style('✗', 'red')} {problem.template} is {kind}{reason}{when}: {problem.message}"
            )
        lines.append("")
    if diff.resolved:
        lines.append(style("RESOLVED", "bold"))
        lines += [f"  {style('✓', 'green')} {p.template} is no longer {p.kind.value}" for p in diff.resolved]
        lines.append("")
    return lines


def _inputs(changes: Sequence[InputChange], style: _Style) -> list[str]:
    if not changes:
        return []
    lines = [style("CHANGED INPUTS", "bold")]
    for change in changes:
        touches = (
            f"touches {', '.join(change.templates)} on {', '.join(change.clusters) or 'no cluster'}"
            if change.templates
            else "no rendered change"
        )
        lines.append(f"  {change.title} ({change.change.value}): {touches}")
    return [*lines, ""]


def _manifests(diff: PlanDiff, style: _Style) -> list[str]:
    if not diff.objects:
        return []
    lines = [style("MANIFESTS", "bold")]
    by_name = {c.cluster: c for c in diff.clusters}
    current = ""
    for obj in diff.objects:
        if obj.cluster != current:
            current = obj.cluster
            known = by_name.get(current)
            counts = manifest_counts(known) if known is not None else ""
            lines.append(style(f"== {current} ({counts}) ==", "bold"))
        lines += _object(obj, style)
    return lines


def _table(workloads: Sequence[WorkloadPlacement], style: _Style) -> list[str]:
    clusters = changed_clusters(tuple(workloads))
    header = ["TEMPLATE", "POLICY", "REPLICAS", *(c.upper() for c in clusters), "MOVED"]
    rows: list[list[tuple[str, bool]]] = []
    for workload in workloads:
        cells = {cell.cluster: cell for cell in workload.cells}
        template = workload.template
        if workload.change is not ChangeKind.MODIFIED:
            template += f" ({workload.change.value})"
        row = [(template, False), (policy_text(workload), False), (total_text(workload), False)]
        for name in clusters:
            cell = cells.get(name)
            if cell is None:
                row.append(("", False))
            else:
                row.append((placement_cell_text(cell, workload.has_replicas), cell.changed))
        row.append((moved_text(workload), False))
        rows.append(row)
    widths = [max(len(header[i]), *(len(r[i][0]) for r in rows)) for i in range(len(header))]
    right = set(range(2, len(header)))
    lines = ["  ".join(_pad(h, widths[i], i in right) for i, h in enumerate(header)).rstrip()]
    for row in rows:
        lines.append(
            "  ".join(
                style(_pad(text, widths[i], i in right), "yellow")
                if changed
                else _pad(text, widths[i], i in right)
                for i, (text, changed) in enumerate(row)
            ).rstrip()
        )
    return lines


def _pad(text: str, width: int, right: bool) -> str:
    return text.rjust(width) if right else text.ljust(width)


def _object(obj: ObjectDiff, style: _Style) -> list[str]:
    colour = {ChangeKind.ADDED: "green", ChangeKind.REMOVED: "red", ChangeKind.MODIFIED: "yellow"}[obj.change]
    lines = [f"{style(obj.title, 'bold')} {style(obj.change.value, colour)} {style(obj.path, 'dim')}"]
    if obj.secret_keys is not None:
        keys = obj.secret_keys
        parts = [
            f"{word} {', '.join(names)}"
            for word, names in (("added", keys.added), ("removed", keys.removed), ("changed", keys.changed))
            if names
        ]
        lines.append(
            f"  Secret keys: {'; '.join(parts) if parts else 'no value changed'} (values are never shown)"
        )
    if obj.note:
        lines.append(f"  ({obj.note})")
    lines += [f"  {style('~', 'yellow')} {field}" for field in obj.fields]
    for line in obj.diff.splitlines():
        if line.startswith("@@"):
            lines.append(style(line, "cyan"))
        elif line.startswith("+"):
            lines.append(style(line, "green"))
        elif line.startswith("-"):
            lines.append(style(line, "red"))
        else:
            lines.append(line)
    lines.append("")
    return lines
