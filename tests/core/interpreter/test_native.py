"""Native interpreters: replicas, revise, retain, health, reflect/aggregate status, dependencies."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.interpreter import (
    FailureReason,
    Operation,
    ResourceHealth,
    ResourceInterpreter,
    ResourceInterpretError,
)
from gitops_karmada.model.bindings import AggregatedStatusItem
from tests.core.interpreter.builders import deployment

INTERPRETER = ResourceInterpreter()


def obj(api_version: str, kind: str, *, spec: Any = None, status: Any = None, **meta: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "namespace": "ns", **meta},
    }
    if spec is not None:
        out["spec"] = spec
    if status is not None:
        out["status"] = status
    return out


# -- InterpretReplica / ReviseReplica -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("parallelism", "completions", "replicas"),
    [(None, None, 0), (2, None, 2), (4, 2, 2), (2, 4, 2), (None, 3, 0), (3, 0, 0)],
    ids=[
        "neither",
        "parallelism-only",
        "completions-lower",
        "completions-higher",
        "completions-only",
        "zero-completions",
    ],
)
def test_job_replicas(parallelism: int | None, completions: int | None, replicas: int) -> None:
    spec: dict[str, Any] = {"template": {"spec": {"containers": [{"name": "c"}]}}}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    assert INTERPRETER.get_replicas(obj("batch/v1", "Job", spec=spec)) == (replicas, None)


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet"])
def test_workload_replicas(kind: str) -> None:
    assert INTERPRETER.get_replicas(obj("apps/v1", kind, spec={"replicas": 4})) == (4, None)
    assert INTERPRETER.get_replicas(obj("apps/v1", kind, spec={})) == (0, None)


def test_pod_is_one_replica_with_its_own_requirements() -> None:
    pod = obj("v1", "Pod", spec={"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}}]})
    replicas, requirements = INTERPRETER.get_replicas(pod)
    assert replicas == 1
    assert requirements is not None and str(requirements.resource_request["cpu"]) == "1"


@pytest.mark.parametrize(
    ("api_version", "kind", "spec", "revised_spec"),
    [
        ("apps/v1", "Deployment", {"replicas": 5}, {"replicas": 2}),
        ("apps/v1", "Deployment", {"paused": True}, {"paused": True}),
        ("apps/v1", "ReplicaSet", {"replicas": 5}, {"replicas": 2}),
        ("apps/v1", "StatefulSet", {"replicas": 0}, {"replicas": 2}),
        ("batch/v1", "Job", {"parallelism": 4, "completions": 8}, {"parallelism": 2, "completions": 8}),
        ("batch/v1", "Job", {"completions": 8}, {"completions": 8}),
    ],
    ids=[
        "deployment",
        "deployment-without-replicas",
        "replicaset",
        "statefulset-from-zero",
        "job",
        "job-without-parallelism",
    ],
)
def test_revise_replica(
    api_version: str, kind: str, spec: dict[str, Any], revised_spec: dict[str, Any]
) -> None:
    original = obj(api_version, kind, spec=spec)
    before = copy.deepcopy(original)
    revised = INTERPRETER.revise_replica(original, 2)
    assert revised == {**before, "spec": revised_spec}
    assert original == before


def test_revise_replica_refuses_a_non_integer_field() -> None:
    with pytest.raises(ResourceInterpretError) as raised:
        INTERPRETER.revise_replica(obj("apps/v1", "Deployment", spec={"replicas": "3"}), 2)
    assert raised.value.reason is FailureReason.INVALID_OBJECT
    assert raised.value.interpreter == "native interpreter for apps/v1/Deployment"


def test_malformed_requests_are_an_interpret_error() -> None:
    with pytest.raises(ResourceInterpretError) as raised:
        INTERPRETER.get_replicas(
            deployment(containers=[{"name": "a", "resources": {"requests": {"cpu": "lots"}}}])
        )
    assert raised.value.reason is FailureReason.INVALID_OBJECT
    assert "spec.containers[0].resources.requests.cpu" in raised.value.cause


# -- Retain ----------------------------------------------------------------------------------------------
RETAIN_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "deployment-retains-replicas-with-label",
        obj(
            "apps/v1",
            "Deployment",
            spec={"replicas": 3},
            labels={"resourcetemplate.karmada.io/retain-replicas": "true"},
        ),
        obj("apps/v1", "Deployment", spec={"replicas": 7}),
        {"replicas": 7},
    ),
    (
        "deployment-without-label",
        obj("apps/v1", "Deployment", spec={"replicas": 3}),
        obj("apps/v1", "Deployment", spec={"replicas": 7}),
        {"replicas": 3},
    ),
    (
        "pod-keeps-scheduling-and-volumes",
        obj(
            "v1", "Pod", spec={"containers": [{"name": "a"}, {"name": "b", "volumeMounts": [{"name": "x"}]}]}
        ),
        obj(
            "v1",
            "Pod",
            spec={
                "nodeName": "n1",
                "serviceAccountName": "default",
                "volumes": [{"name": "token"}],
                "containers": [{"name": "a", "volumeMounts": [{"name": "token"}]}, {"name": "b"}],
            },
        ),
        {
            "nodeName": "n1",
            "serviceAccountName": "default",
            "volumes": [{"name": "token"}],
            "containers": [{"name": "a", "volumeMounts": [{"name": "token"}]}, {"name": "b"}],
        },
    ),
    (
        "service-keeps-allocated-ip-and-health-port",
        obj("v1", "Service", spec={"type": "LoadBalancer"}),
        obj("v1", "Service", spec={"clusterIP": "10.0.0.1", "healthCheckNodePort": 30001}),
        {"type": "LoadBalancer", "clusterIP": "10.0.0.1", "healthCheckNodePort": 30001},
    ),
    (
        "service-without-allocations",
        obj("v1", "Service", spec={"clusterIP": "None"}),
        obj("v1", "Service", spec={"clusterIP": "", "healthCheckNodePort": 0}),
        {"clusterIP": "None"},
    ),
    (
        "pvc-keeps-volume-name",
        obj("v1", "PersistentVolumeClaim", spec={"resources": {}}),
        obj("v1", "PersistentVolumeClaim", spec={"volumeName": "pv-1"}),
        {"resources": {}, "volumeName": "pv-1"},
    ),
    (
        "pv-keeps-claim-ref",
        obj("v1", "PersistentVolume", spec={"capacity": {"storage": "1Gi"}}),
        obj("v1", "PersistentVolume", spec={"claimRef": {"name": "c"}}),
        {"capacity": {"storage": "1Gi"}, "claimRef": {"name": "c"}},
    ),
    (
        "job-keeps-generated-selector",
        obj("batch/v1", "Job", spec={"template": {"spec": {}}}),
        obj(
            "batch/v1",
            "Job",
            spec={
                "selector": {"matchLabels": {"uid": "u"}},
                "template": {"metadata": {"labels": {"uid": "u"}}},
            },
        ),
        {
            "selector": {"matchLabels": {"uid": "u"}},
            "template": {"spec": {}, "metadata": {"labels": {"uid": "u"}}},
        },
    ),
]


@pytest.mark.parametrize(
    ("desired", "observed", "expected_spec"), [c[1:] for c in RETAIN_CASES], ids=[c[0] for c in RETAIN_CASES]
)
def test_retain_spec(
    desired: dict[str, Any], observed: dict[str, Any], expected_spec: dict[str, Any]
) -> None:
    before = copy.deepcopy(desired)
    assert INTERPRETER.retain(desired, observed)["spec"] == expected_spec
    assert desired == before


def test_service_account_secrets_are_a_union_by_name() -> None:
    desired = {**obj("v1", "ServiceAccount"), "secrets": [{"name": "a"}], "imagePullSecrets": [{"name": "p"}]}
    observed = {**obj("v1", "ServiceAccount"), "secrets": [{"name": "token-x"}, {"name": "a"}]}
    retained = INTERPRETER.retain(desired, observed)
    assert retained["secrets"] == [{"name": "a"}, {"name": "token-x"}]
    assert retained["imagePullSecrets"] == [{"name": "p"}]


@pytest.mark.parametrize(
    ("secret_type", "kept"),
    [("kubernetes.io/service-account-token", True), ("Opaque", False)],
    ids=["token", "opaque"],
)
def test_service_account_token_secret_keeps_member_data(secret_type: str, kept: bool) -> None:
    desired = {**obj("v1", "Secret"), "type": secret_type}
    observed = {**obj("v1", "Secret"), "type": secret_type, "data": {"token": "dG9r"}}
    assert ("data" in INTERPRETER.retain(desired, observed)) is kept


# -- InterpretHealth -------------------------------------------------------------------------------------
HEALTH_CASES: list[tuple[str, dict[str, Any], bool]] = [
    (
        "deployment-healthy",
        obj(
            "apps/v1",
            "Deployment",
            generation=2,
            spec={"replicas": 2},
            status={"observedGeneration": 2, "updatedReplicas": 2, "availableReplicas": 2},
        ),
        True,
    ),
    (
        "deployment-not-all-updated",
        obj(
            "apps/v1",
            "Deployment",
            generation=2,
            spec={"replicas": 3},
            status={"observedGeneration": 2, "updatedReplicas": 2, "availableReplicas": 2},
        ),
        False,
    ),
    (
        "deployment-updated-not-available",
        obj(
            "apps/v1",
            "Deployment",
            generation=1,
            spec={"replicas": 2},
            status={"observedGeneration": 1, "updatedReplicas": 2, "availableReplicas": 1},
        ),
        False,
    ),
    (
        "statefulset-stale-generation",
        obj("apps/v1", "StatefulSet", generation=2, status={"observedGeneration": 1}),
        False,
    ),
    (
        "replicaset-available",
        obj("apps/v1", "ReplicaSet", spec={"replicas": 2}, status={"availableReplicas": 2}),
        True,
    ),
    (
        "daemonset-rolling",
        obj(
            "apps/v1",
            "DaemonSet",
            status={"desiredNumberScheduled": 3, "updatedNumberScheduled": 2, "numberAvailable": 2},
        ),
        False,
    ),
    ("service-cluster-ip", obj("v1", "Service", spec={"type": "ClusterIP"}), True),
    (
        "service-lb-pending",
        obj("v1", "Service", spec={"type": "LoadBalancer"}, status={"loadBalancer": {}}),
        False,
    ),
    (
        "service-lb-hostname",
        obj(
            "v1",
            "Service",
            spec={"type": "LoadBalancer"},
            status={"loadBalancer": {"ingress": [{"hostname": "h"}]}},
        ),
        True,
    ),
    (
        "ingress-no-address",
        obj("networking.k8s.io/v1", "Ingress", status={"loadBalancer": {"ingress": [{}]}}),
        False,
    ),
    ("pvc-bound", obj("v1", "PersistentVolumeClaim", status={"phase": "Bound"}), True),
    ("pvc-pending", obj("v1", "PersistentVolumeClaim", status={"phase": "Pending"}), False),
    ("pod-succeeded", obj("v1", "Pod", status={"phase": "Succeeded"}), True),
    (
        "pod-running-ready",
        obj("v1", "Pod", status={"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}),
        True,
    ),
    (
        "pod-running-not-ready",
        obj("v1", "Pod", status={"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}),
        False,
    ),
    (
        "pdb-enough",
        obj("policy/v1", "PodDisruptionBudget", status={"currentHealthy": 3, "desiredHealthy": 2}),
        True,
    ),
    (
        "pdb-short",
        obj("policy/v1", "PodDisruptionBudget", status={"currentHealthy": 1, "desiredHealthy": 2}),
        False,
    ),
]


@pytest.mark.parametrize(
    ("member", "healthy"), [c[1:] for c in HEALTH_CASES], ids=[c[0] for c in HEALTH_CASES]
)
def test_health(member: dict[str, Any], healthy: bool) -> None:
    assert INTERPRETER.interpret_health(member) is healthy
    expected = ResourceHealth.HEALTHY if healthy else ResourceHealth.UNHEALTHY
    assert INTERPRETER.work_status_health(member) is expected


def test_health_error_is_unknown_for_the_work_status_controller() -> None:
    member = obj("apps/v1", "Deployment", spec={"replicas": "many"}, status={})
    assert INTERPRETER.work_status_health(member) is ResourceHealth.UNKNOWN


# -- InterpretStatus / AggregateStatus ---------------------------------------------------------------------
def test_reflect_workload_status_carries_generations() -> None:
    member = obj(
        "apps/v1",
        "Deployment",
        generation=3,
        annotations={"resourcetemplate.karmada.io/generation": "7"},
        status={
            "replicas": 2,
            "readyReplicas": 2,
            "observedGeneration": 3,
            "conditions": [{"type": "Available"}],
        },
    )
    assert INTERPRETER.reflect_status(member) == {
        "generation": 3,
        "resourceTemplateGeneration": 7,
        "replicas": 2,
        "readyReplicas": 2,
        "observedGeneration": 3,
    }


def test_reflect_statefulset_omits_observed_generation() -> None:
    member = obj("apps/v1", "StatefulSet", generation=1, status={"replicas": 1, "observedGeneration": 1})
    assert INTERPRETER.reflect_status(member) == {"generation": 1, "replicas": 1}


@pytest.mark.parametrize(
    ("member", "reflected"),
    [
        (obj("apps/v1", "Deployment", status={}), None),
        (obj("apps/v1", "Deployment"), None),
        (obj("v1", "Service", spec={"type": "ClusterIP"}, status={"loadBalancer": {}}), None),
        (
            obj(
                "v1",
                "Service",
                spec={"type": "LoadBalancer"},
                status={"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}},
            ),
            {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}},
        ),
        (
            obj(
                "batch/v1",
                "Job",
                status={"active": 1, "failed": 0, "ready": 1, "startTime": "2024-01-01T00:00:00Z"},
            ),
            {"active": 1, "startTime": "2024-01-01T00:00:00Z"},
        ),
        (obj("example.io/v1", "Widget", status={"any": ["thing"]}), {"any": ["thing"]}),
    ],
    ids=[
        "empty-deployment-status",
        "no-status",
        "cluster-ip-service",
        "load-balancer",
        "job-fields",
        "whole-status",
    ],
)
def test_reflect_status(member: dict[str, Any], reflected: dict[str, Any] | None) -> None:
    assert INTERPRETER.reflect_status(member) == reflected


def _items(*statuses: dict[str, Any] | None) -> list[AggregatedStatusItem]:
    return [
        AggregatedStatusItem(cluster_name=f"m{i}", status=s, applied=s is not None)
        for i, s in enumerate(statuses)
    ]


@pytest.mark.parametrize(
    ("statuses", "observed_generation"),
    [
        (({"generation": 1, "observedGeneration": 1, "resourceTemplateGeneration": 4},) * 2, 4),
        (({"generation": 2, "observedGeneration": 1, "resourceTemplateGeneration": 4},), 3),
        (({"generation": 1, "observedGeneration": 1, "resourceTemplateGeneration": 3},), 3),
        (({"generation": 1, "observedGeneration": 1, "resourceTemplateGeneration": 4}, None), 3),
    ],
    ids=["all-current", "member-not-observed", "member-behind-template", "item-without-status"],
)
def test_deployment_observed_generation(
    statuses: tuple[dict[str, Any] | None, ...], observed_generation: int
) -> None:
    template = obj("apps/v1", "Deployment", generation=4, status={"observedGeneration": 3})
    aggregated = INTERPRETER.aggregate_status(template, _items(*statuses))
    assert aggregated["status"]["observedGeneration"] == observed_generation


def test_deployment_counters_are_summed() -> None:
    template = obj("apps/v1", "Deployment", generation=1, status={"replicas": 9, "unavailableReplicas": 3})
    statuses = (
        {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2},
        {"replicas": 1, "readyReplicas": 0},
    )
    status = INTERPRETER.aggregate_status(template, _items(*statuses))["status"]
    assert {
        k: status.get(k, 0) for k in ("replicas", "readyReplicas", "availableReplicas", "unavailableReplicas")
    } == {
        "replicas": 3,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "unavailableReplicas": 0,
    }


def test_job_aggregation() -> None:
    template = obj("batch/v1", "Job", status={})
    done = {"type": "Complete", "status": "True"}
    statuses = (
        {
            "succeeded": 2,
            "startTime": "2024-01-01T10:00:00Z",
            "completionTime": "2024-01-01T11:00:00Z",
            "conditions": [done],
        },
        {
            "failed": 1,
            "startTime": "2024-01-01T09:00:00Z",
            "conditions": [{"type": "Failed", "status": "True"}],
        },
    )
    status = INTERPRETER.aggregate_status(template, _items(*statuses), now="2024-01-02T00:00:00Z")["status"]
    assert status == {
        "succeeded": 2,
        "failed": 1,
        "startTime": "2024-01-01T09:00:00Z",
        "conditions": [
            {
                "type": "Failed",
                "status": "True",
                "lastProbeTime": "2024-01-02T00:00:00Z",
                "lastTransitionTime": "2024-01-02T00:00:00Z",
                "reason": "JobFailed",
                "message": "Job executed failed in member clusters m1",
            }
        ],
    }
    complete = INTERPRETER.aggregate_status(template, _items(statuses[0], statuses[0]))["status"]
    assert [c["type"] for c in complete["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    assert complete["completionTime"] == "2024-01-01T11:00:00Z"
    finished = obj("batch/v1", "Job", status={"conditions": [done], "succeeded": 5})
    assert INTERPRETER.aggregate_status(finished, _items(statuses[1])) == finished


@pytest.mark.parametrize(
    ("kind", "phases", "expected"),
    [
        ("Pod", ["Running", "Succeeded"], "Running"),
        ("Pod", ["Running", None], "Pending"),
        ("Pod", ["Pending", "Failed"], "Failed"),
        ("Pod", ["Succeeded", "Succeeded"], "Succeeded"),
        ("PersistentVolumeClaim", ["Bound", "Pending"], "Pending"),
        ("PersistentVolumeClaim", ["Pending", "Lost"], "Lost"),
        ("PersistentVolumeClaim", ["Bound", "Bound"], "Bound"),
        ("PersistentVolume", ["Bound", "Available"], "Available"),
        ("PersistentVolume", ["Released", "Bound"], "Bound"),
    ],
    ids=[
        "pod-running",
        "pod-missing-status-is-pending",
        "pod-failed-wins",
        "pod-succeeded",
        "pvc-pending",
        "pvc-lost-wins",
        "pvc-bound",
        "pv-available",
        "pv-bound-over-released",
    ],
)
def test_phase_aggregation(kind: str, phases: list[str | None], expected: str) -> None:
    statuses = [None if p is None else {"phase": p} for p in phases]
    assert (
        INTERPRETER.aggregate_status(obj("v1", kind, status={}), _items(*statuses))["status"]["phase"]
        == expected
    )


def test_pdb_and_load_balancer_aggregation() -> None:
    pdb = INTERPRETER.aggregate_status(
        obj("policy/v1", "PodDisruptionBudget", status={}),
        _items(
            {"currentHealthy": 2, "desiredHealthy": 1, "disruptedPods": {"p": "t"}}, {"currentHealthy": 1}
        ),
    )["status"]
    assert pdb == {
        "currentHealthy": 3,
        "desiredHealthy": 1,
        "expectedPods": 0,
        "disruptionsAllowed": 0,
        "disruptedPods": {"m0/p": "t"},
    }
    service = INTERPRETER.aggregate_status(
        obj("v1", "Service", spec={"type": "LoadBalancer"}, status={}),
        _items(
            {"loadBalancer": {"ingress": [{"ip": "2.2.2.2"}]}},
            {"loadBalancer": {"ingress": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]}},
        ),
    )["status"]
    assert service == {"loadBalancer": {"ingress": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]}}


# -- InterpretDependency ---------------------------------------------------------------------------------
def _names(references: tuple[Any, ...]) -> list[tuple[str, str]]:
    return [(r.kind, r.name) for r in references]


def test_cron_job_dependencies_come_from_the_job_template() -> None:
    cron = obj(
        "batch/v1",
        "CronJob",
        spec={
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": {
                            "serviceAccountName": "default",
                            "volumes": [{"name": "v", "secret": {"secretName": "s"}}],
                        }
                    }
                }
            }
        },
    )
    assert _names(INTERPRETER.get_dependencies(cron)) == [("Secret", "s")]


def test_pod_dependencies_are_grouped_and_sorted() -> None:
    pod = obj(
        "v1",
        "Pod",
        spec={
            "serviceAccountName": "sa",
            "ephemeralContainers": [{"name": "debug", "envFrom": [{"configMapRef": {"name": "zz"}}]}],
            "containers": [
                {"name": "a", "envFrom": [{"configMapRef": {"name": "aa"}}, {"secretRef": {"name": ""}}]}
            ],
            "volumes": [
                {"name": "v", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "w", "azureFile": {"secretName": "az"}},
                {"name": "x", "rbd": {"secretRef": {"name": "ceph"}}},
            ],
        },
    )
    assert _names(INTERPRETER.get_dependencies(pod)) == [
        ("ConfigMap", "aa"),
        ("ConfigMap", "zz"),
        ("Secret", "az"),
        ("Secret", "ceph"),
        ("ServiceAccount", "sa"),
        ("PersistentVolumeClaim", "data"),
    ]


def test_ingress_dependencies_and_an_empty_secret_name() -> None:
    ingress = obj(
        "networking.k8s.io/v1", "Ingress", spec={"tls": [{"secretName": "tls-a"}, {"secretName": "tls-a"}]}
    )
    assert _names(INTERPRETER.get_dependencies(ingress)) == [("Secret", "tls-a")]
    with pytest.raises(ResourceInterpretError) as raised:
        INTERPRETER.get_dependencies(obj("networking.k8s.io/v1", "Ingress", spec={"tls": [{"hosts": ["h"]}]}))
    assert "name or labelSelector is required" in raised.value.cause


def test_service_import_dependencies() -> None:
    references = INTERPRETER.get_dependencies(obj("multicluster.x-k8s.io/v1alpha1", "ServiceImport"))
    assert [r.to_api() for r in references] == [
        {"apiVersion": "v1", "kind": "Service", "namespace": "ns", "name": "derived-x"},
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "namespace": "ns",
            "labelSelector": {"matchLabels": {"kubernetes.io/service-name": "derived-x"}},
        },
    ]


# -- inputs are never mutated -----------------------------------------------------------------------------
_OBJECTS = st.sampled_from(
    [
        deployment(
            replicas=3,
            nodeSelector={"a": "b"},
            containers=[{"name": "c", "resources": {"limits": {"cpu": "1"}}}],
        ),
        obj(
            "batch/v1",
            "Job",
            spec={"parallelism": 2, "completions": 1, "template": {"spec": {"containers": []}}},
        ),
        obj(
            "v1",
            "Pod",
            spec={"containers": [{"name": "c", "envFrom": [{"secretRef": {"name": "s"}}]}]},
            status={"phase": "Running"},
        ),
        obj(
            "apps/v1",
            "StatefulSet",
            generation=2,
            spec={"replicas": 1, "volumeClaimTemplates": [{"metadata": {"name": "d"}}]},
        ),
    ]
)


@settings(max_examples=40, deadline=None)
@given(template=_OBJECTS, replicas=st.integers(min_value=0, max_value=100))
def test_no_operation_mutates_its_input(template: dict[str, Any], replicas: int) -> None:
    before = copy.deepcopy(template)
    api_version, kind = template["apiVersion"], template["kind"]
    enabled = {op for op in Operation if INTERPRETER.hook_enabled(api_version, kind, op)}
    if Operation.INTERPRET_REPLICA in enabled:
        INTERPRETER.get_replicas(template)
    if Operation.REVISE_REPLICA in enabled:
        INTERPRETER.revise_replica(template, replicas)
    if Operation.RETAIN in enabled:
        INTERPRETER.retain(template, template)
    if Operation.INTERPRET_HEALTH in enabled:
        INTERPRETER.interpret_health(template)
    if Operation.AGGREGATE_STATUS in enabled:
        INTERPRETER.aggregate_status(template, _items(template.get("status"), None))
    if Operation.INTERPRET_DEPENDENCY in enabled:
        INTERPRETER.get_dependencies(template)
    INTERPRETER.reflect_status(template)
    assert template == before
