"""Simulate: what failover and rescheduling would do if the member clusters reported a scenario.

Nothing is written. The scenario (``core.failover.what_if``) stands in for the clusters' reports from
the commit's time ``t0``; the pipeline runs at ``t0`` and then at every time its failover controllers ask
to look again (a toleration or grace period ends, the eviction queue's next turn) up to ``t0 + after``,
exactly as a daemon reconciling each status report would. The result is ``diff``'s plan, between the
fleet as reconcile would render it now and as it would be at the end, plus the failover timeline and, for
each part of the scenario that evicted nothing, why (``Quiet``). A cluster or template the scenario names
that is not there is a ``UsageError``.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING

from gitops_karmada.adapters.repository import RepositoryState, StatusChoice, read_commit
from gitops_karmada.core.codecs.times import format_time, parse_time
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
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
from gitops_karmada.core.interpreter import Operation, ResourceInterpreter
from gitops_karmada.core.layout import key_of_identity
from gitops_karmada.core.observed.fold import ObservedStatus
from gitops_karmada.core.rollout.applied import with_applied
from gitops_karmada.model.base import TaintEffect
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.errors import GitopsKarmadaError, UsageError
from gitops_karmada.model.wellknown import CONFIG_FILE, NOT_READY_TAINT_KEY
from gitops_karmada.reconcile import ReconcileRequest, RenderResult, next_request, reconcile
from gitops_karmada.usecases.diff import side_of
from gitops_karmada.usecases.reconcile import rollout_due

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.base import Taint
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.keys import ObjectKey

Identity = tuple[str, str, str, str]

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
    applied: bool = False
    """Every cluster applies what each run writes for the templates a RolloutPolicy governs and reports it
    healthy (but where ``unhealthy`` says otherwise): their rollouts run forward."""


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
    not_evicted: tuple[str, ...] = ()
    """For each part of the scenario that evicted nothing, why (the gate is off, a NoSchedule taint never
    evicts, a toleration has not run out yet and when it would, ...)."""
    lookahead_runs: int = 0
    """Runs past the scenario's end that looked for when an eviction would come (not in ``runs``)."""


class UnknownTargetError(UsageError):
    """A scenario names a cluster the inventory does not have, or a template the repository does not."""


def simulate(store: GitStore, rev: str, scenario: Scenario) -> Simulation:
    """Run ``scenario`` on the fleet at ``rev`` (with the status branch's newest reports).
    ``UnknownTargetError``: a cluster or template it names is not there."""
    state = read_commit(store, rev, materialize=False, status=StatusChoice.TIP)
    request = state.request
    start = parse_time(request.snapshot.now)
    what_if = what_if_of(scenario, start)
    end = start + timedelta(seconds=parse_duration(scenario.after))
    base = reconcile(request)
    if base.inputs is None:
        raise UnrenderableCommitError([d for d in base.diagnostics if d.is_error])
    check_targets(scenario, base.inputs)
    what_if = replace(what_if, unhealthy=_resolved(scenario, base.inputs))
    check_clusters(what_if, [c.name for c in base.inputs.clusters])
    final, timeline, runs = _run(request, base, what_if, start, end, applied=scenario.applied)
    timeline = [*_rollout_entries(base, start), *timeline]  # what reconcile would start now
    quiet = Quiet(request, base, what_if, start, end)
    not_evicted = quiet.reasons(final, timeline)
    base_side = _side(f"{state.source[:12] if state.source else rev} (now)", request, base)
    final_side = _side(f"simulated at {format_time(end)}", *final)
    return Simulation(compare(base_side, final_side), tuple(timeline), runs, not_evicted, quiet.runs)


