"""Rule tables for the failover controllers beyond the vectors: time arithmetic with an injected clock,
the cluster controller's taints, ClusterTaintPolicy, the taint manager, application failover, graceful
eviction, the eviction queue and the old and new purge mode names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gitops_karmada.core.codecs.times import format_precise, format_time, parse_time
from gitops_karmada.core.failover.application import run_application_failover
from gitops_karmada.core.failover.evict import graceful_evict_cluster
from gitops_karmada.core.failover.eviction_queue import (
    EvictionQueue,
    QueuedEviction,
    due_evictions,
    enqueue,
    eviction_pause_seconds,
    next_turn_seconds,
    requeue_failed,
)
from gitops_karmada.core.failover.graceful import assess_eviction_tasks
from gitops_karmada.core.failover.taints import (
    apply_taint_policies,
    default_tolerations,
    no_execute_decision,
    taint_eviction_task,
)
from gitops_karmada.core.observed.conditions import condition_taints, ready_status
from gitops_karmada.model.base import Taint, TaintEffect, Toleration
from gitops_karmada.model.bindings import AggregatedStatusItem, GracefulEvictionTask, ResourceBindingSpec
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.policies import FailoverBehavior, PurgeMode
from gitops_karmada.model.purge_modes import canonical_purge_mode, flag_purge_mode, is_directly
from gitops_karmada.model.taint_policies import ClusterTaintPolicy
from gitops_karmada.model.wellknown import NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY
from tests.builders import cluster, cluster_doc

NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def no_execute(key: str = "k", added: float | None = 0) -> Taint:
    return Taint(
        key=key,
        effect=TaintEffect.NO_EXECUTE,
        time_added=format_time(at(added)) if added is not None else None,
    )


def tolerating(key: str = "k", seconds: int | None = None) -> Toleration:
    return Toleration.model_validate(
        {
            "key": key,
            "operator": "Exists",
            "effect": "NoExecute",
            **({"tolerationSeconds": seconds} if seconds is not None else {}),
        }
    )


# -- times ---------------------------------------------------------------------------------------------------


def test_times_parse_offsets_and_write_utc() -> None:
    assert parse_time("2025-01-01T13:00:00+01:00") == NOW
    assert parse_time("2025-01-01T12:00:00") == NOW  # naive is UTC
    assert format_time(at(0.75)) == "2025-01-01T12:00:00Z"  # metav1.Time: whole seconds
    assert format_precise(at(0.5)) == "2025-01-01T12:00:00.500000Z"
    assert parse_time(format_precise(at(0.5))) == at(0.5)


# -- the cluster controller ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reported", "heartbeat_age", "ever", "expected"),
    [
        ("True", 10, True, "True"),
        ("True", 40, True, "True"),  # exactly the grace period: still fresh
        ("True", 41, True, "Unknown"),
        ("False", 41, True, "Unknown"),
        ("True", 50, False, "True"),  # a cluster that never reported gets the startup grace (60 s)
        ("True", 61, False, "Unknown"),
        (None, 0, False, "Unknown"),
    ],
)
def test_ready_turns_unknown_when_the_heartbeat_is_older_than_the_grace_period(
    reported: str | None, heartbeat_age: int, ever: bool, expected: str
) -> None:
    got = ready_status(
        reported,
        at(0),
        at(heartbeat_age),
        monitor_grace_seconds=40,
        startup_grace_seconds=60,
        ever_reported=ever,
    )
    assert got == expected


@pytest.mark.parametrize(
    ("ready", "keys"),
    [("False", [NOT_READY_TAINT_KEY]), ("Unknown", [UNREACHABLE_TAINT_KEY]), ("True", [])],
)
def test_condition_taints_follow_ready(ready: str, keys: list[str]) -> None:
    other = Taint(key="dedicated", value="gpu", effect=TaintEffect.NO_SCHEDULE)
    stale = Taint(key=UNREACHABLE_TAINT_KEY, effect=TaintEffect.NO_SCHEDULE, time_added=format_time(at(-100)))
    taints = condition_taints(ready, [other, stale], at(0))
    assert [t.key for t in taints if t.key != "dedicated"] == keys
    assert other in taints  # never touches other taints
    if ready == "Unknown":
        assert taints[1].time_added == format_time(at(-100))  # an existing taint keeps its time


# -- ClusterTaintPolicy --------------------------------------------------------------------------------------


def taint_policy(name: str, **spec: Any) -> ClusterTaintPolicy:
    return ClusterTaintPolicy.model_validate(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterTaintPolicy",
            "metadata": {"name": name},
            "spec": {"taints": [{"key": "evict", "effect": "NoExecute"}], **spec},
        }
    )


NOT_READY = [{"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}]
READY = [{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}]


def with_ready(name: str, status: str) -> Cluster:
    document = cluster_doc(name)
    document["status"] = {"conditions": [{"type": "Ready", "status": status}]}
    return Cluster.model_validate(document)


def test_a_taint_policy_adds_on_its_conditions_and_keeps_the_taint_until_removal_conditions_match() -> None:
    policy = taint_policy("p", addOnConditions=NOT_READY, removeOnConditions=READY)
    down = [with_ready("m1", "False"), with_ready("m2", "True")]
    clusters, kept = apply_taint_policies(down, [policy], {}, at(0))
    assert kept == {"m1": (Taint(key="evict", effect=TaintEffect.NO_EXECUTE, time_added=format_time(at(0))),)}
    assert [t.key for t in clusters[0].spec.taints] == ["evict"] and clusters[1].spec.taints == ()
    # later, still down: the taint keeps its first time (de-duplicated by key and effect)
    _, again = apply_taint_policies(down, [policy], kept, at(30))
    assert again == kept
    # neither condition matches (Ready absent): the taint stays; the policy deleted: it stays too
    _, unknown = apply_taint_policies([cluster("m1")], [policy], kept, at(60))
    assert unknown == kept
    _, deleted = apply_taint_policies([with_ready("m1", "True")], [], kept, at(60))
    assert deleted == kept
    # back to Ready: removed
    _, healed = apply_taint_policies([with_ready("m1", "True")], [policy], kept, at(90))
    assert healed == {}


def test_a_taint_policy_applies_only_to_its_target_clusters_and_never_removes_inventory_taints() -> None:
    policy = taint_policy(
        "p", targetClusters={"clusterNames": ["m2"]}, addOnConditions=NOT_READY, removeOnConditions=READY
    )
    clusters, kept = apply_taint_policies(
        [with_ready("m1", "False"), with_ready("m2", "False")], [policy], {}, at(0)
    )
    assert set(kept) == {"m2"}
    own = with_ready("m3", "True")
    own = own.model_copy(update={"spec": own.spec.model_copy(update={"taints": (no_execute("evict"),)})})
    clusters, kept = apply_taint_policies(
        [own], [policy, taint_policy("q", removeOnConditions=READY)], {}, at(0)
    )
    assert clusters[0].spec.taints == (no_execute("evict"),)


# -- the taint manager ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("taints", "tolerations", "now", "evict", "after"),
    [
        ([no_execute()], [], 0, True, 0),  # not tolerated: at once
        ([no_execute()], [tolerating()], 10_000, False, None),  # tolerated without seconds: for ever
        ([no_execute()], [tolerating(seconds=300)], 299, False, 1),
        ([no_execute()], [tolerating(seconds=300)], 300, True, 0),  # exactly reached counts as up
        (
            [no_execute("a"), no_execute("b", added=100)],
            [tolerating("a", 300), tolerating("b", 60)],
            150,
            False,
            10,
        ),
        ([no_execute("a"), no_execute("b")], [tolerating("a", 300)], 0, True, 0),  # b not tolerated
        ([no_execute(added=None)], [tolerating(seconds=30)], 0, False, 30),  # no timeAdded: counts from now
    ],
)
def test_the_taint_manager_evicts_when_a_toleration_runs_out(
    taints: list[Taint], tolerations: list[Toleration], now: int, evict: bool, after: float | None
) -> None:
    decision = no_execute_decision(taints, tolerations, at(now))
    assert (decision.evict, decision.evict_after_seconds) == (evict, after)


def test_default_tolerations_are_added_unless_the_policy_has_its_own() -> None:
    added = default_tolerations([], not_ready_seconds=300, unreachable_seconds=120)
    assert [(t.key, t.toleration_seconds) for t in added] == [
        (NOT_READY_TAINT_KEY, 300),
        (UNREACHABLE_TAINT_KEY, 120),
    ]
    own = default_tolerations(
        [tolerating(NOT_READY_TAINT_KEY, 10)], not_ready_seconds=300, unreachable_seconds=120
    )
    assert [(t.key, t.toleration_seconds) for t in own] == [
        (NOT_READY_TAINT_KEY, 10),
        (UNREACHABLE_TAINT_KEY, 120),
    ]


@pytest.mark.parametrize(
    ("failover", "flag", "mode"),
    [
        (None, "Gracefully", "Gracefully"),
        (None, "Directly", "Directly"),
        (None, "anything", "Gracefully"),
        ({"cluster": {"purgeMode": "Directly"}}, "Gracefully", "Directly"),
        ({"cluster": {"purgeMode": "Immediately"}}, "Gracefully", "Directly"),
        ({"cluster": {}}, "Directly", "Gracefully"),  # present without a mode: Karmada's default
    ],
)
def test_the_taint_managers_purge_mode(failover: dict[str, Any] | None, flag: str, mode: str) -> None:
    behaviour = FailoverBehavior.model_validate(failover) if failover is not None else None
    assert taint_eviction_task(behaviour, flag).purge_mode == mode


# -- purge mode names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("Directly", PurgeMode.DIRECTLY),
        ("Immediately", PurgeMode.DIRECTLY),
        ("Gracefully", PurgeMode.GRACEFULLY),
        ("Graciously", PurgeMode.GRACEFULLY),
        ("Never", PurgeMode.NEVER),
        ("", PurgeMode.GRACEFULLY),
    ],
)
def test_old_and_new_purge_mode_names_mean_the_same(name: str, canonical: PurgeMode) -> None:
    assert canonical_purge_mode(name) is canonical
    assert is_directly(name) == (canonical is PurgeMode.DIRECTLY and bool(name))
    assert flag_purge_mode(name) is (
        PurgeMode.DIRECTLY if canonical is PurgeMode.DIRECTLY else PurgeMode.GRACEFULLY
    )


# -- evictions and graceful eviction ------------------------------------------------------------------------


def spec(**fields: Any) -> ResourceBindingSpec:
    return ResourceBindingSpec.model_validate(
        {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "d", "name": "w"}} | fields
    )


def test_graceful_evict_cluster_removes_the_target_and_adds_one_task_per_cluster() -> None:
    before = spec(clusters=[{"name": "m1", "replicas": 2}, {"name": "m2", "replicas": 1}])
    task = GracefulEvictionTask(from_cluster="", purge_mode="Directly", reason="R", producer="P")
    after = graceful_evict_cluster(before, "m1", task)
    assert [c.name for c in after.clusters] == ["m2"]
    assert [(t.from_cluster, t.replicas) for t in after.graceful_eviction_tasks] == [("m1", 2)]
    assert graceful_evict_cluster(after, "m3", task) == after  # not scheduled there: nothing
    again = graceful_evict_cluster(
        after.model_copy(update={"clusters": (*after.clusters, *before.clusters[:1])}), "m1", task
    )
    assert len(again.graceful_eviction_tasks) == 1 and [c.name for c in again.clusters] == ["m2"]


def test_each_task_has_its_own_grace_period() -> None:
    tasks = [
        GracefulEvictionTask(
            from_cluster="m1", grace_period_seconds=30, creation_timestamp=format_time(at(0))
        ),
        GracefulEvictionTask(from_cluster="m3", creation_timestamp=format_time(at(0))),
    ]
    # v1.16 leaked m1's 30 s into m3's task; v1.17 gives m3 the default timeout (600 s)
    result = assess_eviction_tasks(
        tasks, now=at(31), default_timeout_seconds=600, has_scheduled=False, schedule_result=[], observed=[]
    )
    assert result.evicted_clusters == ("m1",)
    assert [t.from_cluster for t in result.kept] == ["m3"] and result.next_retry_seconds == 569
    # once scheduled, an empty new placement counts as all healthy (Karmada's loop over no clusters)
    empty = assess_eviction_tasks(
        tasks, now=at(1), default_timeout_seconds=600, has_scheduled=True, schedule_result=[], observed=[]
    )
    assert empty.evicted_clusters == ("m1", "m3")


def test_tasks_end_when_the_new_placement_is_healthy_and_only_then() -> None:
    task = GracefulEvictionTask(from_cluster="m1", creation_timestamp=format_time(at(0)))
    target = spec(clusters=[{"name": "m2", "replicas": 2}]).clusters
    unhealthy = [AggregatedStatusItem(cluster_name="m2", applied=True, health="Unhealthy")]
    healthy = [AggregatedStatusItem(cluster_name="m2", applied=True, health="Healthy")]
    kwargs: dict[str, Any] = {"now": at(10), "default_timeout_seconds": 600, "schedule_result": target}
    assert assess_eviction_tasks([task], has_scheduled=True, observed=unhealthy, **kwargs).kept == (task,)
    assert assess_eviction_tasks([task], has_scheduled=True, observed=healthy, **kwargs).evicted_clusters == (
        "m1",
    )
    kept = assess_eviction_tasks([task], has_scheduled=False, observed=healthy, **kwargs)
    assert kept.kept == (task,) and kept.next_retry_seconds == 590


# -- application failover ------------------------------------------------------------------------------------


def app_spec(**application: Any) -> ResourceBindingSpec:
    return spec(
        propagateDeps=True,
        clusters=[{"name": "m1", "replicas": 2}, {"name": "m2", "replicas": 2}],
        failover={"application": {"decisionConditions": {"tolerationSeconds": 60}, **application}},
    )


UNHEALTHY_M1 = [
    AggregatedStatusItem(
        cluster_name="m1", applied=True, health="Unhealthy", status={"jobStatus": {"jobId": "j1"}}
    ),
    AggregatedStatusItem(cluster_name="m2", applied=True, health="Healthy"),
]


@pytest.mark.parametrize(
    ("seen", "now", "evicted", "requeue"),
    [
        (None, 0, (), 60),  # first seen: remember and look again after the toleration
        (0, 30, (), 30),
        (0, 60, (), 1),  # exactly the toleration: not yet (strictly after): look again a second later
        (0, 61, ("m1",), 0),
    ],
)
def test_application_failover_evicts_strictly_after_the_toleration(
    seen: int | None, now: int, evicted: tuple[str, ...], requeue: float
) -> None:
    memory = {"m1": format_time(at(seen))} if seen is not None else {}
    result = run_application_failover(
        app_spec(purgeMode="Gracefully", gracePeriodSeconds=600),
        UNHEALTHY_M1,
        now=at(now),
        unhealthy_since=memory,
        health_hook=True,
    )
    assert result.evicted_clusters == evicted
    assert result.requeue_after_seconds == requeue
    if evicted:
        assert [c.name for c in result.spec.clusters] == ["m2"]
        (task,) = result.spec.graceful_eviction_tasks
        assert (task.reason, task.producer, task.grace_period_seconds) == (
            "ApplicationFailure",
            "resource-binding-application-failover-controller",
            600,
        )


def test_application_failover_purge_modes_and_state_preservation() -> None:
    memory = {"m1": format_time(at(0))}
    never = run_application_failover(
        app_spec(purgeMode="Never"), UNHEALTHY_M1, now=at(61), unhealthy_since=memory, health_hook=True
    )
    assert never.spec.graceful_eviction_tasks[0].suppress_deletion is True
    off = run_application_failover(
        app_spec(purgeMode="Graciously", gracePeriodSeconds=30),
        UNHEALTHY_M1,
        now=at(61),
        unhealthy_since=memory,
        health_hook=True,
        graceful_eviction_gate=False,
    )
    assert "GracefulEviction featureGate must be enabled" in off.error and off.spec == app_spec(
        purgeMode="Graciously", gracePeriodSeconds=30
    )
    rules = {"statePreservation": {"rules": [{"aliasLabelName": "jobid", "jsonPath": "{.jobStatus.jobId}"}]}}
    kept = run_application_failover(
        app_spec(purgeMode="Directly", **rules),
        UNHEALTHY_M1,
        now=at(61),
        unhealthy_since=memory,
        health_hook=True,
        injection_gate=True,
    )
    (task,) = kept.spec.graceful_eviction_tasks
    assert task.preserved_label_state == {"jobid": "j1"}
    assert task.clusters_before_failover == ("m1", "m2")
    missing = [AggregatedStatusItem(cluster_name="m1", applied=True, health="Unhealthy"), UNHEALTHY_M1[1]]
    failed = run_application_failover(
        app_spec(purgeMode="Directly", **rules),
        missing,
        now=at(61),
        unhealthy_since=memory,
        health_hook=True,
        injection_gate=True,
    )
    assert "has not yet been collected from Cluster(m1)" in failed.error and not failed.evicted_clusters
    assert failed.unhealthy_since == memory  # the memory is kept for the retry


def test_application_failover_forgets_healthy_and_unscheduled_clusters() -> None:
    memory = {"m1": format_time(at(0)), "m2": format_time(at(0)), "gone": format_time(at(0))}
    result = run_application_failover(
        app_spec(purgeMode="Gracefully", gracePeriodSeconds=600),
        UNHEALTHY_M1,
        now=at(10),
        unhealthy_since=memory,
        health_hook=True,
    )
    assert dict(result.unhealthy_since) == {"m1": format_time(at(0))}
    ignored = run_application_failover(
        app_spec().model_copy(update={"propagate_deps": False}),
        UNHEALTHY_M1,
        now=at(10),
        unhealthy_since=memory,
        health_hook=True,
    )
    assert ignored.ignored and ignored.spec.graceful_eviction_tasks == ()


# -- the eviction queue --------------------------------------------------------------------------------------


def item(name: str, enqueued: float = 0) -> QueuedEviction:
    return QueuedEviction(
        queue="binding-eviction",
        binding=f"Deployment.apps/d/{name}",
        cluster="m1",
        resource_kind="Deployment",
        enqueued_at=format_precise(at(enqueued)),
    )


@pytest.mark.parametrize(("rate", "pause"), [(0.5, 2.0), (2.0, 0.5), (0.0, 1800.0), (1000.0, 0.005)])
def test_the_pause_after_each_eviction(rate: float, pause: float) -> None:
    assert eviction_pause_seconds(rate) == pause


def test_the_queue_takes_items_one_pause_apart_whenever_the_runs_happen() -> None:
    queue = enqueue(EvictionQueue(), [item(f"w{n}") for n in range(5)])
    assert enqueue(queue, [item("w0")]).depth() == 5  # a workqueue de-duplicates
    # one run at the end takes everything, each at its own turn
    _, all_at_once = due_evictions(queue, at(100), 0.5)
    # many runs, one a second, give the same turns
    pieces: list[str] = []
    waiting = queue
    for second in range(12):
        waiting, taken = due_evictions(waiting, at(second), 0.5)
        pieces.extend(t.at for t in taken)
    assert [t.at for t in all_at_once] == pieces == [format_precise(at(2 * n)) for n in range(5)]
    assert next_turn_seconds(waiting, at(12)) is None
    rest, taken = due_evictions(queue, at(3), 0.5)
    assert len(taken) == 2 and next_turn_seconds(rest, at(3)) == 1.0 and rest.pending(at(3))


def test_failed_evictions_come_back_with_backoff() -> None:
    queue, taken = due_evictions(enqueue(EvictionQueue(), [item("w0")]), at(0), 0.5)
    again = requeue_failed(queue, taken)
    assert again.items[0].failures == 1 and again.items[0].not_before == format_precise(at(5))
    _, retried = due_evictions(again, at(4), 0.5)
    assert retried == ()
    queue2, retried = due_evictions(again, at(5), 0.5)
    assert [t.at for t in retried] == [format_precise(at(5))]
    second = requeue_failed(queue2, retried).items[0]
    assert (second.failures, second.not_before) == (2, format_precise(at(15)))  # 5 s × 2^1 after its turn
