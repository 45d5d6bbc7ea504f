"""The diff as GitHub-flavoured markdown: the pull-request comment and the job summary.

Order: title, revisions, banners (render errors, guardrails), one summary line, the placement table,
cluster changes, scheduling problems, changed inputs, then one collapsible ``<details>`` per cluster
with a unified diff per object. Under a ``Budget`` the summary stays whole, the other sections keep
whole rows, and manifest diffs stop at an object boundary; a visible note says what was left out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.budget import BudgetWriter
from gitops_karmada.core.diff.model import ChangeKind, ProblemKind
from gitops_karmada.core.diff.wording import (
    ARROW,
    changed_clusters,
    cluster_status,
    manifest_counts,
    moved_text,
    noun,
    placement_cell_text,
    plural,
    policy_text,
    summary_line,
    total_text,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.core.diff.budget import Budget
    from gitops_karmada.core.diff.model import (
        ClusterChange,
        InputChange,
        ObjectDiff,
        PlanDiff,
        TemplateProblem,
        WorkloadPlacement,
    )
    from gitops_karmada.core.diff.removals import RemovalGroup
    from gitops_karmada.core.diff.rollout_plan import RolloutPlan

TITLE = "## Karmada placement diff"
FULL_REPORT_HINT = "The full report is in the job summary of this workflow run and in the report file."
FINAL_NOTE_RESERVE = 1_000
SECTION_NOTE_RESERVE = 200
MAX_ERROR_LINES = 10
MAX_LINE = 300
MAX_NAMES = 10
_BACKTICKS = re.compile("`+")


@dataclass(slots=True)
class _Omitted:
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, what: str, count: int) -> None:
        if count:
            self.counts[what] += count


def render_markdown(
    diff: PlanDiff, budget: Budget | None = None, *, full_report_hint: str = FULL_REPORT_HINT
) -> str:
    """The report; within ``budget`` when one is given (then what did not fit is named in a note)."""
    writer = BudgetWriter(budget, reserve=FINAL_NOTE_RESERVE if budget is not None else 0)
    omitted = _Omitted()
    writer.add(_header(diff))
    _guardrail_banner(writer, diff, omitted)
    writer.add(f"**Summary:** {escape(summary_line(diff))}\n\n")
    if not diff.has_changes and diff.inputs:
        inputs = plural(len(diff.inputs), "input")
        writer.add(f"{inputs} changed without changing the rendered fleet.\n\n")
    _placement(writer, diff.workloads, omitted)
    _section(
        writer, "**Clusters**\n\n", [_cluster_item(c) for c in diff.clusters], "cluster change", omitted, "\n"
    )
    _section(
        writer,
        "### Removed from cluster folders, by cause\n\nFlux and Argo CD delete what leaves a cluster's "
        "folder. `reconcile` commits a removal unasked only when the change says so itself; the others "
        "need `--allow <cause>` (or `removals.allow` in gitops-karmada.yaml).\n\n",
        [_removal_item(g) for g in diff.removals],
        "removal",
        omitted,
        "\n",
    )
    _section(
        writer,
        "### Scheduling problems\n\n",
        [_problem_item(p) for p in diff.problems if p.kind is not ProblemKind.SCHEMA],
        "problem",
        omitted,
        "\n",
    )
    _section(
        writer,
        "### Schema problems\n\nThese manifests fail their cluster's Kubernetes schema (or their CRD's) and "
        "are not written; the template keeps its previous files.\n\n",
        [_problem_item(p) for p in diff.problems if p.kind is ProblemKind.SCHEMA],
        "schema problem",
        omitted,
        "\n",
    )
    _section(
        writer,
        "### Not propagated\n\nNo propagation policy selects these templates: they reach no cluster.\n\n",
        [f"- :warning: {code(t)}\n" for t in diff.unmatched],
        "unmatched template",
        omitted,
        "\n",
    )
    _section(
        writer,
        "### Resolved\n\n",
        [_resolved_item(p) for p in diff.resolved],
        "resolved problem",
        omitted,
        "\n",
    )
    _section(
        writer,
        "### Rollouts\n\nA RolloutPolicy governs these templates: the change reaches their clusters wave by "
        "wave, **bold** where it goes now.\n\n",
        [_rollout_item(plan) for plan in diff.rollouts],
        "rollout",
        omitted,
        "\n",
    )
    _inputs(writer, diff.inputs, omitted)
    _manifests(writer, diff.objects, diff.clusters, omitted)
    if omitted.counts and budget is not None:
        writer.add_note(_final_note(omitted, diff, budget, full_report_hint))
    return writer.text()


# -- pieces that are always shown ------------------------------------------------------------------------


def _header(diff: PlanDiff) -> str:
    lines = [TITLE, "", f"**base** {code(diff.base)} {ARROW} **head** {code(diff.head)}", ""]
    for side, errors in (("base", diff.base_errors), ("head", diff.head_errors)):
        if errors:
            lines += [
                "> [!CAUTION]",
                f"> **The {side} revision does not render**: {plural(len(errors), 'input error')}. Its last "
                "committed cluster folders stand in for it below.",
            ]
            lines += [f"> - {escape(_clip(e))}" for e in errors[:MAX_ERROR_LINES]]
            if len(errors) > MAX_ERROR_LINES:
                lines.append(f"> - … and {len(errors) - MAX_ERROR_LINES} more")
            lines.append("")
    return "\n".join(lines) + "\n"


def _guardrail_banner(writer: BudgetWriter, diff: PlanDiff, omitted: _Omitted) -> None:
    if not diff.violations:
        return
    checked = ", ".join(code(g) for g in diff.fail_on)
    heading = (
        "> [!CAUTION]\n"
        f"> **{plural(len(diff.violations), 'guardrail violation')}** (`--fail-on` {checked}): "
        "this change needs an explicit decision before it merges.\n"
    )
    items = [f"> - {escape(_clip(v.detail))}\n" for v in diff.violations]
    _section(writer, heading, items, "guardrail violation", omitted, "\n", note_prefix="> ")


# -- budgeted sections ---------------------------------------------------------------------------------


def _section(
    writer: BudgetWriter,
    heading: str,
    items: Sequence[str],
    what: str,
    omitted: _Omitted,
    tail: str,
    *,
    note_prefix: str = "",
) -> None:
    """``heading``, then as many ``items`` as fit, a note for the rest, then ``tail``."""
    if not items:
        return
    if not writer.fits(heading + items[0] + tail, SECTION_NOTE_RESERVE):
        omitted.add(what, len(items))
        return
    writer.add(heading)
    for index, item in enumerate(items):
        if not writer.fits(item + tail, SECTION_NOTE_RESERVE):
            rest = len(items) - index
            more = f"… and {rest:,} more {noun(rest, what)} not shown (size limit)."
            writer.add_note(f"{note_prefix}_{more}_\n")
            omitted.add(what, rest)
            break
        writer.add(item)
    writer.add(tail)


def _placement(writer: BudgetWriter, workloads: Sequence[WorkloadPlacement], omitted: _Omitted) -> None:
    if not workloads:
        return
    clusters = changed_clusters(tuple(workloads))
    heading = (
        "### Placement\n\n"
        + "| Template | Policy | Replicas | "
        + " | ".join(code(c) for c in clusters)
        + (" | " if clusters else "")
        + "Moved |\n"
        + "|:--|:--|--:|"
        + "--:|" * len(clusters)
        + "--:|\n"
    )
    rows = [_placement_row(w, clusters) for w in workloads]
    _section(writer, heading, rows, "placement row", omitted, "\n")


def _placement_row(workload: WorkloadPlacement, clusters: Sequence[str]) -> str:
    cells = {cell.cluster: cell for cell in workload.cells}
    shown = []
    for name in clusters:
        cell = cells.get(name)
        if cell is None:
            shown.append("")
            continue
        text = placement_cell_text(cell, workload.has_replicas)
        shown.append(f"**{text}**" if cell.changed else text)
    template = code(workload.template)
    if workload.change is not ChangeKind.MODIFIED:
        template += f" ({workload.change.value})"
    columns = [template, escape(policy_text(workload)), total_text(workload), *shown, moved_text(workload)]
    return "| " + " | ".join(columns) + " |\n"


def _rollout_item(plan: RolloutPlan) -> str:
    waves = " → ".join(
        (
            f"**{escape(w.label)}** ({_names(w.clusters)})"
            if w.reached
            else f"{escape(w.label)} ({_names(w.clusters)})"
        )
        + f", then waits for {escape(w.gate)}"
        for w in plan.waves
    )
    return f"- {code(plan.template)} (rollout {code(plan.policy)}, {escape(plan.phase)}): {waves}\n"


def _removal_item(group: RemovalGroup) -> str:
    verdict = "deliberate" if group.deliberate else f"needs `--allow {group.cause.value}`"
    owners = _names(list(group.owners))
    clusters = ", ".join(code(c) for c in group.clusters)
    change = escape(_clip(group.change))
    return f"- **{group.cause.value}** ({verdict}): {change} — {owners} from {clusters}\n"


def _cluster_item(change: ClusterChange) -> str:
    status = cluster_status(change)
    word, _, rest = status.partition(" ")
    return f"- {code(change.cluster)}: **{word}** {rest}\n"


def _problem_item(problem: TemplateProblem) -> str:
    when = "" if problem.new else " _(already on base)_"
    reason = f" ({escape(problem.reason)})" if problem.reason else ""
    return (
        f"- :x: {code(problem.template)} is **{problem.kind.value}**{reason}{when}: "
        f"{escape(_clip(problem.message))}\n"
    )


def _resolved_item(problem: TemplateProblem) -> str:
    return f"- :white_check_mark: {code(problem.template)} is no longer {problem.kind.value}\n"


def _inputs(writer: BudgetWriter, inputs: Sequence[InputChange], omitted: _Omitted) -> None:
    heading = (
        "### Changed inputs\n\n| Input | Change | Templates it touches | Clusters |\n|:--|:--|:--|:--|\n"
    )
    rows = [
        f"| {code(i.title)} | {i.change.value} | {_names(i.templates) or '_no rendered change_'} "
        f"| {_names(i.clusters) or '–'} |\n"
        for i in inputs
    ]
    _section(writer, heading, rows, "changed input", omitted, "\n")


def _manifests(
    writer: BudgetWriter, objects: Sequence[ObjectDiff], clusters: Sequence[ClusterChange], omitted: _Omitted
) -> None:
    if not objects:
        return
    heading = "### Manifests\n\n"
    by_name = {c.cluster: c for c in clusters}
    groups = [(name, list(group)) for name, group in groupby(objects, key=lambda o: o.cluster)]
    close = "</details>\n\n"
    stopped = False
    for position, (cluster, group) in enumerate(groups):
        if stopped:
            omitted.add("manifest diff", len(group))
            continue
        change = by_name.get(cluster)
        counts = manifest_counts(change) if change is not None else plural(len(group), "change")
        summary = f"<b>{escape(cluster)}</b> — {counts}"
        if change is not None and change.replicas_before != change.replicas_after:
            summary += f" · replicas {change.replicas_before} {ARROW} {change.replicas_after}"
        opening = f"<details>\n<summary>{summary}</summary>\n\n"
        first = object_block(group[0])
        lead = heading if position == 0 else ""
        if not writer.fits(lead + opening + first + close, SECTION_NOTE_RESERVE):
            stopped = True
            omitted.add("manifest diff", len(group))
            continue
        writer.add(lead + opening)
        shown = 0
        for obj in group:
            block = first if shown == 0 else object_block(obj)
            if not writer.fits(block + close, SECTION_NOTE_RESERVE):
                stopped = True
                break
            writer.add(block)
            shown += 1
        if shown < len(group):
            rest = len(group) - shown
            writer.add_note(
                f"_… and {rest:,} more {noun(rest, 'object diff')} in {escape(cluster)} "
                "not shown (size limit)._\n\n"
            )
            omitted.add("manifest diff", rest)
        writer.add(close)


def object_block(obj: ObjectDiff) -> str:
    """One object: its title and change, Secret key changes, a note, and the diff in a code block."""
    lines = [f"**{code(obj.title)}** · {obj.change.value} · {code(obj.path)}", ""]
    if obj.secret_keys is not None:
        keys = obj.secret_keys
        parts = [
            f"{word} {', '.join(code(k) for k in names)}"
            for word, names in (("added", keys.added), ("removed", keys.removed), ("changed", keys.changed))
            if names
        ]
        lines += [
            f"Secret keys: {'; '.join(parts) if parts else 'no value changed'} (values are never shown)",
            "",
        ]
    if obj.note:
        lines += [f"_{escape(obj.note)}_", ""]
    if obj.fields:
        lines += [*(f"- {code(field)}" for field in obj.fields), ""]
    if obj.diff:
        fence = _fence(obj.diff)
        lines += [f"{fence}diff", obj.diff.rstrip("\n"), fence, ""]
    return "\n".join(lines) + "\n"


def _final_note(omitted: _Omitted, diff: PlanDiff, budget: Budget, hint: str) -> str:
    parts = []
    for what, count in sorted(omitted.counts.items()):
        total = len(diff.objects) if what == "manifest diff" else None
        parts.append(
            f"{count:,} of {total:,} {noun(total, what)}" if total is not None else plural(count, what)
        )
    return f"> [!NOTE]\n> **Shortened to fit {budget}**: {', '.join(parts)} not shown. {escape(hint)}\n"


# -- markdown helpers ------------------------------------------------------------------------------------


def code(text: str) -> str:
    """An inline code span that survives backticks in ``text``."""
    text = text.replace("\n", " ")
    ticks = "`"
    while ticks in text:
        ticks += "`"
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{ticks}{padded}{ticks}"


def escape(text: str) -> str:
    """Free text inside a table cell or list item: no HTML, no column breaks, one line."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("|", "\\|")
        .replace("\r", " ")
        .replace("\n", " ")
    )


def _clip(text: str) -> str:
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(code(n) for n in names[:MAX_NAMES])
    if len(names) > MAX_NAMES:
        shown += f" and {len(names) - MAX_NAMES} more"
    return shown


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)