def check_targets(scenario: Scenario, inputs: Inputs) -> None:
    """``UnknownTargetError`` naming the first option whose cluster or template is not in ``inputs``."""
    known = [c.name for c in inputs.clusters]
    named = [
        *(("--cluster-down", cluster) for cluster in scenario.down),
        *(("--taint", text.partition(":")[0]) for text in scenario.taints),
        *(("--capacity", text.partition(":")[0]) for text in scenario.capacities),
        *(("--unhealthy", text.rpartition("@")[2]) for text in scenario.unhealthy),
    ]
    for option, cluster in named:
        if cluster not in known:
            close = difflib.get_close_matches(cluster, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise UnknownTargetError(
                f"{option}: no cluster {cluster!r} in the inventory (clusters: {', '.join(known)}){hint}"
            )
    for text in scenario.unhealthy:
        _template_of(text, inputs)


def _template_of(text: str, inputs: Inputs) -> ObjectKey:
    """The template an ``--unhealthy`` value names: its kind in any case, its group optional."""
    subject = text.rpartition("@")[0]
    (group, kind, namespace, name), _ = parse_unhealthy(text)
    found = [
        t.key
        for t in inputs.templates
        if t.key.kind.lower() == kind.lower()
        and (not group or t.key.group == group)
        and (t.key.namespace, t.key.name) == (namespace, name)
    ]
    if len(found) == 1:
        return found[0]
    if found:
        kinds = ", ".join(sorted(f"{k.kind}.{k.group}" for k in found))
        raise UnknownTargetError(f"--unhealthy {subject!r} is ambiguous ({kinds}): add the API group")
    same_name = sorted(str(t.key) for t in inputs.templates if t.key.name == name)
    hint = f"; templates named {name}: {', '.join(same_name)}" if same_name else ""
    raise UnknownTargetError(f"--unhealthy: no template {subject!r}{hint}")


def _resolved(scenario: Scenario, inputs: Inputs) -> frozenset[tuple[Identity, str]]:
    """The ``--unhealthy`` pairs with each template's whole identity (``Deployment`` is ``apps``')."""
    return frozenset(
        (_template_of(text, inputs).identity, text.rpartition("@")[2]) for text in scenario.unhealthy
    )


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
    *,
    applied: bool = False,
) -> ReconcileRequest:
    """The request of the run at ``moment``: the previous run's output, the scenario's reports then
    (``applied``: with the governed templates' files applied and healthy)."""
    observed = _observed(request, result, what_if, start, moment)
    following = next_request(current, result, now=format_time(moment), observed=observed)
    if applied:
        observed = _applied(observed, following, result, what_if)
        following = following.with_snapshot(observed=observed)
    return following.with_mode(what_if=what_if)


def _applied(
    observed: ObservedStatus, request: ReconcileRequest, result: RenderResult, what_if: WhatIf
) -> ObservedStatus:
    """``observed`` with every file the rollouts' templates have in ``request``'s folders reported applied:
    healthy, but the scenario's unhealthy objects."""
    read = request.ports.read_output
    by_cluster: dict[str, list[Mapping[str, object]]] = {}
    for outcome in result.outcomes:
        if outcome.rollout is None or read is None:
            continue
        for cluster, path in outcome.paths.items():
            raw = read(path)
            documents = load_yaml_documents(raw) if raw is not None else ()
            by_cluster.setdefault(cluster, []).extend(d.body for d in documents if isinstance(d.body, dict))
    unhealthy: dict[str, set[Identity]] = {}
    for identity, cluster in what_if.unhealthy:
        unhealthy.setdefault(cluster, set()).add(identity)
    snapshots = {
        name: with_applied(snapshot, by_cluster.get(name, ()), frozenset(unhealthy.get(name, ())))
        for name, snapshot in observed.snapshots.items()
    }
    return ObservedStatus(snapshots, observed.commit)


