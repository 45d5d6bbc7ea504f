"""One run of a template's rollout: from its previous state, the revision the inputs render now and what
the clusters reported, the next state and where each cluster's files come from.

- A revision that differs from what the clusters hold starts a rollout (or, under ``onNewRevision:
  Restart``, starts it again): its first step with a cluster to change is promoted at once.
- While it progresses, the last promoted step's gate is judged each run: passed, the next step with a
  cluster to change is promoted (steps with nothing to change go along); after the last, it succeeded.
- A wave that fails (a cluster Unhealthy, a commit status failed) rolls every cluster the revision reached
  back to the last promoted files (``onFailure: Rollback``, read from ``base``), or holds (``Hold``).
- A rolled back or held revision stays so until the template's render changes again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_time, parse_time, seconds
from gitops_karmada.core.rollout.gates import GateVerdict, Gating, judge_gate
from gitops_karmada.core.rollout.plan import reached_clusters
from gitops_karmada.core.rollout.state import RolloutPhase, RolloutState
from gitops_karmada.model.rollouts import NewRevision, RolloutFailure

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from gitops_karmada.core.rollout.gates import ClusterReport, Signals
    from gitops_karmada.core.rollout.plan import Step
    from gitops_karmada.model.rollouts import RolloutPolicy


class FilesFrom(enum.StrEnum):
    """Where a cluster's files come from when not from the render of the inputs now."""

    KEPT = "kept"
    """What the folder holds (its wave has not been reached)."""
    BASE = "base"
    """What the folder held in the last promoted render (rolled back)."""


@dataclass(frozen=True, slots=True)
class Moment:
    """Where the run stands: the time, the source commit read and the commit whose folders it reads."""

    now: str
    source: str
    current_commit: str


@dataclass(frozen=True, slots=True)
class Decision:
    state: RolloutState
    files_from: Mapping[str, FilesFrom]
    """Cluster → where its files come from (clusters not named: the render of the inputs now)."""
    promoted: tuple[Step, ...] = ()
    """The steps this run promoted."""
    events: tuple[str, ...] = ()
    due: str = ""
    """When time alone moves the rollout on (bake time, ``healthyFor``)."""
    external: tuple[str, ...] = ()
    """What else it waits for (``approval``, ``commit-status:<context>``), for the commit's trailers."""

    steps: tuple[Step, ...] = ()
    """The template's clusters in the order the rollout reaches them."""

    @property
    def waves(self) -> dict[str, str]:
        """Cluster → its step, with `` (waiting)`` for a cluster whose folder keeps its files."""
        return {
            cluster: step.label + (" (waiting)" if self.files_from.get(cluster) is FilesFrom.KEPT else "")
            for step in self.steps
            for cluster in step.clusters
        }


@dataclass(frozen=True, slots=True)
class Rollout:
    """What one template's rollout is decided from."""

    policy: RolloutPolicy
    steps: tuple[Step, ...]
    revision: str
    differs: frozenset[str]
    """The clusters whose folder does not hold what the inputs render now."""
    reports: Callable[[Step, str], Sequence[ClusterReport]]
    """What a step's clusters reported, since a time (RFC 3339), of what their folders hold."""
    signals: Signals


def advance(rollout: Rollout, previous: RolloutState | None, moment: Moment) -> Decision:
    """The template's rollout after this run (the module says how)."""
    return replace(_decide(rollout, previous, moment), steps=rollout.steps)


def _decide(rollout: Rollout, previous: RolloutState | None, moment: Moment) -> Decision:
    policy = rollout.policy
    if previous is not None and previous.policy != policy.ref:
        previous = None  # another policy governs it now: its rollout starts afresh
    if previous is not None and previous.revision == rollout.revision:
        if previous.in_flight:
            return _judge(rollout, previous, moment, queued=False)
        if previous.phase is RolloutPhase.SUCCEEDED or not rollout.differs:
            # a revision that succeeded goes to a cluster joining later at once
            return _done(rollout, previous, moment)
        return _standing(rollout, previous)
    if not rollout.differs:
        return _done(rollout, previous, moment)
    if previous is not None and previous.in_flight and policy.spec.on_new_revision is NewRevision.QUEUE:
        return _judge(rollout, previous, moment, queued=True)
    return _start(rollout, previous, moment)


def _done(rollout: Rollout, previous: RolloutState | None, moment: Moment) -> Decision:
    """Nothing (more) to roll out: every folder holds the render (a new policy over a fleet, the last
    wave), or the revision already succeeded and a cluster that joined since gets it at once."""
    state = RolloutState(
        policy=rollout.policy.ref,
        revision=rollout.revision,
        phase=RolloutPhase.SUCCEEDED,
        reached=tuple(s.label for s in rollout.steps),
        since=previous.since
        if previous is not None and previous.revision == rollout.revision
        else moment.now,
        source=previous.source
        if previous is not None and previous.revision == rollout.revision
        else moment.source,
        sources=dict(previous.sources) if previous is not None else {},
    )
    return Decision(state, {})


