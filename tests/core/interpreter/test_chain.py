"""The chain (customizations → built-in third-party → native), customization merging and the offline check."""

from __future__ import annotations

import pickle

import pytest

from gitops_karmada.core.interpreter import (
    DependentObjectReference,
    FailureReason,
    LuaLimits,
    Operation,
    ResourceInterpreter,
    ResourceInterpretError,
    check_customization,
)
from gitops_karmada.model.base import LabelSelector
from tests.core.interpreter.builders import customization, deployment, widget

LIMITS = LuaLimits(max_instructions=2_000_000, max_memory=8 * 1024 * 1024)


def _health(value: str) -> str:
    return f"function InterpretHealth(obj) return {value} end"


def _deps(*refs: str) -> str:
    return "function GetDependencies(obj) return {" + ", ".join(refs) + "} end"


def _ref(kind: str, name: str) -> str:
    return f'{{apiVersion = "v1", kind = "{kind}", namespace = obj.metadata.namespace, name = "{name}"}}'


FLINK = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "metadata": {"name": "f", "namespace": "ns"},
    "spec": {"jobManager": {"replicas": 1}, "taskManager": {"replicas": 2}},
}


# -- merging ------------------------------------------------------------------------------------------
def test_customizations_for_one_target_are_sorted_by_name_and_the_first_script_wins() -> None:
    rics = [
        customization("b-second", healthInterpretation=_health("false")),
        customization("a-first", healthInterpretation=_health("true")),
    ]
    interpreter = ResourceInterpreter(rics, limits=LIMITS)
    assert interpreter.interpret_health(widget()) is True
    assert (
        interpreter.answered_by("example.io/v1", "Widget", Operation.INTERPRET_HEALTH)
        == "customization/a-first"
    )


def test_each_operation_takes_the_first_customization_that_has_a_script_for_it() -> None:
    rics = [
        customization("a", replicaResource="function GetReplicas(obj) return 1, nil end"),
        customization(
            "b",
            replicaResource="function GetReplicas(obj) return 2, nil end",
            healthInterpretation=_health("true"),
        ),
    ]
    interpreter = ResourceInterpreter(rics, limits=LIMITS)
    assert interpreter.get_replicas(widget()) == (1, None)
    assert interpreter.interpret_health(widget()) is True
    assert interpreter.answered_by("example.io/v1", "Widget", Operation.INTERPRET_HEALTH) == "customization/b"


def test_every_dependency_script_runs_and_answers_are_deduplicated_and_sorted() -> None:
    rics = [
        customization("z", dependencyInterpretation=_deps(_ref("Secret", "s2"), _ref("ConfigMap", "c1"))),
        customization("a", dependencyInterpretation=_deps(_ref("ConfigMap", "c1"), _ref("Secret", "s1"))),
    ]
    interpreter = ResourceInterpreter(rics, limits=LIMITS)
    assert interpreter.get_dependencies(widget()) == (
        DependentObjectReference(api_version="v1", kind="ConfigMap", namespace="ns", name="c1"),
        DependentObjectReference(api_version="v1", kind="Secret", namespace="ns", name="s1"),
        DependentObjectReference(api_version="v1", kind="Secret", namespace="ns", name="s2"),
    )
    assert (
        interpreter.answered_by("example.io/v1", "Widget", Operation.INTERPRET_DEPENDENCY)
        == "customization/a,customization/z"
    )


def test_dependencies_by_label_selector() -> None:
    script = (
        'function GetDependencies(obj) return {{apiVersion = "v1", kind = "Secret", namespace = "ns",'
        ' labelSelector = {matchLabels = {app = "x"}}}} end'
    )
    (reference,) = ResourceInterpreter(
        [customization("sel", dependencyInterpretation=script)]
    ).get_dependencies(widget())
    assert reference.name == ""
    assert reference.label_selector == LabelSelector(match_labels={"app": "x"})
    assert hash(reference) == hash(
        DependentObjectReference(
            api_version="v1",
            kind="Secret",
            namespace="ns",
            name="",
            label_selector=LabelSelector(match_labels={"app": "x"}),
        )
    )