def _run(
    request: ReconcileRequest,
    base: RenderResult,
    what_if: WhatIf,
    start: datetime,
    end: datetime,
    *,
    applied: bool = False,
) -> tuple[tuple[ReconcileRequest, RenderResult], list[TimelineEntry], int]:
    """Run the scenario from ``start`` to ``end``; the last request and result, the timeline, the runs."""
    timeline: list[TimelineEntry] = []
    moment = start
    current = request
    result = base
    steps = 0
    while True:
        current = _step(request, current, result, what_if, start, moment, applied=applied)
        result = reconcile(current)
        steps += 1
        if result.inputs is None:
            raise GitopsKarmadaError(
                "the scenario does not render: " + "; ".join(map(str, result.diagnostics))
            )
        timeline.extend(_entries(result, moment))
        wait = _next_look(result, moment)
        if wait is None or moment + timedelta(seconds=wait) > end or steps >= MAX_STEPS:
            break
        moment += timedelta(seconds=max(wait, 1.0))
    if moment < end and steps < MAX_STEPS:
        current = _step(request, current, result, what_if, start, end, applied=applied)
        result = reconcile(current)
        steps += 1
        timeline.extend(_entries(result, end))
    timeline.extend(_still_queued(result, request.config.failover.resource_eviction_rate))
    return (current, result), timeline, steps


def _next_look(result: RenderResult, moment: datetime) -> float | None:
    """Seconds until the controllers or a rollout ask to look again; None when nothing waits on time."""
    waits = [result.failover.requeue_after_seconds] if result.failover is not None else []
    due = rollout_due(result)
    if due is not None:
        waits.append(max((parse_time(due) - moment).total_seconds(), 0.0))
    found = [w for w in waits if w is not None]
    return min(found) if found else None


def _entries(result: RenderResult, moment: datetime) -> list[TimelineEntry]:
    """What the controllers and the rollouts did in one run (evictions waiting in the queue are told once,
    at the end)."""
    at = format_time(moment)
    if result.failover is None:
        return _rollout_entries(result, moment)
    return [
        *(
            TimelineEntry(at, e.template, e.cluster, e.what, e.message)
            for e in result.failover.events
            if e.what != "queued"
        ),
        *_rollout_entries(result, moment),
    ]