def _start(rollout: Rollout, previous: RolloutState | None, moment: Moment, why: str = "") -> Decision:
    """A new revision: its first step with a cluster to change goes now."""
    keeps_base = previous is not None and previous.base and previous.phase is not RolloutPhase.SUCCEEDED
    base = previous.base if keeps_base and previous is not None else moment.current_commit
    fresh = RolloutState(
        policy=rollout.policy.ref,
        revision=rollout.revision,
        phase=RolloutPhase.PROGRESSING,
        since=moment.now,
        base=base,
        source=moment.source,
        sources=dict(previous.sources) if previous is not None else {},
    )
    restarted = previous is not None and previous.revision != rollout.revision and previous.in_flight
    return _promote(
        rollout, fresh, moment, why or ("restarted: the template changed again" if restarted else "")
    )


def _promote(rollout: Rollout, state: RolloutState, moment: Moment, why: str) -> Decision:
    """Promote the next steps up to and including the first that has a cluster to change."""
    promoted: list[Step] = []
    for step in rollout.steps:
        if step.label in state.reached:
            continue
        promoted.append(step)
        if rollout.differs.intersection(step.clusters):
            break
    reached = (*state.reached, *(s.label for s in promoted))
    sources = dict(state.sources)
    for step in promoted:
        for cluster in step.clusters:
            if cluster in rollout.differs:
                sources[cluster] = moment.source
    events = ([why] if why else []) + [f"wave {s.label} promoted ({', '.join(s.clusters)})" for s in promoted]
    state = replace(state, reached=reached, since=moment.now, healthy_since="", sources=sources)
    # judged at once, so that the state says what the wave waits for (and a rerun makes the same state)
    judged = _judge(rollout, state, moment, queued=False)
    return replace(judged, promoted=tuple(promoted), events=tuple(events))


def _pending_steps(rollout: Rollout, state: RolloutState) -> bool:
    return any(step.label not in state.reached for step in rollout.steps)


def _judge(rollout: Rollout, state: RolloutState, moment: Moment, *, queued: bool) -> Decision:
    """The last promoted step's gate, judged now."""
    policy = rollout.policy
    last = next((s for s in reversed(rollout.steps) if s.label in state.reached), None)
    if last is None:
        return _start(rollout, None, moment)
    if parse_time(moment.now) <= parse_time(state.since):
        # promoted at this instant: judged from the next run on, so that a rerun at the same time (verify)
        # makes the same state whatever has been reported since
        message = f"wave {last.label} promoted at {state.since}; its gate is judged next"
        first = replace(state, message=message)
        held = dict.fromkeys(rollout.differs, FilesFrom.KEPT) if queued else _files_from(rollout, first)
        return Decision(first, held, due=_after(state.since))
    verdict = judge_gate(
        Gating(
            policy=policy.ref,
            wave=last.wave,
            gate=policy.spec.gate_of(last.wave),
            bake_seconds=policy.spec.bake_seconds,
            reports=rollout.reports(last, state.since),
            signals=rollout.signals,
        ),
        state,
        parse_time(moment.now),
    )
    if verdict.failed:
        return _failed(rollout, state, last, verdict)
    if not verdict.passed:
        waiting = replace(
            state,
            healthy_since=verdict.healthy_since,
            message=f"wave {last.label} waits for " + "; ".join(verdict.waiting),
        )
        # a queued revision waits behind the wave in progress: every folder keeps what it holds
        held = dict.fromkeys(rollout.differs, FilesFrom.KEPT) if queued else _files_from(rollout, waiting)
        return Decision(waiting, held, due=verdict.due, external=verdict.external)
    if queued:  # the wave in progress passed: the queued revision starts from the first wave
        return _start(
            rollout, state, moment, f"wave {last.label} passed its gate: the queued revision starts"
        )
    if _pending_steps(rollout, state):
        return _promote(rollout, state, moment, f"wave {last.label} passed its gate")
    finished = replace(
        state, phase=RolloutPhase.SUCCEEDED, base="", healthy_since=verdict.healthy_since, message="succeeded"
    )
    return Decision(finished, {}, events=(f"wave {last.label} passed its gate: the rollout succeeded",))


def _failed(rollout: Rollout, state: RolloutState, step: Step, verdict: GateVerdict) -> Decision:
    rule = rollout.policy.spec.on_failure
    if rule is RolloutFailure.ROLLBACK:
        reached = reached_clusters(rollout.steps, state.reached)
        sources = {c: s for c, s in state.sources.items() if c not in reached}
        message = f"rolled back (onFailure: Rollback): wave {step.label} failed: {verdict.failed}"
        failed = replace(state, phase=RolloutPhase.ROLLED_BACK, sources=sources, message=message)
    else:
        message = f"held (onFailure: Hold): wave {step.label} failed: {verdict.failed}"
        failed = replace(state, phase=RolloutPhase.HELD, message=message)
    return Decision(failed, _files_from(rollout, failed), events=(message,))


def _standing(rollout: Rollout, state: RolloutState) -> Decision:
    """A revision that succeeded, rolled back or is held stays as it is until the render changes."""
    return Decision(state, _files_from(rollout, state))


def _after(time: str) -> str:
    """One second after ``time``: when a step promoted at ``time`` is first judged."""
    return format_time(parse_time(time) + seconds(1))


def _files_from(rollout: Rollout, state: RolloutState) -> dict[str, FilesFrom]:
    reached = reached_clusters(rollout.steps, state.reached)
    found = {cluster: FilesFrom.KEPT for cluster in rollout.differs if cluster not in reached}
    if state.phase is RolloutPhase.ROLLED_BACK:
        # whether or not the folder holds the failed revision now: it gets the last promoted files
        found.update(dict.fromkeys(reached, FilesFrom.BASE))
    return found
