"""The node plugin of the accurate estimator: free resources per node, replicas, complete component sets."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.scheduler.accurate import (
    estimate_replicas_on_nodes,
    estimate_sets_on_nodes,
    node_capacities,
)
from gitops_karmada.core.scheduler.estimate import MAX_INT32
from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot, parse_snapshot_document
from gitops_karmada.model.bindings import Component, ReplicaRequirements


def node(name: str, allocatable: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": extra.pop("labels", {})},
        "spec": extra,
        "status": {"allocatable": allocatable},
    }


def pod(name: str, node_name: str, requests: dict[str, str], phase: str = "Running") -> dict[str, Any]:
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "apps"},
        "spec": {"nodeName": node_name, "containers": [{"name": "c", "resources": {"requests": requests}}]},
        "status": {"phase": phase},
    }


def snapshot(*objects: dict[str, Any]) -> ClusterSnapshot:
    return parse_snapshot_document({"apiVersion": "v1", "kind": "List", "items": list(objects)})


def requirements(request: dict[str, str] | None = None, **claim: Any) -> ReplicaRequirements:
    fields: dict[str, Any] = {"resourceRequest": request or {}}
    if claim:
        fields["nodeClaim"] = claim
    return ReplicaRequirements.model_validate(fields)


def component(name: str, replicas: int, request: dict[str, str] | None = None, **claim: Any) -> Component:
    wanted: dict[str, Any] = {"resourceRequest": request or {}}
    if claim:
        wanted["nodeClaim"] = claim
    return Component.model_validate({"name": name, "replicas": replicas, "replicaRequirements": wanted})


SMALL = {"cpu": "4", "memory": "8Gi", "pods": "10"}


def test_free_resources_are_allocatable_minus_running_pods() -> None:
    capacities = node_capacities(
        snapshot(
            node("n1", SMALL | {"example.com/fpga": "2"}),
            pod("a", "n1", {"cpu": "1500m", "memory": "1Gi", "example.com/fpga": "1"}),
            pod("b", "n1", {"cpu": "500m"}, phase="Pending"),
            pod("done", "n1", {"cpu": "2"}, phase="Succeeded"),
            pod("failed", "n1", {"cpu": "2"}, phase="Failed"),
            pod("elsewhere", "n9", {"cpu": "2"}),
            pod("unbound", "", {"cpu": "2"}),
        )
    )
    (n1,) = capacities
    assert n1.running_pods == 2
    assert dict(n1.free) == {
        "cpu": 2000,
        "memory": 7 * 2**30,
        "ephemeral-storage": 0,
        "pods": 8,
        "example.com/fpga": 1,
    }


def test_overcommitted_node_takes_nothing() -> None:
    capacities = node_capacities(
        snapshot(
            node("n1", {"cpu": "1", "memory": "1Gi", "pods": "2"}),
            pod("a", "n1", {"cpu": "2"}),
            pod("b", "n1", {}),
            pod("c", "n1", {}),
        )
    )
    assert capacities[0].free["cpu"] == -1000 and capacities[0].free["pods"] == 0
    assert estimate_replicas_on_nodes(capacities, requirements({"cpu": "100m"})).value == 0


REPLICAS = [
    ("pods-bound-without-request", None, 10 + 20),
    ("cpu-bound", {"cpu": "1"}, 4 + 2),
    ("memory-bound", {"memory": "3Gi"}, 2 + 1),
    ("milli-memory-rounds-up-to-a-byte", {"cpu": "1m", "memory": "1m"}, 10 + 20),
    ("scalar-not-allocatable-allows-0", {"cpu": "1", "nvidia.com/gpu": "1"}, 0 + 2),
    ("ephemeral-storage-not-allocatable", {"ephemeral-storage": "1Gi"}, 0),
    ("unknown-name-ignored", {"cpu": "1", "foo": "5"}, 6),
]  # fmt: skip


@pytest.mark.parametrize(("request_", "expected"), [r[1:] for r in REPLICAS], ids=[r[0] for r in REPLICAS])
def test_replicas_sum_over_nodes(request_: dict[str, str] | None, expected: int) -> None:
    capacities = node_capacities(
        snapshot(
            node("n1", SMALL), node("n2", {"cpu": "2", "memory": "4Gi", "pods": "20", "nvidia.com/gpu": "4"})
        )
    )
    wanted = requirements(request_) if request_ is not None else None
    assert estimate_replicas_on_nodes(capacities, wanted).value == expected


def test_replicas_only_on_nodes_the_claim_accepts() -> None:
    capacities = node_capacities(
        snapshot(
            node("a-tainted", SMALL, taints=[{"key": "gpu", "effect": "NoSchedule"}]),
            node("b-eu", SMALL, labels={"zone": "eu"}),
            node("c-us", SMALL, labels={"zone": "us"}),
            node("d-cordoned", SMALL, labels={"zone": "eu"}, unschedulable=True),
        )
    )
    estimate = estimate_replicas_on_nodes(capacities, requirements({"cpu": "1"}, nodeSelector={"zone": "eu"}))
    assert estimate.value == 4
    assert [(n.node, n.rejected, n.replicas) for n in estimate.nodes] == [
        ("a-tainted", "node(s) didn't match Pod's node affinity/selector", 0),
        ("b-eu", "", 4),
        ("c-us", "node(s) didn't match Pod's node affinity/selector", 0),
        ("d-cordoned", "node(s) were unschedulable", 0),
    ]
    tolerant = estimate_replicas_on_nodes(
        capacities, requirements({"cpu": "1"}, tolerations=[{"key": "gpu", "operator": "Exists"}])
    )
    assert tolerant.value == 12
    assert estimate.nodes[1].to_dict() == {
        "node": "b-eu",
        "free": {"cpu": "4", "memory": "8Gi", "pods": "10"},
        "replicas": 4,
        "boundBy": "cpu",
    }


SETS = [
    # id, nodes (cpu, pods), components (name, replicas, cpu), expected sets
    ("one-node-exact", [("4", "10")], [("a", 1, "1"), ("b", 1, "1")], 2),
    ("set-spans-nodes", [("2", "10"), ("2", "10")], [("a", 3, "1")], 1),
    ("pods-bound", [("100", "3")], [("a", 1, "1"), ("b", 2, "1")], 1),
    ("second-set-fails-midway", [("3", "10"), ("1", "10")], [("big", 1, "2"), ("small", 2, "1")], 1),
    ("first-fit-fragments-nodes", [("2", "10"), ("2", "10")], [("small", 1, "1"), ("big", 1, "2")], 1),
    ("zero-replica-components-skipped", [("2", "10")], [("a", 0, "100"), ("b", 1, "1")], 2),
    ("no-node-room", [("500m", "10")], [("a", 1, "1")], 0),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "components", "expected"), [s[1:] for s in SETS], ids=[s[0] for s in SETS])
def test_component_sets(
    nodes: list[tuple[str, str]], components: list[tuple[str, int, str]], expected: int
) -> None:
    capacities = node_capacities(
        snapshot(
            *(
                node(f"n{i}", {"cpu": cpu, "memory": "1Gi", "pods": pods})
                for i, (cpu, pods) in enumerate(nodes)
            )
        )
    )
    estimate = estimate_sets_on_nodes(capacities, [component(n, r, {"cpu": c}) for n, r, c in components])
    assert estimate.value == expected


def test_each_component_uses_its_own_claim() -> None:
    capacities = node_capacities(
        snapshot(
            node("cpu-1", {"cpu": "8", "memory": "8Gi", "pods": "110"}),
            node(
                "gpu-1",
                {"cpu": "8", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": "2"},
                taints=[{"key": "gpu", "effect": "NoSchedule"}],
            ),
        )
    )
    driver = component("driver", 1, {"cpu": "1"})
    trainer = component(
        "trainer", 1, {"cpu": "1", "nvidia.com/gpu": "1"}, tolerations=[{"key": "gpu", "operator": "Exists"}]
    )
    estimate = estimate_sets_on_nodes(capacities, [driver, trainer])
    assert estimate.value == 2
    placements = {p.component: (p.placed, p.rejected) for p in estimate.components}
    assert placements["driver"] == (
        (("cpu-1", 2),),
        (("gpu-1", "node(s) had untolerated taint {gpu:NoSchedule}"),),
    )
    assert placements["trainer"] == ((("gpu-1", 2),), ())
    assert (
        estimate.stopped
        == "set 3: 1 of 1 trainer replica(s) did not fit (what the partial set took stays taken)"
    )


def test_no_replicas_in_any_component_is_no_constraint() -> None:
    capacities = node_capacities(snapshot(node("n1", SMALL)))
    assert estimate_sets_on_nodes(capacities, [component("a", 0, {"cpu": "1"})]).value == MAX_INT32


@settings(max_examples=60, deadline=None)
@given(
    nodes=st.lists(st.tuples(st.integers(0, 8000), st.integers(0, 12)), min_size=1, max_size=5),
    cpu=st.integers(1, 3000),
    per_set=st.integers(1, 4),
)
def test_one_component_sets_are_the_replica_total_divided(
    nodes: list[tuple[int, int]], cpu: int, per_set: int
) -> None:
    """With one component and no claim, a set may span nodes, so sets = Σ replicas that fit // replicas per set."""
    capacities = node_capacities(
        snapshot(
            *(
                node(f"n{i}", {"cpu": f"{milli}m", "memory": "1Gi", "pods": str(pods)})
                for i, (milli, pods) in enumerate(nodes)
            )
        )
    )
    replicas = estimate_replicas_on_nodes(capacities, requirements({"cpu": f"{cpu}m"})).value
    sets = estimate_sets_on_nodes(capacities, [component("only", per_set, {"cpu": f"{cpu}m"})]).value
    assert sets == replicas // per_set