def _rollout_entries(result: RenderResult, moment: datetime) -> list[TimelineEntry]:
    at = format_time(moment)
    return [
        TimelineEntry(at, str(o.key), "", "rollout", event)
        for o in result.outcomes
        if o.rollout is not None
        for event in o.rollout.events
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


LOOKAHEAD_STEPS = 50
"""Runs past the scenario's end at most, to find when an eviction that has not come yet would come."""
MOVED = frozenset({"evicted", "queued"})


class Quiet:
    """Why the parts of a scenario that evicted nothing did not: what Karmada's controllers need and the
    scenario lacks, or, when only time is missing, when they would act (found by running on past the
    scenario's end with the same pipeline, at most ``LOOKAHEAD_STEPS`` runs)."""

    def __init__(
        self, request: ReconcileRequest, base: RenderResult, what_if: WhatIf, start: datetime, end: datetime
    ) -> None:
        assert base.inputs is not None
        self.request, self.base, self.what_if, self.start, self.end = request, base, what_if, start, end
        self.inputs = base.inputs
        self.runs = 0
        self.looked_until: datetime | None = None
        """Where looking ahead stopped with the controllers still asking to look again (None: it did not)."""

    def reasons(
        self, final: tuple[ReconcileRequest, RenderResult], timeline: Sequence[TimelineEntry]
    ) -> tuple[str, ...]:
        what_if, config = self.what_if, self.request.config
        if not (what_if.down or what_if.taints or what_if.unhealthy):
            return ()
        if not config.gate(FeatureGate.FAILOVER):
            return (
                "the Failover feature gate is off (Karmada's default): neither the taint manager nor "
                "application failover runs, so nothing is evicted (featureGates: {Failover: true} in "
                f"{CONFIG_FILE} turns them on)",
            )
        moved = [e for e in timeline if e.action in MOVED]
        clusters = sorted((set(what_if.down) | set(what_if.taints)) - {e.cluster for e in moved})
        pairs = sorted(
            (identity, cluster)
            for identity, cluster in what_if.unhealthy
            if (_label(identity), cluster) not in {(e.template, e.cluster) for e in moved}
        )
        later = self._later(final, clusters, pairs)
        result = final[1]
        assert result.inputs is not None
        inventory = {c.name: c for c in result.inputs.clusters}
        found = [self._cluster(inventory[name], later) for name in clusters]
        found += [self._application(identity, cluster, later) for identity, cluster in pairs]
        return tuple(found)

    # -- when time alone is missing --------------------------------------------------------------------

    def _later(
        self,
        final: tuple[ReconcileRequest, RenderResult],
        clusters: Sequence[str],
        pairs: Sequence[tuple[Identity, str]],
    ) -> dict[tuple[str, str], datetime]:
        """The first eviction after the scenario's end of each (template, cluster) and of each cluster
        (keyed ``("", cluster)``) the reasons ask about, as far as ``LOOKAHEAD_STEPS`` runs reach."""
        wanted = {("", c) for c in clusters} | {(_label(i), c) for i, c in pairs}
        first: dict[tuple[str, str], datetime] = {}
        current, result = final
        moment = self.end
        looked_again = False
        for step in range(LOOKAHEAD_STEPS + 1):
            wait = result.failover.requeue_after_seconds if result.failover is not None else None
            if wait is None and not looked_again:
                # a controller that had time left at its last look (application failover at its
                # tolerationSeconds exactly) decides at the next status report: look once more, 1 s later
                wait, looked_again = 1.0, True
            elif wait is not None:
                looked_again = False
            if wait is None or wanted <= set(first):
                break
            if step == LOOKAHEAD_STEPS:
                self.looked_until = moment
                break
            moment += timedelta(seconds=max(wait, 1.0))
            current = _step(self.request, current, result, self.what_if, self.start, moment)
            result = reconcile(current)
            self.runs += 1
            if result.inputs is None:
                break
            for entry in _entries(result, moment):
                if entry.action == "evicted":
                    first.setdefault(("", entry.cluster), moment)
                    first.setdefault((entry.template, entry.cluster), moment)
        return first

    def _when(self, at: datetime) -> str:
        """``at 2026-01-02T03:09:05Z, 5m after the scenario starts (simulate --after 5m shows it)``."""
        after = _duration_text((at - self.start).total_seconds())
        zero = " (--after is 0s: the scenario ends as it starts)" if self.end == self.start else ""
        return (
            f"at {format_time(at)}, {after} after the scenario starts{zero}: simulate --after {after} "
            "shows it"
        )

    # -- a cluster down or tainted ---------------------------------------------------------------------

    def _cluster(self, cluster: Cluster, later: Mapping[tuple[str, str], datetime]) -> str:
        name, failover = cluster.name, self.request.config.failover
        no_execute = [t for t in cluster.spec.taints if t.effect is TaintEffect.NO_EXECUTE]
        if not no_execute:
            parts = []
            if name in self.what_if.down:
                parts.append(
                    f"{name} reports Ready=False: Karmada's cluster controller gives it the NoSchedule taint "
                    f"{NOT_READY_TAINT_KEY}, and no ClusterTaintPolicy adds a NoExecute taint for it"
                )
            for taint in self.what_if.taints.get(name, ()):
                parts.append(f"the taint {_taint_text(taint)} on {name} is {taint.effect.value}")
            return (
                "; ".join(parts) + f": that keeps new placements off {name} but never evicts what runs "
                "there (only a NoExecute taint does)"
            )
        taints = ", ".join(_taint_text(t) for t in no_execute)
        if not failover.enable_taint_manager:
            return f"{name} has the NoExecute taint {taints}, but failover.enableTaintManager is false"
        if not failover.enable_no_execute_taint_eviction:
            return (
                f"{name} has the NoExecute taint {taints}, but the taint manager evicts nothing: "
                "failover.enableNoExecuteTaintEviction is false (Karmada's default)"
            )
        placed = self.base.index.entries.values() if self.base.index is not None else ()
        on = [entry for entry in placed if name in entry.placement]
        if not on:
            return f"nothing is placed on {name}: there is nothing to evict"
        at = later.get(("", name))
        if at is not None:
            return (
                f"what runs on {name} tolerates its NoExecute taint {taints} for now: the first eviction "
                f"from {name} comes {self._when(at)}"
            )
        if self.looked_until is not None:
            return f"nothing is evicted from {name} up to {format_time(self.looked_until)} either"
        policies = sorted({_policy_text(e.claim) for e in on if e.claim is not None})
        parts = []
        if policies:
            parts.append(
                f"the policies of what runs there ({', '.join(policies)}) tolerate it with no time limit"
            )
        if any(e.claim is None for e in on):
            parts.append(
                "what no policy of its own places there (a Namespace, a dependency) follows the workloads "
                "that need it and is never evicted for a taint"
            )
        return f"nothing on {name} is evicted for its NoExecute taint {taints}: " + "; ".join(parts)

    # -- an application unhealthy ----------------------------------------------------------------------

    def _application(
        self, identity: Identity, cluster: str, later: Mapping[tuple[str, str], datetime]
    ) -> str:
        label = _label(identity)
        entry = self.base.index.entries.get(identity) if self.base.index is not None else None
        placement = sorted(entry.placement) if entry is not None else []
        if cluster not in placement:
            where = ", ".join(placement) or "no cluster"
            return f"{label} is not placed on {cluster} (it is on {where}): nothing of it runs there to fail"
        outcome = next((o for o in self.base.outcomes if o.key.identity == identity), None)
        policy = outcome.match.policy if outcome is not None else None
        if policy is None:
            return f"{label} has no policy of its own (it follows the workloads that require it)"
        short = "cpp" if policy.is_cluster_scoped else "pp"
        named = f"{short}/{policy.namespace}/{policy.name}" if policy.namespace else f"{short}/{policy.name}"
        application = policy.spec.failover.application if policy.spec.failover is not None else None
        if application is None:
            return (
                f"{label}'s policy {named} sets no failover.application: application failover leaves it "
                "alone, however long it stays unhealthy"
            )
        if not policy.spec.propagate_deps:
            return (
                f"{label}'s policy {named} does not set propagateDeps: true, which Karmada's application "
                "failover requires"
            )
        template = next(t for t in self.inputs.templates if t.key.identity == identity)
        interpreter = ResourceInterpreter(self.inputs.customizations)
        if not interpreter.hook_enabled(template.key.api_version, identity[1], Operation.INTERPRET_HEALTH):
            return f"no health interpreter knows {identity[1]}: application failover cannot see it unhealthy"
        at = later.get((label, cluster))
        seconds = application.decision_conditions.toleration_seconds
        if at is not None:
            return (
                f"{label} may stay unhealthy on {cluster} for its tolerationSeconds ({seconds} s): "
                f"application failover evicts it {self._when(at)}"
            )
        if self.looked_until is not None:
            until = format_time(self.looked_until)
            return f"application failover does not evict {label} from {cluster} up to {until}"
        return f"application failover does not evict {label} from {cluster}"


def _label(identity: Identity) -> str:
    return str(key_of_identity(identity))


def _policy_text(claim: tuple[str, str, str, str]) -> str:
    """``pp/NAMESPACE/NAME`` or ``cpp/NAME`` of a claim (policy kind, namespace, name, permanent id)."""
    kind, namespace, name, _ = claim
    return f"pp/{namespace}/{name}" if kind == "PropagationPolicy" else f"cpp/{name}"


def _taint_text(taint: Taint) -> str:
    """``key[=value]:Effect``, as kubectl taint writes it."""
    return f"{taint.key}{'=' + taint.value if taint.value else ''}:{taint.effect.value}"


def _duration_text(seconds: float) -> str:
    """``5m``, ``1h30m``, ``45s``: what ``--after`` reads, rounded up to the second."""
    total = math.ceil(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    text = "".join(f"{n}{unit}" for n, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if n)
    return text or "0s"
