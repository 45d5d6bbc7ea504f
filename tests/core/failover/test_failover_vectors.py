"""tests/vectors/failover.yaml: taint eviction, application failover, graceful eviction, ClusterTaintPolicy,
eviction rate and purge mode names (state preservation and injection are in test_state_vectors.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.failover.application import run_application_failover
from gitops_karmada.core.failover.eviction_queue import eviction_pause_seconds
from gitops_karmada.core.failover.graceful import assess_eviction_tasks
from gitops_karmada.core.failover.taints import (
    condition_matches,
    no_execute_decision,
    taint_eviction_task,
)
from gitops_karmada.model.base import Taint, Toleration
from gitops_karmada.model.bindings import (
    AggregatedStatusItem,
    GracefulEvictionTask,
    ResourceBindingSpec,
    TargetCluster,
)
from gitops_karmada.model.policies import FailoverBehavior, PurgeMode
from gitops_karmada.model.purge_modes import canonical_purge_mode, flag_purge_mode
from gitops_karmada.model.taint_policies import MatchCondition

VECTORS = yaml.safe_load((Path(__file__).resolve().parents[2] / "vectors" / "failover.yaml").read_text())
RESOURCE = {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "flink"}


def _params(section: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in VECTORS[section]]


def test_every_section_is_tested() -> None:
    tested = {"state_preservation", "label_injection"} | {
        "taint_eviction",
        "application_failover",
        "graceful_eviction",
        "cluster_taint_policy",
        "eviction_rate",
        "purge_mode_names",
    }
    assert set(VECTORS) - {"meta"} == tested


@pytest.mark.parametrize("case", _params("taint_eviction"))
def test_taint_eviction(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    taints = [Taint.model_validate(t) for t in given["clusterTaints"]]
    tolerations = [Toleration.model_validate(t) for t in given["placementClusterTolerations"]]
    failover = FailoverBehavior.model_validate(given["bindingFailover"]) if given["bindingFailover"] else None
    flags = given["flags"]
    decision = no_execute_decision(taints, tolerations, parse_time(given["now"]))
    evict = flags["enable-no-execute-taint-eviction"] and decision.evict
    assert evict == expected["evict"]
    if expected["evictAfterSeconds"] is None:
        assert decision.evict_after_seconds is None
    else:
        assert decision.evict_after_seconds == expected["evictAfterSeconds"]
    if "purgeMode" in expected:
        task = taint_eviction_task(failover, flags["no-execute-taint-eviction-purge-mode"])
        assert task.purge_mode == expected["purgeMode"]
        if "task" in expected:
            want = dict(expected["task"])
            assert want.pop("fromCluster") == "<cluster>"
            got = task.model_dump(by_alias=True, exclude_defaults=True)
            got.pop("fromCluster", None)
            assert got == want


def _spec(given: dict[str, Any]) -> ResourceBindingSpec:
    return ResourceBindingSpec.model_validate(
        {
            "resource": RESOURCE,
            "propagateDeps": given["propagateDeps"],
            "failover": given["failover"],
            "clusters": given["clusters"],
            "gracefulEvictionTasks": given.get("gracefulEvictionTasks", []),
        }
    )


@pytest.mark.parametrize("case", _params("application_failover"))
def test_application_failover(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    gates = given.get("featureGates", {})
    result = run_application_failover(
        _spec(given),
        [AggregatedStatusItem.model_validate(i) for i in given["aggregatedStatus"]],
        now=parse_time(given["now"]),
        unhealthy_since=given["unhealthySince"],
        health_hook=given["healthHookEnabled"],
        graceful_eviction_gate=gates.get("GracefulEviction", True),
        injection_gate=gates.get("StatefulFailoverInjection", False),
    )
    if "error" in expected:
        assert result.error
        return
    assert result.ignored == expected.get("ignored", False)
    assert list(result.evicted_clusters) == expected["evictClusters"]
    if result.ignored:
        return  # the controller drops its memory of an ignored binding
    assert dict(result.unhealthy_since) == expected["unhealthySince"]
    assert result.requeue_after_seconds == expected["requeueAfterSeconds"]
    if "newClusters" in expected:
        assert [c.model_dump(by_alias=True) for c in result.spec.clusters] == [
            TargetCluster.model_validate(c).model_dump(by_alias=True) for c in expected["newClusters"]
        ]
    if "tasks" in expected:
        appended = result.spec.graceful_eviction_tasks[len(given.get("gracefulEvictionTasks", [])) :]
        assert [t.model_dump(by_alias=True, exclude_defaults=True) for t in appended] == expected["tasks"]


@pytest.mark.parametrize("case", _params("graceful_eviction"))
def test_graceful_eviction(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    assessment = assess_eviction_tasks(
        [GracefulEvictionTask.model_validate(t) for t in given["tasks"]],
        now=parse_time(given["now"]),
        default_timeout_seconds=given["defaultTimeoutSeconds"],
        has_scheduled=given["hasScheduled"],
        schedule_result=[TargetCluster.model_validate(c) for c in given["scheduleResult"]],
        observed=[AggregatedStatusItem.model_validate(i) for i in given["aggregatedStatus"]],
    )
    assert [t.from_cluster for t in assessment.kept] == expected["keptFromClusters"]
    assert list(assessment.evicted_clusters) == expected["evictedClusters"]
    if "nextRetrySeconds" in expected:
        assert assessment.next_retry_seconds == expected["nextRetrySeconds"]
    for cluster, stamp in expected.get("creationTimestampSet", {}).items():
        assert next(t for t in assessment.kept if t.from_cluster == cluster).creation_timestamp == stamp


@pytest.mark.parametrize("case", _params("cluster_taint_policy"))
def test_cluster_taint_policy(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    conditions = {c["type"]: c["status"] for c in given["clusterConditions"]}
    matches = [MatchCondition.model_validate(m) for m in given["matchConditions"]]
    assert condition_matches(conditions, matches) == expected["matches"]


@pytest.mark.parametrize("case", _params("eviction_rate"))
def test_eviction_rate(case: dict[str, Any]) -> None:
    assert (
        eviction_pause_seconds(case["input"]["resourceEvictionRate"])
        == case["expected"]["dynamicDelaySeconds"]
    )


def test_purge_mode_names() -> None:
    names = VECTORS["purge_mode_names"]
    current = names["application_failover_purgeMode"]["v1.15-v1.18"]
    for accepted in current["accepted"]:
        assert PurgeMode(accepted)  # every name of v1.15-v1.18 is accepted
    for old, new in current["aliases"].items():
        assert canonical_purge_mode(old) is canonical_purge_mode(new) is PurgeMode(new)
    assert canonical_purge_mode(None) is PurgeMode(current["default"])
    flag = names["flag --no-execute-taint-eviction-purge-mode"]
    assert flag_purge_mode(flag["default"]) is PurgeMode.GRACEFULLY
    assert {str(flag_purge_mode(v)) for v in flag["values"]} == set(flag["values"])
    assert names["cluster_failover_purgeMode (spec.failover.cluster, added v1.15)"]["default"] == str(
        canonical_purge_mode("")
    )
