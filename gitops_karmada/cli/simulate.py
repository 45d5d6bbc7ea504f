"""``gitops-karmada simulate``: what failover and rescheduling would do if the clusters reported X.

Nothing is written. The scenario (``core.failover.what_if``) stands in for the clusters' reports from
the commit's time ``t0``; the pipeline runs at ``t0`` and then at every time its failover controllers ask
to look again (a toleration or grace period ends, the eviction queue's next turn) up to ``t0 + after``,
exactly as a daemon reconciling each status report would. The report is ``diff``'s, between the fleet
as reconcile would render it now and as it would be at the end, plus the failover timeline.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.repository import RepositoryState, StatusChoice, read_commit
from gitops_karmada.cli.diff import EXIT_CHANGES, EXIT_ERROR, EXIT_GUARDRAIL, EXIT_NO_CHANGE, side_of
from gitops_karmada.cli.logs import colour_wanted
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.core.codecs.times import format_time, parse_time
from gitops_karmada.core.diff import (
    Budget,
    DiffSide,
    Unit,
    compare,
    render_json,
    render_markdown,
    render_text,
)
from gitops_karmada.core.failover.eviction_queue import eviction_pause_seconds
from gitops_karmada.core.failover.what_if import (
    ScenarioError,
    WhatIf,
    check_clusters,
    parse_capacity,
    parse_duration,
    parse_taint,
    parse_unhealthy,
    scenario_snapshots,
)
from gitops_karmada.core.observed.fold import ObservedStatus
from gitops_karmada.model.errors import GitopsKarmadaError
from gitops_karmada.reconcile import ReconcileRequest, RenderResult, next_request, reconcile

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime
    from pathlib import Path

    from gitops_karmada.model.base import Taint

MAX_STEPS = 500
"""Runs of one simulation at most: a scenario whose controllers keep asking to look again stops here."""
SIMULATED_STATUS = "simulated"


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    at: str
    template: str
    cluster: str
    action: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {
            "at": self.at,
            "template": self.template,
            "cluster": self.cluster,
            "action": self.action,
            "message": self.message,
        }


@click.command("simulate")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit whose fleet is simulated.")
@click.option(
    "--cluster-down", "down", multiple=True, metavar="CLUSTER", help="The cluster reports Ready=False."
)
@click.option(
    "--taint", "taints", multiple=True, metavar="CLUSTER:KEY[=VALUE]:EFFECT", help="The cluster gets a taint."
)
@click.option(
    "--capacity",
    "capacities",
    multiple=True,
    metavar="CLUSTER:RESOURCE=QUANTITY[,...]",
    help="The cluster reports this allocatable capacity (scheduling uses it with status.useResourceSummary).",
)
@click.option(
    "--unhealthy",
    multiple=True,
    metavar="KIND[.GROUP]/NAMESPACE/NAME@CLUSTER",
    help="The workload reports unhealthy on the cluster (application failover).",
)
@click.option(
    "--after",
    default="0s",
    show_default=True,
    metavar="DURATION",
    help="How long the scenario lasts (90s, 5m, 1h30m): tolerations, grace periods and the eviction queue "
    "run their course within it.",
)
@output_option("text", "markdown", "json")
@click.option(
    "--exit-code",
    type=click.BOOL,
    default=True,
    show_default=True,
    help="Exit 1 when something would move; false: exit 0 (errors stay 2).",
)
def simulate_command(
    repo: Path,
    rev: str,
    down: tuple[str, ...],
    taints: tuple[str, ...],
    capacities: tuple[str, ...],
    unhealthy: tuple[str, ...],
    after: str,
    output_format: str,
    exit_code: bool,
) -> None:
    """Show what failover and rescheduling would do if the member clusters reported a scenario."""
    try:
        store = GitStore.open(repo)
        state = read_commit(store, rev, materialize=False, status=StatusChoice.TIP)
        request = state.request
        start = parse_time(request.snapshot.now)
        what_if = _scenario(down, taints, capacities, unhealthy, start)
        length = parse_duration(after)
        base = reconcile(request)
        if base.inputs is None:
            for problem in base.diagnostics:
                if problem.is_error:
                    logger.bind(logger="simulate").error("{}", problem)
            raise GitopsKarmadaError("the commit does not render; fix its input errors first")
        check_clusters(what_if, [c.name for c in base.inputs.clusters])
        final, timeline, steps = _run(request, base, what_if, start, start + timedelta(seconds=length))
    except ScenarioError as err:
        raise click.BadParameter(str(err)) from err
    except GitopsKarmadaError as err:
        logger.bind(logger="simulate").error("{}", err)
        raise click.exceptions.Exit(EXIT_ERROR) from err
    base_side = _side(f"{state.source[:12] if state.source else rev} (now)", request, base)
    final_side = _side(f"simulated at {format_time(start + timedelta(seconds=length))}", *final)
    plan = compare(base_side, final_side)
    logger.bind(logger="simulate", runs=steps).debug("simulated {} run(s)", steps)
    if output_format == "json":
        document = json.loads(render_json(plan))
        document["timeline"] = [entry.to_dict() for entry in timeline]
        click.echo(json.dumps(document, indent=2, sort_keys=True))
    elif output_format == "markdown":
        click.echo(render_markdown(plan, Budget(65_536, Unit.CHARACTERS)), nl=False)
        click.echo(_timeline_text(timeline, markdown=True), nl=False)
    else:
        colour = colour_wanted(sys.stdout)
        click.echo(render_text(plan, colour=colour), nl=False, color=colour)
        click.echo(_timeline_text(timeline, markdown=False), nl=False)
    if plan.failed:
        raise click.exceptions.Exit(EXIT_ERROR)
    if plan.violations:
        raise click.exceptions.Exit(EXIT_GUARDRAIL)
    raise click.exceptions.Exit(EXIT_CHANGES if plan.has_changes and exit_code else EXIT_NO_CHANGE)


def _scenario(
    down: Sequence[str],
    taints: Sequence[str],
    capacities: Sequence[str],
    unhealthy: Sequence[str],
    start: datetime,
) -> WhatIf:
    tainted: dict[str, list[Taint]] = {}
    for text in taints:
        cluster, taint = parse_taint(text, start)
        tainted.setdefault(cluster, []).append(taint)
    return WhatIf(
        down=frozenset(down),
        taints={cluster: tuple(found) for cluster, found in tainted.items()},
        capacity=dict(parse_capacity(text) for text in capacities),
        unhealthy=frozenset(parse_unhealthy(text) for text in unhealthy),
    )


def _observed(
    request: ReconcileRequest, result: RenderResult, what_if: WhatIf, start: datetime, now: datetime
) -> ObservedStatus:
    assert result.inputs is not None
    reported = request.snapshot.observed.snapshots if request.snapshot.observed is not None else {}
    snapshots = scenario_snapshots(result.inputs, reported, what_if, since=start, now=now)
    return ObservedStatus(snapshots, SIMULATED_STATUS)


def _run(
    request: ReconcileRequest, base: RenderResult, what_if: WhatIf, start: datetime, end: datetime
) -> tuple[tuple[ReconcileRequest, RenderResult], list[TimelineEntry], int]:
    """Run the scenario from ``start`` to ``end``; the last request and result, the timeline, the runs."""
    timeline: list[TimelineEntry] = []
    moment = start
    current = request
    result = base
    steps = 0
    while True:
        current = next_request(
            current,
            result,
            now=format_time(moment),
            observed=_observed(request, result, what_if, start, moment),
        )
        current = _with_what_if(current, what_if)
        result = reconcile(current)
        steps += 1
        if result.inputs is None:
            raise GitopsKarmadaError(
                "the scenario does not render: " + "; ".join(map(str, result.diagnostics))
            )
        timeline.extend(_entries(result, moment))
        wait = result.failover.requeue_after_seconds if result.failover is not None else None
        if wait is None or moment + timedelta(seconds=wait) > end or steps >= MAX_STEPS:
            break
        moment += timedelta(seconds=max(wait, 1.0))
    if moment < end and steps < MAX_STEPS:
        current = _with_what_if(
            next_request(
                current,
                result,
                now=format_time(end),
                observed=_observed(request, result, what_if, start, end),
            ),
            what_if,
        )
        result = reconcile(current)
        steps += 1
        timeline.extend(_entries(result, end))
    timeline.extend(_still_queued(result, request.config.failover.resource_eviction_rate))
    return (current, result), timeline, steps


def _with_what_if(request: ReconcileRequest, what_if: WhatIf) -> ReconcileRequest:
    return request.with_mode(what_if=what_if)


def _entries(result: RenderResult, moment: datetime) -> list[TimelineEntry]:
    """What the controllers did in one run (evictions waiting in the queue are told once, at the end)."""
    if result.failover is None:
        return []
    at = format_time(moment)
    return [
        TimelineEntry(at, e.template, e.cluster, e.what, e.message)
        for e in result.failover.events
        if e.what != "queued"
    ]


def _still_queued(result: RenderResult, rate: float) -> list[TimelineEntry]:
    """The evictions the scenario leaves waiting, each at the turn the queue would give it."""
    if result.failover is None or not result.failover.queue.items:
        return []
    queue = result.failover.queue
    first = parse_time(queue.next_free_at) if queue.next_free_at else None
    pause = timedelta(seconds=eviction_pause_seconds(rate))
    entries = []
    for number, item in enumerate(queue.items):
        turn = (first + pause * number) if first is not None else parse_time(item.enqueued_at)
        entries.append(
            TimelineEntry(
                format_time(turn),
                item.binding,
                item.cluster,
                "queued",
                "its turn in the eviction queue comes after the scenario ends",
            )
        )
    return entries


def _timeline_text(timeline: Sequence[TimelineEntry], *, markdown: bool) -> str:
    acted = list(timeline)
    if not acted:
        return "\nFailover timeline: nothing is evicted.\n"
    head = "\n### Failover timeline\n\n" if markdown else "\nFailover timeline:\n"
    lines = [
        f"{'- ' if markdown else '  '}{e.at}  {e.template}  {e.action} {e.cluster}: {e.message}"
        for e in acted
    ]
    return head + "\n".join(lines) + "\n"


def _side(label: str, request: ReconcileRequest, result: RenderResult) -> DiffSide:
    """The fleet ``result`` renders on top of ``request``'s repository state (nothing committed)."""
    before: dict[str, str] = {**request.snapshot.state_blobs, **request.snapshot.output_blobs}
    changes = result.changes(before, request.ports.hash_blob)
    blobs = dict(before)
    for path, content in changes.items():
        if content is None:
            blobs.pop(path, None)
        else:
            blobs[path] = request.ports.hash_blob(content)
    read_state, read_output = request.ports.read_state, request.ports.read_output

    def read(paths: Sequence[str]) -> Mapping[str, bytes]:
        state = [p for p in paths if p in request.snapshot.state_blobs]
        found = dict(read_state(state)) if state and read_state is not None else {}
        found.update({p: request.snapshot.state_files[p] for p in state if p in request.snapshot.state_files})
        for path in paths:
            content = read_output(path) if path not in found and read_output is not None else None
            if content is not None:
                found[path] = content
        return found

    rendered = {p: c for p, c in changes.items() if c is not None}
    return side_of(label, RepositoryState(request, None), result, rendered, blobs, read)
