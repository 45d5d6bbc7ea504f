"""AccurateEstimator as the scheduler sees it, and plugged into schedule() next to the general estimator."""

from __future__ import annotations

import json
from typing import Any

from gitops_karmada.core.scheduler import AccurateEstimator, ScheduleRequest, schedule
from gitops_karmada.core.scheduler.estimate import MAX_INT32
from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot, parse_snapshot_document
from gitops_karmada.model.bindings import Component, ReplicaRequirements
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.policies import Placement
from tests.core.scheduler.builders import cluster, pairs


def snapshot(*objects: dict[str, Any]) -> ClusterSnapshot:
    return parse_snapshot_document({"apiVersion": "v1", "kind": "List", "items": list(objects)})


def node(name: str, cpu: str, pods: str = "110") -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": pods}},
    }


def resource_quota(namespace: str, cpu_free: str, name: str = "compute") -> dict[str, Any]:
    return {
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": namespace},
        "status": {"hard": {"requests.cpu": cpu_free}, "used": {}},
    }


def summary(cpu: str) -> dict[str, Any]:
    return {"resourceSummary": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"}}}


MEMBER1, MEMBER2 = cluster("member1", status=summary("10")), cluster("member2", status=summary("10"))
ONE_CPU = ReplicaRequirements.model_validate({"resourceRequest": {"cpu": "1"}, "namespace": "team"})
FLINK = (
    Component.model_validate(
        {"name": "jobmanager", "replicas": 1, "replicaRequirements": {"resourceRequest": {"cpu": "1"}}}
    ),
    Component.model_validate(
        {"name": "taskmanager", "replicas": 2, "replicaRequirements": {"resourceRequest": {"cpu": "2"}}}
    ),
)


def test_clusters_without_snapshot_give_no_answer_and_without_nodes_zero() -> None:
    estimator = AccurateEstimator.from_snapshots({"member1": ClusterSnapshot()})
    assert estimator.max_available_replicas(MEMBER2, ONE_CPU) is None
    assert estimator.max_available_component_sets(MEMBER2, FLINK) is None
    assert estimator.max_available_replicas(MEMBER1, ONE_CPU) == 0
    assert estimator.max_available_component_sets(MEMBER1, FLINK) == 0
    explained = estimator.explain_replicas(MEMBER1, ONE_CPU)
    assert explained is not None and explained.note == "the cluster has no nodes"


def test_smallest_plugin_answer_wins_and_the_quota_plugin_needs_its_gate() -> None:
    snapshots = {
        "member1": snapshot(node("n1", "8"), resource_quota("team", "3"), resource_quota("other", "1"))
    }
    off = AccurateEstimator.from_snapshots(snapshots)
    on = AccurateEstimator.from_snapshots(snapshots, resource_quota_estimate=True)
    assert off.max_available_replicas(MEMBER1, ONE_CPU) == 8
    assert on.max_available_replicas(MEMBER1, ONE_CPU) == 3  # the requirements' namespace: team
    assert off.max_available_component_sets(MEMBER1, FLINK) == 1  # 8 cpu: one set of 5
    assert on.for_namespace("team").max_available_component_sets(MEMBER1, FLINK) == 0  # 5 cpu per set > 3
    # component sets take the namespace from the estimator (the protocol carries none); "" lists every one
    jobmanager_only = FLINK[:1]
    assert on.for_namespace("team").max_available_component_sets(MEMBER1, jobmanager_only) == 3
    assert on.max_available_component_sets(MEMBER1, jobmanager_only) == 1


def test_explanations_are_plain_data() -> None:
    estimator = AccurateEstimator.from_snapshots(
        {"member1": snapshot(node("n1", "8"), resource_quota("team", "3"))}, resource_quota_estimate=True
    )
    replicas = estimator.explain_replicas(MEMBER1, ONE_CPU)
    sets = estimator.for_namespace("team").explain_component_sets(MEMBER1, FLINK)
    assert replicas is not None and sets is not None
    data = json.loads(json.dumps(replicas.to_dict()))
    assert (data["value"], data["nodeResource"]["value"], data["resourceQuota"]["value"]) == (3, 8, 3)
    sets_data = json.loads(json.dumps(sets.to_dict()))
    assert sets_data["nodeResource"]["stopped"].startswith("set 2:")
    assert sets_data["resourceQuota"]["quotas"][0]["resources"] == [
        {"resource": "cpu", "free": "3", "demand": "5", "allows": 0}
    ]


# -- schedule() with the accurate estimator ---------------------------------------------------------------

AGGREGATED = {
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
}


def _replicas_request(replicas: int) -> ScheduleRequest:
    return ScheduleRequest(
        key=ObjectKey("apps/v1", "Deployment", "team", "web"),
        tie_break_uid="",
        placement=Placement.model_validate(AGGREGATED),
        replicas=replicas,
        replica_requirements=ONE_CPU,
    )


def test_schedule_narrows_the_general_estimate() -> None:
    # member1's summary says 10 cpu free, its nodes say 3 (a busy node it does not show); member2 has no snapshot
    estimator = AccurateEstimator.from_snapshots(
        {
            "member1": snapshot(
                node("n1", "4"),
                {
                    "kind": "Pod",
                    "metadata": {"name": "busy", "namespace": "x"},
                    "spec": {"nodeName": "n1", "containers": [{"resources": {"requests": {"cpu": "1"}}}]},
                },
            )
        }
    )
    fleet = [MEMBER1, MEMBER2]
    general_only = schedule(_replicas_request(14), fleet, gates={})
    narrowed = schedule(_replicas_request(14), fleet, gates={}, estimators=[estimator])
    assert general_only.success and sum(c.replicas for c in general_only.clusters) == 14
    assert not narrowed.success
    estimates = {
        e.cluster: (e.general.value if e.general else None, e.others, e.value)
        for e in narrowed.explanation.attempts[0].estimates
    }
    assert estimates == {"member1": (10, (("accurate", 3),), 3), "member2": (10, (("accurate", None),), 10)}
    fits = schedule(_replicas_request(12), fleet, gates={}, estimators=[estimator])
    assert fits.success
    assert dict(pairs(fits.clusters))["member1"] <= 3 and sum(c.replicas for c in fits.clusters) == 12


def test_component_sets_go_where_the_nodes_can_hold_a_whole_set() -> None:
    # both summaries hold two sets; member1's nodes are too fragmented for the second 2-cpu taskmanager
    estimator = AccurateEstimator.from_snapshots(
        {
            "member1": snapshot(node("small-a", "3"), node("small-b", "1500m")),
            "member2": snapshot(node("big", "16")),
        }
    )
    request = ScheduleRequest(
        key=ObjectKey("flink.apache.org/v1beta1", "FlinkDeployment", "team", "job"),
        tie_break_uid="",
        placement=Placement.model_validate(
            AGGREGATED | {"spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 1, "minGroups": 1}]}
        ),
        replicas=0,
        replica_requirements=None,
        components=FLINK,
    )
    gates = {FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING: True}
    result = schedule(request, [MEMBER1, MEMBER2], gates=gates, estimators=[estimator.for_namespace("team")])
    assert result.success
    assert [c.name for c in result.clusters] == ["member2"]
    estimates = {e.cluster: (e.unit, e.value) for e in result.explanation.attempts[0].estimates}
    assert estimates == {"member1": ("sets", 0), "member2": ("sets", 2)}  # member2: the summary bounds it


def test_max_int32_answers_leave_the_general_estimate() -> None:
    estimator = AccurateEstimator.from_snapshots({"member1": snapshot(node("n1", "4"))})
    nothing = (Component.model_validate({"name": "idle", "replicas": 0}),)
    assert estimator.max_available_component_sets(MEMBER1, nothing) == MAX_INT32
