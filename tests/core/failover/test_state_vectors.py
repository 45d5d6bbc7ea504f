"""tests/vectors/failover.yaml: state_preservation and label_injection, plus the cases the vectors leave out.

State preservation runs ``build_preserved_label_state`` on the vector's status and rules; injection runs
``labels_to_inject`` on the binding spec and checks what ``inject_labels`` makes of the workload labels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.failover.state import (
    StatePreservationError,
    build_preserved_label_state,
    inject_labels,
    labels_to_inject,
)
from gitops_karmada.model.bindings import ResourceBindingSpec
from gitops_karmada.model.policies import StatePreservationRule

VECTORS = yaml.safe_load((Path(__file__).resolve().parents[2] / "vectors" / "failover.yaml").read_text())
TESTED_HERE = ("state_preservation", "label_injection")
RESOURCE = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "namespace": "team",
    "name": "ticker",
}


def _params(section: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in VECTORS[section]]


def _spec(raw: dict[str, Any]) -> ResourceBindingSpec:
    # the vectors give the failover-relevant subset of a spec; the resource reference is irrelevant here
    return ResourceBindingSpec.model_validate({"resource": RESOURCE} | raw)


def _rules(raw: list[dict[str, Any]]) -> list[StatePreservationRule]:
    return [StatePreservationRule.model_validate(rule) for rule in raw]


def test_every_case_of_the_assigned_sections_has_a_test() -> None:
    assert all(VECTORS[section] for section in TESTED_HERE)
    ids = [case["id"] for section in TESTED_HERE for case in VECTORS[section]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", _params("state_preservation"))
def test_state_preservation(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    rules = _rules(given["rules"])
    if expected.get("error"):
        with pytest.raises(StatePreservationError) as raised:
            build_preserved_label_state(rules, given["status"])
        assert expected.get("error_hint", "") in str(raised.value)
    else:
        assert build_preserved_label_state(rules, given["status"]) == expected["labels"]


@pytest.mark.parametrize("case", _params("label_injection"))
def test_label_injection(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    injected = labels_to_inject(
        _spec(given["bindingSpec"]),
        given["targetCluster"],
        target_cluster_count=given["targetClusterCount"],
        gate_on=given.get("featureGates", {}).get("StatefulFailoverInjection", True),
    )
    assert injected == expected["injectedLabels"]
    workload = {
        "apiVersion": RESOURCE["apiVersion"],
        "kind": RESOURCE["kind"],
        "metadata": {"name": "ticker", "labels": dict(given.get("workloadLabels", {}))},
    }
    assert (
        inject_labels(workload, injected)["metadata"]["labels"]
        == given.get("workloadLabels", {}) | expected["injectedLabels"]
    )


# --- beyond the vectors --------------------------------------------------------------------------------

STATUS = {
    "jobStatus": {
        "jobId": "8e9d4b1c0a",
        "state": "RUNNING",
        "checkpointInfo": {"lastCheckpoint": {"timeStamp": 1735689600000}},
    },
    "replicas": 2,
    "ready": True,
    "conditions": [{"type": "Ready", "status": "True"}],
}

EXTRACTION = [
    (
        "several-rules",
        [("jobid", "{.jobStatus.jobId}"), ("state", "{ .jobStatus.state }")],
        {"jobid": "8e9d4b1c0a", "state": "RUNNING"},
    ),
    (
        "number-as-float64",
        [("ts", "{.jobStatus.checkpointInfo.lastCheckpoint.timeStamp}")],
        {"ts": "1.7356896e+12"},
    ),
    ("int-as-float64", [("replicas", "{.replicas}")], {"replicas": "2"}),
    ("bool", [("ready", "{.ready}")], {"ready": "true"}),
    ("literal-text", [("fixed", "restored")], {"fixed": "restored"}),
    ("map-as-json", [("cond", "{.conditions[0]}")], {"cond": '{"status":"True","type":"Ready"}'}),
    ("leading-dollar", [("jobid", "{$.jobStatus.jobId}")], {"jobid": "8e9d4b1c0a"}),
    ("no-rules", [], {}),
]


@pytest.mark.parametrize(
    ("rules", "labels"), [pytest.param(rules, labels, id=name) for name, rules, labels in EXTRACTION]
)
def test_extraction(rules: list[tuple[str, str]], labels: dict[str, str]) -> None:
    parsed = [StatePreservationRule(alias_label_name=alias, json_path=path) for alias, path in rules]
    assert build_preserved_label_state(parsed, STATUS) == labels


EXTRACTION_ERRORS = [
    ("missing-key", "{.jobStatus.jobID}", "jobID is not found"),
    ("missing-nested", "{.jobStatus.savepoint.path}", "savepoint is not found"),
    ("index-out-of-range", "{.conditions[3].type}", "array index out of bounds: index 3, length 1"),
    ("unparsable", "{ %health }", "unrecognized character in action: U+0025 '%'"),
    ("unclosed", "{.jobStatus.jobId", "unclosed action"),
    ("int-literal-vs-float64", "{.conditions[?(@.status==1)].type}", "incompatible types for comparison"),
]


@pytest.mark.parametrize(
    ("path", "why"), [pytest.param(path, why, id=name) for name, path, why in EXTRACTION_ERRORS]
)
def test_extraction_error_names_the_rule_and_the_reason(path: str, why: str) -> None:
    rules = [
        StatePreservationRule(alias_label_name="ok", json_path="{.replicas}"),
        StatePreservationRule(alias_label_name="broken", json_path=path),
    ]
    with pytest.raises(StatePreservationError) as raised:
        build_preserved_label_state(rules, STATUS)
    message = str(raised.value)
    assert "'broken'" in message
    assert repr(path) in message
    assert why in message


def _task(
    purge_mode: str, before: list[str], state: dict[str, str], from_cluster: str = "m1"
) -> dict[str, Any]:
    return {
        "fromCluster": from_cluster,
        "purgeMode": purge_mode,
        "clustersBeforeFailover": before,
        "preservedLabelState": state,
    }


JOB = {"application.karmada.io/failover-jobid": "8e9d4b1c0a"}
INJECTION = [
    ("directly-injects", [_task("Directly", ["m1"], JOB)], "m2", 1, True, JOB),
    ("immediately-alias-injects", [_task("Immediately", ["m1"], JOB)], "m2", 1, True, JOB),
    ("several-labels", [_task("Directly", ["m1"], JOB | {"b": "2"})], "m2", 1, True, JOB | {"b": "2"}),
    ("gate-off", [_task("Directly", ["m1"], JOB)], "m2", 1, False, {}),
    ("two-target-clusters", [_task("Directly", ["m1"], JOB)], "m2", 2, True, {}),
    ("no-tasks", [], "m2", 1, True, {}),
    ("graciously-alias", [_task("Graciously", ["m1"], JOB)], "m2", 1, True, {}),
    ("never", [_task("Never", ["m1"], JOB)], "m2", 1, True, {}),
    ("empty-purge-mode", [_task("", ["m1"], JOB)], "m2", 1, True, {}),
    ("target-ran-before", [_task("Directly", ["m1", "m2"], JOB)], "m2", 1, True, {}),
    ("empty-state", [_task("Directly", ["m1"], {})], "m2", 1, True, {}),
    (
        "last-task-decides-no",
        [_task("Directly", ["m1"], JOB), _task("Gracefully", ["m3"], {"x": "1"}, "m3")],
        "m2",
        1,
        True,
        {},
    ),
    (
        "last-task-decides-yes",
        [_task("Gracefully", ["m1"], {"x": "1"}), _task("Directly", ["m3"], JOB, "m3")],
        "m2",
        1,
        True,
        JOB,
    ),
    (
        "last-task-clusters-only",
        [_task("Directly", ["m2"], {"x": "1"}), _task("Directly", ["m3"], JOB, "m3")],
        "m2",
        1,
        True,
        JOB,
    ),
]


@pytest.mark.parametrize(
    ("tasks", "target", "count", "gate", "labels"),
    [
        pytest.param(tasks, target, count, gate, labels, id=name)
        for name, tasks, target, count, gate, labels in INJECTION
    ],
)
def test_labels_to_inject(
    tasks: list[dict[str, Any]], target: str, count: int, gate: bool, labels: dict[str, str]
) -> None:
    spec = _spec({"clusters": [{"name": target}], "gracefulEvictionTasks": tasks})
    assert labels_to_inject(spec, target, target_cluster_count=count, gate_on=gate) == labels


def test_inject_labels_overwrites_and_leaves_the_input_unchanged() -> None:
    manifest: dict[str, Any] = {
        "kind": "Deployment",
        "metadata": {"name": "w", "labels": {"app": "flink", "k": "stale"}},
        "spec": {"replicas": 1},
    }
    result = inject_labels(manifest, {"k": "fresh", "n": "1"})
    assert result["metadata"]["labels"] == {"app": "flink", "k": "fresh", "n": "1"}
    assert result["metadata"]["name"] == "w"
    assert result["spec"] == {"replicas": 1}
    assert manifest["metadata"]["labels"] == {"app": "flink", "k": "stale"}


@pytest.mark.parametrize(
    ("manifest", "labels"),
    [
        pytest.param(
            {"kind": "Deployment"},
            {"kind": "Deployment", "metadata": {"labels": {"n": "1"}}},
            id="no-metadata",
        ),
        pytest.param(
            {"kind": "Deployment", "metadata": {"name": "w"}},
            {"kind": "Deployment", "metadata": {"name": "w", "labels": {"n": "1"}}},
            id="no-labels",
        ),
        pytest.param(
            {"kind": "Deployment", "metadata": {"labels": None}},
            {"kind": "Deployment", "metadata": {"labels": {"n": "1"}}},
            id="null-labels",
        ),
    ],
)
def test_inject_labels_creates_what_is_missing(manifest: dict[str, Any], labels: dict[str, Any]) -> None:
    assert inject_labels(manifest, {"n": "1"}) == labels


def test_inject_nothing_adds_no_labels_map() -> None:
    manifest = {"kind": "Deployment", "metadata": {"name": "w"}}
    result = inject_labels(manifest, {})
    assert result == manifest
    assert result is not manifest
