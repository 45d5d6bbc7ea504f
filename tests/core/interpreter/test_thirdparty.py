"""Built-in third-party interpreters beyond the vector file: health scripts and component edge cases."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.interpreter import ResourceInterpreter, ResourceInterpretError
from gitops_karmada.model.quantity import Quantity

INTERPRETER = ResourceInterpreter()


def _obj(api_version: str, kind: str, spec: Any = None, status: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "namespace": "ns"},
    }
    if spec is not None:
        out["spec"] = spec
    if status is not None:
        out["status"] = status
    return out


FLINK, SPARK = (
    ("flink.apache.org/v1beta1", "FlinkDeployment"),
    ("sparkoperator.k8s.io/v1beta2", "SparkApplication"),
)
VOLCANO, MPI = ("batch.volcano.sh/v1alpha1", "Job"), ("kubeflow.org/v2beta1", "MPIJob")
RAY_CLUSTER, RAY_JOB = ("ray.io/v1", "RayCluster"), ("ray.io/v1", "RayJob")
TF, PYTORCH = ("kubeflow.org/v1", "TFJob"), ("kubeflow.org/v1", "PyTorchJob")


def _conditions(**statuses: str) -> dict[str, Any]:
    return {"conditions": [{"type": t, "status": s} for t, s in statuses.items()]}


HEALTH: list[tuple[str, tuple[str, str], Any, bool]] = [
    ("flink-session-ready", FLINK, {"jobManagerDeploymentStatus": "READY", "lifecycleState": "STABLE"}, True),
    (
        "flink-session-deploying",
        FLINK,
        {"jobManagerDeploymentStatus": "DEPLOYING", "lifecycleState": "STABLE"},
        False,
    ),
    ("flink-running", FLINK, {"jobStatus": {"state": "RUNNING"}}, True),
    ("flink-failed-job-is-settled", FLINK, {"jobStatus": {"state": "FAILED"}}, True),
    ("flink-restarting", FLINK, {"jobStatus": {"state": "RESTARTING"}}, True),
    ("flink-created", FLINK, {"jobStatus": {"state": "CREATED"}}, False),
    (
        "flink-created-image-pull-error",
        FLINK,
        {"jobStatus": {"state": "CREATED"}, "error": "Back-off: ImagePullBackOff"},
        True,
    ),
    ("flink-reconciling-other-error", FLINK, {"jobStatus": {"state": "RECONCILING"}, "error": "boom"}, False),
    ("flink-no-status", FLINK, None, False),
    ("spark-completed", SPARK, {"applicationState": {"state": "COMPLETED"}}, True),
    ("spark-running", SPARK, {"applicationState": {"state": "RUNNING"}}, True),
    ("spark-failed", SPARK, {"applicationState": {"state": "FAILED"}}, False),
    ("spark-no-state", SPARK, {}, False),
    ("volcano-running", VOLCANO, {"state": {"phase": "Running"}}, True),
    ("volcano-pending", VOLCANO, {"state": {"phase": "Pending"}}, True),
    ("volcano-failed", VOLCANO, {"state": {"phase": "Failed"}}, False),
    ("volcano-no-phase", VOLCANO, {}, False),
    ("mpijob-no-conditions", MPI, {"conditions": []}, False),
    ("mpijob-running", MPI, _conditions(Created="True", Running="True"), True),
    ("mpijob-failed", MPI, _conditions(Created="True", Failed="True"), False),
    ("raycluster-ready", RAY_CLUSTER, _conditions(HeadPodReady="True", RayClusterProvisioned="True"), True),
    (
        "raycluster-not-provisioned",
        RAY_CLUSTER,
        _conditions(HeadPodReady="True", RayClusterProvisioned="False"),
        False,
    ),
    (
        "raycluster-replica-failure",
        RAY_CLUSTER,
        _conditions(HeadPodReady="True", RayClusterProvisioned="True", RayClusterReplicaFailure="True"),
        False,
    ),
    ("rayjob-running", RAY_JOB, {"jobDeploymentStatus": "Running", "jobStatus": "RUNNING"}, True),
    ("rayjob-succeeded", RAY_JOB, {"jobDeploymentStatus": "Complete", "jobStatus": "SUCCEEDED"}, True),
    (
        "rayjob-complete-but-failed",
        RAY_JOB,
        {"jobDeploymentStatus": "Complete", "jobStatus": "FAILED"},
        False,
    ),
    ("rayjob-stopped", RAY_JOB, {"jobDeploymentStatus": "Running", "jobStatus": "STOPPED"}, False),
    ("rayjob-validation-failed", RAY_JOB, {"jobDeploymentStatus": "ValidationFailed"}, False),
    ("rayjob-initializing", RAY_JOB, {"jobDeploymentStatus": "Initializing"}, False),
]


@pytest.mark.parametrize(("gvk", "status", "healthy"), [h[1:] for h in HEALTH], ids=[h[0] for h in HEALTH])
def test_health_scripts(gvk: tuple[str, str], status: Any, healthy: bool) -> None:
    assert INTERPRETER.interpret_health(_obj(*gvk, status=status)) is healthy


def _components(
    gvk: tuple[str, str], spec: dict[str, Any], interpreter: ResourceInterpreter = INTERPRETER
) -> list[Any]:
    return [
        (c.name, c.replicas, c.to_api().get("replicaRequirements"))
        for c in interpreter.get_components(_obj(*gvk, spec=spec))
    ]


def _template(**requests: str) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "c", "resources": {"requests": requests}}]}}


def test_spark_needs_a_type() -> None:
    with pytest.raises(ResourceInterpretError) as raised:
        INTERPRETER.get_components(_obj(*SPARK, spec={"executor": {"instances": 2}}))
    assert "spec.type is required" in raised.value.cause


@pytest.mark.parametrize(
    ("role", "app", "memory"),
    [
        ({"memory": "2g", "memoryOverhead": "1g"}, {"type": "Scala"}, "3Gi"),
        ({"memory": "4g"}, {"type": "Java", "memoryOverheadFactor": "0.2"}, "4915.2Mi"),
        ({"memory": "512MB"}, {"type": "R"}, "896Mi"),
        ({"memory": "1024k"}, {"type": "Java"}, "394240Ki"),
        ({}, {"type": "Python"}, "1433.6Mi"),
    ],
    ids=["explicit-overhead", "overhead-factor", "non-jvm-minimum-overhead", "kib-unit", "defaults"],
)
def test_spark_memory(role: dict[str, Any], app: dict[str, Any], memory: str) -> None:
    components = INTERPRETER.get_components(_obj(*SPARK, spec={**app, "driver": role}))
    driver = components[0]
    assert driver.name == "driver"
    assert driver.replica_requirements is not None
    assert driver.replica_requirements.resource_request["memory"] == Quantity.parse(memory)


def test_spark_unitless_memory_is_an_error() -> None:
    with pytest.raises(ResourceInterpretError) as raised:
        INTERPRETER.get_components(_obj(*SPARK, spec={"type": "Java", "driver": {"memory": "512"}}))
    assert "invalid memory size '512'" in raised.value.cause


def test_spark_gpu_node_claim_and_priority_class() -> None:
    executor = {
        "cores": 2,
        "instances": 3,
        "gpu": {"name": "nvidia.com/gpu", "quantity": 1},
        "nodeSelector": {"pool": "gpu"},
        "tolerations": [{"key": "gpu", "operator": "Exists"}],
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
        },
        "priorityClassName": "batch",
    }
    driver = {"gpu": {"name": "nvidia.com/gpu", "quantity": 0}}
    _, (name, replicas, requirements) = _components(
        SPARK, {"type": "Java", "driver": driver, "executor": executor}
    )
    assert (name, replicas) == ("executor", 3)
    assert requirements["resourceRequest"] == {"cpu": "2", "memory": "1408Mi", "nvidia.com/gpu": "1"}
    assert requirements["nodeClaim"] == {
        "nodeSelector": {"pool": "gpu"},
        "tolerations": [{"key": "gpu", "operator": "Exists"}],
    }
    assert requirements["priorityClassName"] == "batch"
    ((_, _, driver_requirements), _) = _components(SPARK, {"type": "Java", "driver": driver})
    assert "nvidia.com/gpu" not in driver_requirements["resourceRequest"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, [("jobmanager", 1, None), ("taskmanager", 1, None)]),
        (
            {"jobManager": {"resource": {"cpu": 1}}, "taskManager": {"resource": {"memory": "1Gi"}}},
            # memory went through getResourceQuantity: a number, so a DecimalSI quantity (as in Karmada)
            [
                ("jobmanager", 1, {"resourceRequest": {"cpu": "1"}}),
                ("taskmanager", 1, {"resourceRequest": {"memory": "1073741824"}}),
            ],
        ),
        (
            {"job": {"parallelism": 5}, "flinkConfiguration": {"taskmanager.numberOfTaskSlots": "0"}},
            [("jobmanager", 1, None), ("taskmanager", 1, None)],
        ),
        (
            {
                "job": {"parallelism": 7},
                "flinkConfiguration": {"taskmanager.numberOfTaskSlots": "2"},
                "taskManager": {"replicas": "x"},
            },
            [("jobmanager", 1, None), ("taskmanager", 4, None)],
        ),
    ],
    ids=["nothing-set", "only-present-resources", "zero-slots", "non-numeric-replicas-fall-back"],
)
def test_flink_components_guard_missing_fields(spec: dict[str, Any], expected: list[Any]) -> None:
    assert _components(FLINK, spec) == expected


def test_flink_number_memory_is_a_type_error_like_karmada() -> None:
    with pytest.raises(ResourceInterpretError) as raised:
        INTERPRETER.get_components(_obj(*FLINK, spec={"jobManager": {"resource": {"memory": 1024}}}))
    assert "bad argument #1 to getResourceQuantity (string expected, got number)" in raised.value.cause


def test_mpijob_components_are_sorted_by_key() -> None:
    specs = {
        "Worker": {"replicas": 2, "template": _template(cpu="1")},
        "Launcher": {"template": _template(cpu="100m")},
    }
    assert [name for name, _, _ in _components(MPI, {"mpiReplicaSpecs": specs})] == ["Launcher", "Worker"]


def test_tfjob_and_pytorchjob_take_known_roles_in_order() -> None:
    roles = {key: {"replicas": 1} for key in ("Evaluator", "Master", "Chief", "Worker", "PS", "Other")}
    assert [n for n, _, _ in _components(TF, {"tfReplicaSpecs": roles})] == [
        "ps",
        "worker",
        "chief",
        "master",
        "evaluator",
    ]
    assert [n for n, _, _ in _components(PYTORCH, {"pytorchReplicaSpecs": roles})] == ["master", "worker"]


def test_ray_components() -> None:
    spec = {
        "headGroupSpec": {"rayStartParams": {}},
        "workerGroupSpecs": [{"replicas": 2}, {"groupName": "gpu", "template": _template(cpu="2")}],
    }
    assert _components(RAY_CLUSTER, spec) == [
        ("worker-1", 2, None),
        ("gpu", 0, {"resourceRequest": {"cpu": "2"}}),
    ]
    assert _components(RAY_JOB, {"entrypoint": "python x.py"}) == []
    assert [n for n, _, _ in _components(RAY_JOB, {"rayClusterSpec": spec})] == ["worker-1", "gpu"]


def test_volcano_unnamed_tasks_are_zero_based_and_priority_class_follows_the_gate() -> None:
    template = {"spec": {"priorityClassName": "high", **_template(cpu="1")["spec"]}}
    spec = {"tasks": [{"template": template}, {"name": "", "template": template}]}
    assert [(n, r) for n, r, _ in _components(VOLCANO, spec)] == [("task-0", 1), ("task-1", 1)]
    assert "priorityClassName" not in _components(VOLCANO, spec)[0][2]
    gated = ResourceInterpreter(resource_quota_estimate=True)
    assert _components(VOLCANO, spec, gated)[0][2]["priorityClassName"] == "high"