@pytest.mark.parametrize(
    ("reference", "fragment"),
    [
        ('{kind = "Secret", name = "s"}', "apiVersion and kind are required"),
        ('{apiVersion = "v1", kind = "Secret", namespace = "ns"}', "name or labelSelector is required"),
    ],
    ids=["no-api-version", "no-name-nor-selector"],
)
def test_invalid_dependencies_fail(reference: str, fragment: str) -> None:
    interpreter = ResourceInterpreter([customization("bad", dependencyInterpretation=_deps(reference))])
    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.get_dependencies(widget())
    assert fragment in raised.value.cause


def test_customizations_for_other_targets_are_not_merged() -> None:
    rics = [
        customization("a", kind="Gadget", healthInterpretation=_health("false")),
        customization("b", healthInterpretation=_health("true")),
    ]
    assert ResourceInterpreter(rics, limits=LIMITS).interpret_health(widget()) is True


# -- chain order ---------------------------------------------------------------------------------------
def test_a_customization_overrides_a_built_in_third_party_interpreter() -> None:
    ric = customization(
        "flink",
        api_version="flink.apache.org/v1beta1",
        kind="FlinkDeployment",
        componentResource='function GetComponents(obj) return {{name = "custom", replicas = 7}} end',
    )
    assert (
        ResourceInterpreter().answered_by(
            "flink.apache.org/v1beta1", "FlinkDeployment", Operation.INTERPRET_COMPONENT
        )
        == "thirdparty"
    )
    interpreter = ResourceInterpreter([ric], limits=LIMITS)
    assert [(c.name, c.replicas) for c in interpreter.get_components(FLINK)] == [("custom", 7)]
    # the other built-in operations of the kind stay with the built-in interpreter
    assert interpreter.get_replicas(FLINK)[0] == 3


def test_a_customization_overrides_a_native_interpreter() -> None:
    ric = customization(
        "deploy",
        api_version="apps/v1",
        kind="Deployment",
        replicaResource="function GetReplicas(obj) return 42, nil end",
    )
    interpreter = ResourceInterpreter([ric], limits=LIMITS)
    assert interpreter.get_replicas(deployment(replicas=2)) == (42, None)
    assert (
        interpreter.answered_by("apps/v1", "Deployment", Operation.INTERPRET_REPLICA)
        == "customization/deploy"
    )
    assert interpreter.answered_by("apps/v1", "Deployment", Operation.REVISE_REPLICA) == "native"
    assert interpreter.revise_replica(deployment(replicas=2), 5)["spec"]["replicas"] == 5


def test_an_error_does_not_fall_through_to_the_next_interpreter() -> None:
    ric = customization(
        "broken",
        api_version="apps/v1",
        kind="Deployment",
        replicaResource='function GetReplicas(obj) error("no") end',
    )
    with pytest.raises(ResourceInterpretError) as raised:
        ResourceInterpreter([ric], limits=LIMITS).get_replicas(deployment(replicas=2))
    assert raised.value.interpreter == 'ResourceInterpreterCustomization "broken"'
    assert raised.value.cause == "broken/replicaResource:1: no"


def test_native_get_components_is_never_implemented() -> None:
    interpreter = ResourceInterpreter()
    assert not interpreter.hook_enabled("apps/v1", "Deployment", Operation.INTERPRET_COMPONENT)
    assert interpreter.answered_by("apps/v1", "Deployment", Operation.INTERPRET_COMPONENT) is None
    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.get_components(deployment())
    assert raised.value.cause == "interface GetComponents not implemented yet"
    assert raised.value.reason is FailureReason.NOT_IMPLEMENTED


