"""``core.observed.heartbeat.heartbeat_only``: a round that refreshes ``collectedAt`` and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gitops_karmada.core.observed.heartbeat import heartbeat_only
from gitops_karmada.model.status import ClusterStatusSnapshot

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _snapshot(cluster: str, at: datetime, ready: str = "True") -> ClusterStatusSnapshot:
    return ClusterStatusSnapshot.model_validate(
        {
            "metadata": {"name": cluster},
            "collectedAt": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "status": {
                "conditions": [
                    {
                        "type": "Ready",
                        "status": ready,
                        "reason": "r",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ]
            },
        }
    )


def _judge(
    before: dict[str, ClusterStatusSnapshot], after: dict[str, ClusterStatusSnapshot], judged: int, now: int
) -> bool:
    return heartbeat_only(
        before,
        after,
        judged_at=T0 + timedelta(seconds=judged),
        now=T0 + timedelta(seconds=now),
        grace_seconds=40,
    )


def test_only_collected_at_changed_and_fresh_both_times() -> None:
    before = {"a": _snapshot("a", T0), "b": _snapshot("b", T0)}
    after = {"a": _snapshot("a", T0 + timedelta(seconds=30)), "b": _snapshot("b", T0 + timedelta(seconds=30))}
    assert _judge(before, after, judged=5, now=31)


def test_a_status_field_changed_is_no_heartbeat() -> None:
    before = {"a": _snapshot("a", T0)}
    after = {"a": _snapshot("a", T0 + timedelta(seconds=30), ready="False")}
    assert not _judge(before, after, judged=5, now=31)


def test_a_cluster_added_or_gone_is_no_heartbeat() -> None:
    before = {"a": _snapshot("a", T0)}
    after = {"a": _snapshot("a", T0 + timedelta(seconds=30)), "b": _snapshot("b", T0 + timedelta(seconds=30))}
    assert not _judge(before, after, judged=5, now=31)
    assert not _judge(after, before, judged=31, now=31)


def test_a_heartbeat_stale_when_judged_or_now_is_no_heartbeat() -> None:
    before = {"a": _snapshot("a", T0)}
    after = {"a": _snapshot("a", T0 + timedelta(seconds=60))}
    assert not _judge(before, after, judged=45, now=61), "the last run saw it stale: Unknown then, Ready now"
    assert not _judge(before, after, judged=5, now=101), "stale now: Unknown now"
    assert _judge(before, after, judged=40, now=100)
