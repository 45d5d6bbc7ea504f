"""schedule() end to end on small fleets: filters, capacity, spread, affinity terms, failures, explaining."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.core.scheduler import (
    ClusterIndex,
    ScheduleRequest,
    ScheduleResult,
    schedule,
)
from gitops_karmada.core.scheduler.schedule import SUCCESS_MESSAGE
from gitops_karmada.core.scheduler.webster import is_uid_hash_odd
from gitops_karmada.model.bindings import Component, ReplicaRequirements, TargetCluster
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.policies import Placement
from tests.core.scheduler.builders import cluster, pairs

if TYPE_CHECKING:
    from gitops_karmada.model.clusters import Cluster

DEPLOYMENT = ObjectKey("apps/v1", "Deployment", "default", "web")
CONFIGMAP = ObjectKey("v1", "ConfigMap", "default", "settings")
DYNAMIC = {
    "replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted",
    "weightPreference": {"dynamicWeight": "AvailableReplicas"},
}
AGGREGATED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}


def _summary(cpu: str, pods: str = "110") -> dict[str, Any]:
    return {"resourceSummary": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": pods}}}


def _fleet() -> list[Cluster]:
    return [
        cluster("member1", labels={"env": "prod"}, region="eu", provider="aws", status=_summary("4")),
        cluster("member2", labels={"env": "prod"}, region="eu", provider="gcp", status=_summary("8")),
        cluster("member3", labels={"env": "dev"}, region="us", status=_summary("2")),
        cluster(
            "tainted",
            taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
            status=_summary("64"),
        ),
        cluster(
            "not-ready",
            status=_summary("64") | {"conditions": [{"type": "Ready", "status": "False"}]},
        ),
        cluster("deleting", deleting=True, status=_summary("64")),
    ]


def _request(
    placement: dict[str, Any], replicas: int = 4, cpu: str | None = "1", **extra: Any
) -> ScheduleRequest:
    fields: dict[str, Any] = {
        "key": DEPLOYMENT,
        "tie_break_uid": "",
        "placement": Placement.model_validate(placement),
        "replicas": replicas,
        "replica_requirements": None
        if cpu is None
        else ReplicaRequirements.model_validate({"resourceRequest": {"cpu": cpu}}),
    }
    fields.update(extra)
    return ScheduleRequest(**fields)


def _run(request: ScheduleRequest, clusters: list[Cluster] | None = None, **kwargs: Any) -> ScheduleResult:
    return schedule(
        request, _fleet() if clusters is None else clusters, gates=kwargs.pop("gates", {}), **kwargs
    )


def test_dynamic_weight_over_the_fitting_clusters() -> None:
    result = _run(_request({"replicaScheduling": DYNAMIC}, replicas=7))
    assert (
        result.success
        and result.condition_reason == "Success"
        and result.condition_message == SUCCESS_MESSAGE
    )
    assert sorted(pairs(result.clusters)) == [("member1", 2), ("member2", 4), ("member3", 1)]
    verdicts = {v.cluster: v for v in result.explanation.attempts[0].verdicts}
    assert verdicts["tainted"].reason == "cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}"
    assert (
        verdicts["not-ready"].reason
        == "cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}"
    )
    assert verdicts["deleting"].skipped


def test_tolerations_admit_tainted_clusters() -> None:
    placement = {
        "clusterAffinity": {"clusterNames": ["tainted", "not-ready"]},
        "clusterTolerations": [
            {"key": "dedicated", "operator": "Exists"},
            {"key": "cluster.karmada.io/not-ready", "operator": "Exists"},
        ],
        "replicaScheduling": DYNAMIC,
    }
    result = _run(_request(placement, replicas=2))
    assert sorted(pairs(result.clusters)) == [("not-ready", 1), ("tainted", 1)]


def test_nothing_fits_keeps_the_previous_clusters_and_reports_the_histogram() -> None:
    previous = (TargetCluster(name="member1", replicas=4),)
    placement = {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "staging"}}}}
    result = _run(_request(placement, previous_clusters=previous, evicted_clusters=frozenset({"member1"})))
    assert not result.success
    assert result.clusters == previous
    assert result.condition_reason == "NoClusterFit"
    assert result.condition_message == (
        "0/6 clusters are available: "
        "1 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}, "
        "1 cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}, "
        "3 cluster(s) did not match the placement cluster affinity constraint."
    )
    assert result.explanation.kept_previous


def test_capacity_shortage_is_unschedulable() -> None:
    result = _run(
        _request({"clusterAffinity": {"clusterNames": ["member3"]}, "replicaScheduling": DYNAMIC}, replicas=3)
    )
    assert (result.success, result.condition_reason) == (False, "Unschedulable")
    assert (
        result.condition_message
        == "failed to assign replicas: Clusters available replicas 2 are not enough to schedule."
    )


def test_pod_slots_bound_capacity() -> None:
    clusters = [cluster("small", status=_summary("64", pods="3")), cluster("big", status=_summary("1"))]
    result = _run(_request({"replicaScheduling": DYNAMIC}, replicas=4, cpu="100m"), clusters)
    assert sorted(pairs(result.clusters)) == [("big", 3), ("small", 1)]
    capacity = {e.cluster: e for e in result.explanation.attempts[0].estimates}
    assert (capacity["small"].value, capacity["small"].general and capacity["small"].general.bound) == (
        3,
        "pods",
    )


def test_aggregated_scale_up_stays_on_the_cluster_already_running_replicas() -> None:
    previous = (TargetCluster(name="member3", replicas=1),)
    placement = {
        "replicaScheduling": AGGREGATED,
        "spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 2}],
    }
    result = _run(_request(placement, replicas=3, previous_clusters=previous))
    candidates = result.explanation.attempts[0].candidates
    assert (candidates[0].name, candidates[0].score, candidates[0].available) == ("member3", 100, 3)
    assert pairs(result.clusters) == [("member3", 3)]


def test_static_weight_is_not_limited_by_capacity_or_spread() -> None:
    placement = {
        "spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 1}],
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": ["member1"]}, "weight": 2},
                    {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "weight": 1},
                ]
            },
        },
    }
    result = _run(_request(placement, replicas=30))
    assert pairs(result.clusters) == [("member1", 20), ("member2", 10)]


def test_region_spread_end_to_end() -> None:
    placement = {
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
            {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2},
        ],
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    result = _run(_request(placement, replicas=2))
    assert sorted(pairs(result.clusters)) == [("member2", 2), ("member3", 2)] or sorted(
        pairs(result.clusters)
    ) == [
        ("member1", 2),
        ("member3", 2),
    ]
    assert result.explanation.attempts[0].selection is not None
    assert result.explanation.attempts[0].selection.chosen_regions == ("eu", "us")


def test_spread_errors_are_scheduler_errors() -> None:
    placement = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 9, "maxGroups": 9}]}
    result = _run(_request(placement))
    assert (result.condition_reason, result.condition_message) == (
        "SchedulerError",
        "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups",
    )


def test_max_groups_zero_with_duplicated_selects_nothing() -> None:
    result = _run(_request({"spreadConstraints": [{"spreadByField": "cluster"}]}))
    assert (result.condition_reason, result.condition_message) == (
        "SchedulerError",
        "failed to assign replicas: no clusters available to schedule",
    )


def test_non_workloads_go_everywhere_that_fits_without_estimation() -> None:
    request = _request({}, replicas=0, cpu=None, key=CONFIGMAP)
    result = _run(request)
    assert pairs(result.clusters) == [("member2", 0), ("member1", 0), ("member3", 0)] or {
        c.name for c in result.clusters
    } == {
        "member1",
        "member2",
        "member3",
    }
    assert all(
        e.note == "not a workload: capacity not estimated" for e in result.explanation.attempts[0].estimates
    )


def test_empty_workload_propagation_lists_selected_clusters_with_zero() -> None:
    request = _request({"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}, replicas=0)
    assert _run(request).clusters == ()
    propagated = _run(request, enable_empty_workload_propagation=True)
    assert sorted(pairs(propagated.clusters)) == [("member1", 0), ("member2", 0), ("member3", 0)]


def test_api_enablement_and_eviction() -> None:
    clusters = [
        cluster(
            "no-api",
            status={
                "apiEnablements": [{"groupVersion": "v1", "resources": [{"name": "pods", "kind": "Pod"}]}]
            },
        ),
        cluster("evicted"),
        cluster("ok"),
    ]
    result = _run(_request({}, cpu=None, evicted_clusters=frozenset({"evicted"})), clusters)
    assert pairs(result.clusters) == [("ok", 4)]
    reasons = {v.cluster: v.reason for v in result.explanation.attempts[0].verdicts}
    assert reasons == {
        "no-api": "cluster(s) did not have the API resource",
        "evicted": "cluster(s) is in the process of eviction",
        "ok": "",
    }


TERMS = {
    "clusterAffinities": [
        {"affinityName": "staging", "labelSelector": {"matchLabels": {"env": "staging"}}},
        {"affinityName": "dev", "clusterNames": ["member3"]},
        {"affinityName": "prod", "labelSelector": {"matchLabels": {"env": "prod"}}},
    ],
    "replicaScheduling": DYNAMIC,
}


@pytest.mark.parametrize(
    ("replicas", "observed", "reschedule", "success", "new_name", "tried", "clusters"),
    [
        (2, "", False, True, "dev", ["staging", "dev"], [("member3", 2)]),
        (5, "", False, True, "prod", ["staging", "dev", "prod"], [("member1", 2), ("member2", 3)]),
        (2, "prod", False, True, "prod", ["prod"], [("member1", 1), ("member2", 1)]),
        (2, "prod", True, True, "dev", ["staging", "dev"], [("member3", 2)]),
        (50, "dev", False, False, "dev", ["dev", "prod"], [("member9", 1)]),
    ],
    ids=[
        "falls-back-to-second",
        "falls-back-to-third",
        "starts-at-observed",
        "reschedule-restarts",
        "all-fail",
    ],
)
def test_cluster_affinity_terms(
    replicas: int,
    observed: str,
    reschedule: bool,
    success: bool,
    new_name: str,
    tried: list[str],
    clusters: list[tuple[str, int]],
) -> None:
    previous = (TargetCluster(name="member9", replicas=1),)
    request = _request(
        TERMS,
        replicas=replicas,
        observed_affinity_name=observed,
        reschedule=reschedule,
        previous_clusters=previous,
    )
    result = _run(request)
    assert result.success is success
    assert result.observed_affinity_name == new_name
    assert [a.affinity_term for a in result.explanation.attempts] == tried
    assert sorted(pairs(result.clusters)) == clusters


def test_all_terms_failing_reports_the_first_error() -> None:
    result = _run(_request(TERMS, replicas=50, observed_affinity_name="dev"))
    assert result.condition_reason == "Unschedulable"
    assert (
        result.condition_message
        == "failed to assign replicas: Clusters available replicas 2 are not enough to schedule."
    )


def test_overflow_affinities_fill_the_primary_first() -> None:
    placement = {
        "clusterAffinities": [
            {
                "affinityName": "home",
                "clusterNames": ["member3"],
                "overflowAffinities": [{"affinityName": "burst", "clusterNames": ["member2"]}],
            }
        ],
        "replicaScheduling": DYNAMIC,
    }
    result = _run(_request(placement, replicas=5, observed_affinity_name="home"))
    assert pairs(result.clusters) == [("member3", 2), ("member2", 3)]
    division = result.explanation.attempts[0].division
    assert division is not None and [t.order for t in division.tiers] == [0, 1]


class FixedEstimator:
    """An accurate estimator stand-in: fixed answers per cluster, None = no answer."""

    name = "fixed"

    def __init__(self, answers: dict[str, int | None]) -> None:
        self.answers = answers

    def max_available_replicas(
        self, cluster: Cluster, requirements: ReplicaRequirements | None
    ) -> int | None:
        return self.answers.get(cluster.name)

    def max_available_component_sets(self, cluster: Cluster, components: Any) -> int | None:
        return self.answers.get(cluster.name)


def test_extra_estimators_lower_capacity_and_no_answer_is_ignored() -> None:
    estimator = FixedEstimator({"member1": 1, "member2": None})
    result = _run(_request({"replicaScheduling": DYNAMIC}, replicas=7), estimators=[estimator])
    capacity = {e.cluster: (e.value, e.others) for e in result.explanation.attempts[0].estimates}
    assert capacity["member1"] == (1, (("fixed", 1),))
    assert capacity["member2"] == (8, (("fixed", None),))


def _flink(placement: dict[str, Any]) -> ScheduleRequest:
    components = (
        Component.model_validate(
            {"name": "jobmanager", "replicas": 1, "replicaRequirements": {"resourceRequest": {"cpu": "1"}}}
        ),
        Component.model_validate(
            {"name": "taskmanager", "replicas": 2, "replicaRequirements": {"resourceRequest": {"cpu": "2"}}}
        ),
    )
    return ScheduleRequest(
        key=ObjectKey("flink.apache.org/v1beta1", "FlinkDeployment", "default", "job"),
        tie_break_uid="",
        placement=Placement.model_validate(placement),
        replicas=0,
        replica_requirements=None,
        components=components,
    )


SINGLE_CLUSTER = [{"spreadByField": "cluster", "maxGroups": 1}]
GATE = {FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING: True}


def test_component_sets_go_to_one_cluster_that_can_hold_a_set() -> None:
    clusters = [
        cluster("full", labels={"a": "b"}, status=_summary("2")),
        cluster("roomy", status=_summary("5")),
    ]
    previous = (TargetCluster(name="full"),)
    request = _flink({"spreadConstraints": SINGLE_CLUSTER, "replicaScheduling": AGGREGATED})
    result = schedule(
        ScheduleRequest(
            **{
                **{f: getattr(request, f) for f in request.__dataclass_fields__},
                "previous_clusters": previous,
            }
        ),
        clusters,
        gates=GATE,
    )
    assert [c.name for c in result.clusters] == ["roomy"]
    assert [(c.name, c.replicas) for c in result.clusters[0].components] == [
        ("jobmanager", 1),
        ("taskmanager", 2),
    ]
    estimates = {e.cluster: (e.value, e.unit) for e in result.explanation.attempts[0].estimates}
    assert estimates == {"full": (0, "sets"), "roomy": (1, "sets")}


def test_duplicated_component_sets_ignore_capacity() -> None:
    clusters = [cluster("full", status=_summary("2")), cluster("roomy", status=_summary("5"))]
    previous = (TargetCluster(name="full"),)
    request = _flink({"spreadConstraints": SINGLE_CLUSTER})
    request = ScheduleRequest(
        **{**{f: getattr(request, f) for f in request.__dataclass_fields__}, "previous_clusters": previous}
    )
    assert [c.name for c in schedule(request, clusters, gates=GATE).clusters] == ["full"]


def test_component_sets_without_the_gate_go_to_every_cluster() -> None:
    clusters = [cluster("full", status=_summary("2")), cluster("roomy", status=_summary("5"))]
    result = schedule(_flink({}), clusters, gates={})
    assert sorted(c.name for c in result.clusters) == ["full", "roomy"]


def test_a_cluster_index_gives_the_same_answers_as_the_list() -> None:
    index = ClusterIndex(_fleet())
    for replicas in (1, 5, 9):
        request = _request({"replicaScheduling": DYNAMIC}, replicas=replicas)
        assert schedule(request, index, gates={}).clusters == _run(request).clusters


def test_duplicate_cluster_names_are_rejected() -> None:
    with pytest.raises(Exception, match="defined more than once"):
        ClusterIndex([cluster("a"), cluster("a")])


def test_explanation_is_json_ready_and_readable() -> None:
    result = _run(
        _request(
            {"replicaScheduling": DYNAMIC}, replicas=7, tie_break_uid="d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
        )
    )
    data = result.explanation.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["template", "replicas", "outcome", "clusters", "attempts"]
    attempt = data["attempts"][0]  # type: ignore[index]
    assert [f["cluster"] for f in attempt["filters"]] == [
        "deleting",
        "member1",
        "member2",
        "member3",
        "not-ready",
        "tainted",
    ]
    seats = attempt["division"]["seats"]
    assert [s["seat"] for s in seats] == list(range(1, 8))
    assert seats[0] == {"seat": 1, "cluster": "member2", "priority": "8/1"}
    text = result.explanation.to_text()
    assert (
        text.splitlines()[0]
        == "Deployment.apps/default/web: Success - Binding has been scheduled successfully."
    )
    for fragment in (
        "filters: 3 of 6 clusters fit",
        "deleting   skipped: being deleted",
        "not-ready  TaintToleration",
        "TaintToleration: cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}",
        "division: DynamicWeight, Steady, scale up (0 -> 7 replicas)",
        "seat   1: member2 at 8/1",
        "cpu  8  /  1  = 8000/1000 milli  -> 8",
    ):
        assert fragment in text


def test_explanation_of_a_tie_names_the_rule() -> None:
    clusters = [cluster("a", status=_summary("1")), cluster("b", status=_summary("1"))]
    odd = _run(
        _request(
            {"replicaScheduling": DYNAMIC}, replicas=1, tie_break_uid="d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
        ),
        clusters,
    )
    assert pairs(odd.clusters) == [("b", 1)]
    assert "tie with a: name descending (FNV-1a-32 of the template UID is odd)" in odd.explanation.to_text()


def test_failed_schedules_are_explained_term_by_term() -> None:
    previous = (TargetCluster(name="member9", replicas=1),)
    result = _run(_request(TERMS, replicas=50, observed_affinity_name="dev", previous_clusters=previous))
    text = result.explanation.to_text()
    assert "-> member9=1 (previous result kept)" in text
    assert (
        "clusterAffinities: starting from the observed term 'dev' (earlier terms 'staging' are not retried)"
        in text
    )
    assert "attempt 1 (affinity term 'dev'): Unschedulable" in text
    assert "attempt 2 (affinity term 'prod'): Unschedulable" in text
    data = result.explanation.to_dict()
    assert data["keptPreviousClusters"] is True
    attempts = data["attempts"]
    assert isinstance(attempts, list)
    assert attempts[0]["division"]["weights"] == [
        {"cluster": "member3", "weight": 2, "source": "allocatable replicas (scale up)"}
    ]


def test_the_templates_of_one_policy_share_its_filter_verdicts() -> None:
    """Per policy, not per template: requests with the policy's placement object, the same kind and the same
    previous and evicted clusters reuse the verdicts; any of those different filters again, and every
    answer equals what a fresh index gives."""
    index = ClusterIndex(_fleet())
    placement = Placement.model_validate(
        {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}
    )

    def on(shared_placement: Placement, **extra: Any) -> ScheduleRequest:
        return replace(_request({}, **extra), placement=shared_placement)

    def verdicts(request: ScheduleRequest) -> tuple[Any, ...]:
        shared = schedule(request, index, gates={})
        alone = schedule(request, _fleet(), gates={})
        assert shared == alone
        return shared.explanation.attempts[0].verdicts

    first = verdicts(on(placement))
    assert verdicts(on(placement, replicas=9, key=replace(DEPLOYMENT, name="api"))) is first
    # an equal placement in another object (another policy) filters again, unless the whole attempt is shared
    assert verdicts(on(Placement.model_validate(placement.model_dump()), replicas=7)) is not first
    assert verdicts(on(placement, key=CONFIGMAP, replicas=0, cpu=None)) is not first
    moved = verdicts(on(placement, previous_clusters=(TargetCluster(name="member3", replicas=1),)))
    assert moved is not first
    evicted = verdicts(on(placement, evicted_clusters=frozenset({"member1"})))
    assert evicted is not first and "member1" in {v.cluster for v in evicted if not v.fits}


def test_requests_that_ask_the_same_of_the_fleet_share_one_attempt() -> None:
    """Content, not identity: another template, another policy object with an equal placement, a UID of the
    same hash parity give the very same attempt; anything an attempt reads makes a new one; every answer
    equals what a fresh index gives."""
    index = ClusterIndex(_fleet())
    dynamic = {"replicaScheduling": DYNAMIC}
    even, odd = "", "b"  # FNV-1a-32 of "b" is odd: Webster breaks ties by name descending
    assert is_uid_hash_odd(odd) and not is_uid_hash_odd(even)

    def attempt(request: ScheduleRequest, gates: dict[FeatureGate, bool] | None = None, **kwargs: Any) -> Any:
        shared = schedule(request, index, gates=gates or {}, **kwargs)
        assert shared == schedule(request, _fleet(), gates=gates or {}, **kwargs)
        return shared.explanation.attempts[0]

    first = attempt(_request(dynamic, replicas=3))
    assert attempt(_request(dynamic, replicas=3, key=replace(DEPLOYMENT, name="api"))) is first
    assert attempt(_request(dynamic, replicas=3, tie_break_uid="a")) is first
    different = [
        _request(dynamic, replicas=4),
        _request(dynamic, replicas=3, tie_break_uid=odd),
        _request(dynamic, replicas=3, cpu="2"),
        _request(
            dynamic,
            replicas=3,
            replica_requirements=ReplicaRequirements.model_validate(
                {"resourceRequest": {"cpu": "1"}, "nodeClaim": {"nodeSelector": {"disk": "ssd"}}}
            ),
        ),
        _request(dynamic, replicas=3, previous_clusters=(TargetCluster(name="member1", replicas=3),)),
        _request(dynamic, replicas=3, reschedule=True),
        _request(dynamic, replicas=3, evicted_clusters=frozenset({"member2"})),
        _request(dynamic, replicas=3, key=replace(DEPLOYMENT, kind="StatefulSet")),
        _request({"replicaScheduling": AGGREGATED}, replicas=3),
    ]
    seen = [attempt(request) for request in different]
    assert all(a is not first for a in seen) and len({id(a) for a in seen}) == len(seen)
    with_estimator = attempt(_request(dynamic, replicas=3), estimators=[FixedEstimator({"member1": 1})])
    assert with_estimator is not first
    gated = attempt(
        _request(dynamic, replicas=3), gates={FeatureGate.CUSTOMIZED_CLUSTER_RESOURCE_MODELING: False}
    )
    assert gated is not first