def test_unknown_kind_has_no_hooks_except_interpret_status() -> None:
    interpreter = ResourceInterpreter()
    for operation in Operation:
        expected = operation is Operation.INTERPRET_STATUS
        assert interpreter.hook_enabled("example.io/v1", "Widget", operation) is expected, operation
    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.get_replicas(widget())
    assert (
        raised.value.cause
        == 'default InterpretReplica interpreter for "example.io/v1, Kind=Widget" not found'
    )
    assert interpreter.reflect_status({**widget(), "status": {"phase": "Ready"}}) == {"phase": "Ready"}
    assert interpreter.reflect_status(widget()) is None


@pytest.mark.parametrize(
    ("api_version", "kind", "operation", "answered_by"),
    [
        ("apps/v1", "Deployment", Operation.INTERPRET_REPLICA, "native"),
        ("apps/v1", "DaemonSet", Operation.INTERPRET_REPLICA, None),
        ("batch/v1", "Job", Operation.INTERPRET_HEALTH, None),
        ("v1", "Service", Operation.RETAIN, "native"),
        ("apps/v1beta1", "Deployment", Operation.INTERPRET_REPLICA, None),
        ("ray.io/v1", "RayCluster", Operation.INTERPRET_COMPONENT, "thirdparty"),
        ("ray.io/v1", "RayCluster", Operation.INTERPRET_REPLICA, None),
        ("kubeflow.org/v1", "TFJob", Operation.INTERPRET_HEALTH, None),
        ("flink.apache.org/v1beta1", "FlinkDeployment", Operation.INTERPRET_REPLICA, "thirdparty"),
        ("multicluster.x-k8s.io/v1alpha1", "ServiceImport", Operation.INTERPRET_DEPENDENCY, "native"),
    ],
    ids=[
        "deployment-replicas",
        "daemonset-no-replicas",
        "job-no-health",
        "service-retain",
        "other-version-not-registered",
        "raycluster-components",
        "raycluster-no-legacy-replicas",
        "tfjob-no-health",
        "flink-legacy-replicas",
        "serviceimport-dependencies",
    ],
)
def test_answered_by(api_version: str, kind: str, operation: Operation, answered_by: str | None) -> None:
    interpreter = ResourceInterpreter()
    assert interpreter.answered_by(api_version, kind, operation) == answered_by
    assert interpreter.hook_enabled(api_version, kind, operation) is (answered_by is not None)


# -- offline check -------------------------------------------------------------------------------------
def test_check_customization_accepts_good_scripts() -> None:
    ric = customization(
        "good",
        replicaResource='local kube = require("kube")\nfunction GetReplicas(obj) return 1, nil end',
        healthInterpretation=_health("true"),
        dependencyInterpretation=_deps(),
    )
    assert check_customization(ric) == ()


def test_check_customization_reports_each_problem() -> None:
    ric = customization(
        "bad",
        replicaResource="function GetReplicas(obj) return 1 end end",
        healthInterpretation="function Healthy(obj) return true end",
        retention="while true do end",
        statusReflection='os.execute("ls")',
    )
    problems = check_customization(ric, LIMITS)
    assert len(problems) == 4
    assert problems[0] == "retention: instruction limit of 2000000 exceeded"
    assert problems[1].startswith("replicaResource: bad/replicaResource:1:")
    assert problems[2].startswith("statusReflection: bad/statusReflection:1: attempt to call field 'execute'")
    assert problems[3] == "healthInterpretation: the script does not define function InterpretHealth"


def test_interpreter_pickles_as_its_arguments_for_worker_processes() -> None:
    ric = customization("ok", healthInterpretation=_health("obj.spec.ok"))
    interpreter = ResourceInterpreter([ric], resource_quota_estimate=True, limits=LIMITS)
    assert interpreter.interpret_health(widget(ok=True)) is True  # a live Lua runtime inside
    copy = pickle.loads(pickle.dumps(interpreter))
    assert copy.interpret_health(widget(ok=False)) is False
    assert copy.answered_by("example.io/v1", "Widget", Operation.INTERPRET_HEALTH) == "customization/ok"
