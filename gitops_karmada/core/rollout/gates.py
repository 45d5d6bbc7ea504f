"""A wave's gate: what its clusters reported of the template, and whether the next wave may go.

A cluster counts as healthy only in a snapshot collected after the wave was promoted and within the
heartbeat grace period (``failover.clusterMonitorGracePeriodSeconds``), whose object is the manifest the
rollout wrote (``synced``) and reports Healthy; a cluster whose manifest the revision removes counts once
its object is gone. A stale or missing report is never taken for health: the rollout waits.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.times import format_time, parse_time, seconds
from gitops_karmada.core.interpreter.chain import ResourceHealth
from gitops_karmada.core.rollout.synced import is_synced

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.core.rollout.state import RolloutState
    from gitops_karmada.model.rollouts import RolloutGate

Identity = tuple[str, str, str, str]


class Verdict(enum.StrEnum):
    HEALTHY = "Healthy"
    UNHEALTHY = "Unhealthy"
    PENDING = "Pending"


@dataclass(frozen=True, slots=True)
class ClusterReport:
    cluster: str
    verdict: Verdict
    why: str = ""


@dataclass(frozen=True, slots=True)
class Signals:
    """What no snapshot says: approvals (commits) and commit statuses, as the adapter found them."""

    approvals: Mapping[tuple[str, str], tuple[str, ...]]
    """(policy ``ns/name``, wave) → the times of the commits approving it."""
    statuses: Mapping[str, str]
    """Context → state (success, pending, failure, error) of the commit statuses on the branch's last
    reconcile commit before the one being made: the commit the clusters apply."""
    statuses_at: str = ""
    """When that reconcile commit was made: statuses older than a wave's promotion do not count for it."""
    statuses_on: str = ""
    """That reconcile commit (what the reconcile commit that used them records)."""


NO_SIGNALS = Signals({}, {})
COMMIT_STATUS_POLL_SECONDS = 30
"""How soon a rollout waiting for a commit status looks again (no commit announces a status)."""


def cluster_report(
    cluster: str,
    identity: Identity,
    manifest: Mapping[str, Any] | None,
    observed: ObservedStatus | None,
    *,
    since: datetime,
    now: datetime,
    grace_seconds: float,
    health_of: Callable[[Mapping[str, Any]], ResourceHealth],
) -> ClusterReport:
    """What ``cluster`` reported of the template since its wave was promoted (``manifest``: what the rollout
    wrote there; None: the revision removes it)."""
    snapshot = observed.snapshots.get(cluster) if observed is not None else None
    if snapshot is None:
        return ClusterReport(cluster, Verdict.PENDING, "no status collected")
    collected = parse_time(snapshot.collected_at)
    if collected < since:
        return ClusterReport(
            cluster, Verdict.PENDING, f"last report {snapshot.collected_at} is older than the wave"
        )
    if (now - collected).total_seconds() > grace_seconds:
        return ClusterReport(cluster, Verdict.PENDING, f"last report {snapshot.collected_at} is stale")
    assert observed is not None
    item = observed.object(cluster, identity)
    found = item.observed if item is not None else None
    if manifest is None:
        if found is None:
            return ClusterReport(cluster, Verdict.HEALTHY, "removed")
        return ClusterReport(cluster, Verdict.PENDING, "not removed yet")
    if found is None:
        return ClusterReport(cluster, Verdict.PENDING, "not applied yet")
    if not is_synced(manifest, found):
        return ClusterReport(cluster, Verdict.PENDING, "the cluster does not hold the new manifest yet")
    health = health_of(found)
    if health is ResourceHealth.HEALTHY:
        return ClusterReport(cluster, Verdict.HEALTHY)
    if health is ResourceHealth.UNHEALTHY:
        return ClusterReport(cluster, Verdict.UNHEALTHY, f"reported Unhealthy at {snapshot.collected_at}")
    return ClusterReport(cluster, Verdict.PENDING, "health unknown")


@dataclass(frozen=True, slots=True)
class GateVerdict:
    passed: bool
    failed: str = ""
    """Why the wave failed (a cluster Unhealthy, a commit status failed); empty: it did not."""
    healthy_since: str = ""
    waiting: tuple[str, ...] = ()
    """What the gate still waits for, in words."""
    external: tuple[str, ...] = ()
    """The gates no snapshot can open (``approval``, ``commit-status:<context>``) it waits for."""
    due: str = ""
    """When time alone opens the gate (bake time, ``healthyFor``), if it is all it waits for."""


@dataclass(frozen=True, slots=True)
class Gating:
    """One wave's gate and what it is judged from."""

    policy: str
    wave: str
    gate: RolloutGate
    bake_seconds: float
    reports: Sequence[ClusterReport]
    signals: Signals


def judge_gate(gating: Gating, state: RolloutState, now: datetime) -> GateVerdict:
    """Whether the wave promoted at ``state.since`` lets the next one go at ``now``."""
    since = parse_time(state.since)
    unhealthy = [r for r in gating.reports if r.verdict is Verdict.UNHEALTHY]
    if unhealthy:
        return GateVerdict(False, "; ".join(f"{r.cluster} {r.why}" for r in unhealthy))
    key = (gating.policy, gating.wave)
    gate = gating.gate
    statuses = _statuses_since(gating.signals, since)
    if gate.commit_status is not None:
        found = statuses.get(gate.commit_status, "")
        if found in ("failure", "error"):
            return GateVerdict(False, f"commit status {gate.commit_status} is {found}")
    healthy = all(r.verdict is Verdict.HEALTHY for r in gating.reports)
    healthy_since = (state.healthy_since or format_time(now)) if healthy else ""
    waiting: list[str] = []
    external: list[str] = []
    times: list[datetime] = []
    baked = since + seconds(gating.bake_seconds)
    if now < baked:
        waiting.append(f"bake time until {format_time(baked)}")
        times.append(baked)
    required = gate.healthy_seconds
    if required is not None:
        if not healthy:
            waiting.extend(
                f"{r.cluster}: {r.why}" for r in gating.reports if r.verdict is not Verdict.HEALTHY
            )
        else:
            enough = parse_time(healthy_since) + seconds(required)
            if now < enough:
                waiting.append(
                    f"healthy since {healthy_since}, for {gate.healthy_for} (until {format_time(enough)})"
                )
                times.append(enough)
    if gate.commit_status is not None and statuses.get(gate.commit_status) != "success":
        waiting.append(f"commit status {gate.commit_status} to succeed")
        external.append(f"commit-status:{gate.commit_status}")
    if gate.approval and not any(parse_time(t) >= since for t in gating.signals.approvals.get(key, ())):
        waiting.append("an approval (gitops-karmada rollout approve)")
        external.append("approval")
    if not waiting:
        return GateVerdict(True, healthy_since=healthy_since)
    only_time = len(times) == len(waiting)
    due = max(times) if only_time and times else None
    if any(e.startswith("commit-status:") for e in external):
        poll = now + seconds(COMMIT_STATUS_POLL_SECONDS)
        due = min(due, poll) if due is not None else poll
    return GateVerdict(
        False,
        healthy_since=healthy_since,
        waiting=tuple(waiting),
        external=tuple(external),
        due=format_time(due) if due is not None else "",
    )


def _statuses_since(signals: Signals, since: datetime) -> Mapping[str, str]:
    """The commit statuses, when the commit they are on was made at or after ``since``."""
    if not signals.statuses_at or parse_time(signals.statuses_at) < since:
        return {}
    return signals.statuses
