"""Simulate: what failover and rescheduling would do if the member clusters reported a scenario.

Nothing is written. The scenario (``core.failover.what_if``) stands in for the clusters' reports from
the commit's time ``t0``; the pipeline runs at ``t0`` and then at every time its failover controllers ask
to look again (a toleration or grace period ends, the eviction queue's next turn) up to ``t0 + after``,
exactly as a daemon reconciling each status report would. The result is ``diff``'s plan, between the
fleet as reconcile would render it now and as it would be at the end, plus the failover timeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from gitops_karmada.adapters.repository import RepositoryState, StatusChoice, read_commit
from gitops_karmada.core.codecs.times import format_time, parse_time
from gitops_karmada.core.diff import DiffSide, PlanDiff, compare
from gitops_karmada.core.failover.eviction_queue import eviction_pause_seconds
from gitops_karmada.core.failover.what_if import (
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
from gitops_karmada.usecases.diff import side_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.base import Taint
    from gitops_karmada.model.diagnostics import Diagnostic

MAX_STEPS = 500
"""Runs of one simulation at most: a scenario whose controllers keep asking to look again stops here."""
SIMULATED_STATUS = "simulated"


class UnrenderableCommitError(GitopsKarmadaError):
    """The commit to simulate has input errors (``diagnostics``): there is no fleet to start from."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("the commit does not render; fix its input errors first")


@dataclass(frozen=True, slots=True)
class Scenario:
    """What the clusters would report, as given on the command line (parsed against the commit's time:
    a taint's ``timeAdded`` is the scenario's start). Malformed text raises ``ScenarioError``."""

    down: tuple[str, ...] = ()
    """Clusters that report Ready=False."""
    taints: tuple[str, ...] = ()
    """``CLUSTER:KEY[=VALUE]:EFFECT``."""
    capacities: tuple[str, ...] = ()
    """``CLUSTER:RESOURCE=QUANTITY[,...]``."""
    unhealthy: tuple[str, ...] = ()
    """``KIND[.GROUP]/NAMESPACE/NAME@CLUSTER``."""
    after: str = "0s"
    """How long the scenario lasts (``90s``, ``5m``, ``1h30m``)."""


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


@dataclass(frozen=True, slots=True)
class Simulation:
    plan: PlanDiff
    """The fleet now (the base) against the fleet at the scenario's end (the head)."""
    timeline: tuple[TimelineEntry, ...]
    """What the failover controllers did, in order, then the evictions still queued at the end."""
    runs: int
    """Pipeline runs the scenario took (not counting the run of the fleet now)."""


def simulate(store: GitStore, rev: str, scenario: Scenario) -> Simulation:
    """Run ``scenario`` on the fleet at ``rev`` (with the status branch's newest reports)."""
    state = read_commit(store, rev, materialize=False, status=StatusChoice.TIP)
    request = state.request
    start = parse_time(request.snapshot.now)
    what_if = what_if_of(scenario, start)
    end = start + timedelta(seconds=parse_duration(scenario.after))
    base = reconcile(request)
    if base.inputs is None:
        raise UnrenderableCommitError([d for d in base.diagnostics if d.is_error])
    check_clusters(what_if, [c.name for c in base.inputs.clusters])
    final, timeline, runs = _run(request, base, what_if, start, end)
    base_side = _side(f"{state.source[:12] if state.source else rev} (now)", request, base)
    final_side = _side(f"simulated at {format_time(end)}", *final)
    return Simulation(compare(base_side, final_side), tuple(timeline), runs)


def what_if_of(scenario: Scenario, start: datetime) -> WhatIf:
    """The scenario as the pipeline takes it; ``start``: when its taints were added."""
    tainted: dict[str, list[Taint]] = {}
    for text in scenario.taints:
        cluster, taint = parse_taint(text, start)
        tainted.setdefault(cluster, []).append(taint)
    return WhatIf(
        down=frozenset(scenario.down),
        taints={cluster: tuple(found) for cluster, found in tainted.items()},
        capacity=dict(parse_capacity(text) for text in scenario.capacities),
        unhealthy=frozenset(parse_unhealthy(text) for text in scenario.unhealthy),
    )


def _observed(
    request: ReconcileRequest, result: RenderResult, what_if: WhatIf, start: datetime, now: datetime
) -> ObservedStatus:
    assert result.inputs is not None
    reported = request.snapshot.observed.snapshots if request.snapshot.observed is not None else {}
    snapshots = scenario_snapshots(result.inputs, reported, what_if, since=start, now=now)
    return ObservedStatus(snapshots, SIMULATED_STATUS)


def _step(
    request: ReconcileRequest,
    current: ReconcileRequest,
    result: RenderResult,
    what_if: WhatIf,
    start: datetime,
    moment: datetime,
) -> ReconcileRequest:
    """The request of the run at ``moment``: the previous run's output, the scenario's reports then."""
    following = next_request(
        current,
        result,
        now=format_time(moment),
        observed=_observed(request, result, what_if, start, moment),
    )
    return following.with_mode(what_if=what_if)


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
        current = _step(request, current, result, what_if, start, moment)
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
        current = _step(request, current, result, what_if, start, end)
        result = reconcile(current)
        steps += 1
        timeline.extend(_entries(result, end))
    timeline.extend(_still_queued(result, request.config.failover.resource_eviction_rate))
    return (current, result), timeline, steps


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
