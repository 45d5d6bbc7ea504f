"""Cluster snapshots: reading ``kubectl get nodes,pods,resourcequotas -A -o yaml`` output, and its errors."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.snapshot import (
    ClusterSnapshot,
    load_cluster_snapshot,
    load_cluster_snapshots,
    merge_snapshots,
    parse_snapshot_document,
)
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.quantity import Quantity

KUBECTL_EXPORT = b"""\
apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    labels:
      kubernetes.io/hostname: worker-b
      topology.kubernetes.io/zone: eu-1b
    name: worker-b
    resourceVersion: "1234"
    uid: 0b0e2c8e-1d5b-4c1a-9d35-1f0c7a2b9e11
  spec:
    podCIDR: 10.244.1.0/24
    taints:
    - effect: NoSchedule
      key: dedicated
      value: gpu
  status:
    allocatable:
      cpu: 3800m
      ephemeral-storage: "95491281146"
      hugepages-2Mi: "0"
      memory: 15Gi
      nvidia.com/gpu: "2"
      pods: "110"
    capacity:
      cpu: "4"
      memory: 16Gi
      pods: "110"
    conditions:
    - type: Ready
      status: "True"
- apiVersion: v1
  kind: Node
  metadata:
    name: worker-a
  spec:
    unschedulable: true
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "20"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: shop
  spec:
    nodeName: worker-b
    containers:
    - name: app
      image: nginx
      resources:
        requests: {cpu: 250m, memory: 256Mi}
        limits: {cpu: "1", memory: 512Mi, nvidia.com/gpu: "1"}
    initContainers:
    - name: init
      resources:
        requests: {cpu: "2"}
    overhead: {cpu: 100m}
  status:
    phase: Running
- apiVersion: v1
  kind: Pod
  metadata:
    name: batch-done
    namespace: shop
  spec:
    nodeName: worker-b
    containers:
    - name: job
      resources:
        requests: {cpu: "3"}
  status:
    phase: Succeeded
- apiVersion: v1
  kind: ResourceQuota
  metadata:
    name: compute
    namespace: shop
  spec:
    hard: {requests.cpu: "10", requests.memory: 20Gi}
    scopeSelector:
      matchExpressions:
      - operator: In
        scopeName: PriorityClass
        values: [high]
    scopes: [NotTerminating]
  status:
    hard: {requests.cpu: "10", requests.memory: 20Gi}
    used: {requests.cpu: 2500m, requests.memory: 4Gi}
kind: List
metadata:
  resourceVersion: ""
"""


def test_kubectl_list_export() -> None:
    snapshot = load_cluster_snapshot({"cluster-snapshots/m1/all.yaml": KUBECTL_EXPORT})
    assert [n.name for n in snapshot.nodes] == ["worker-a", "worker-b"]
    worker_a, worker_b = snapshot.nodes
    assert worker_a.unschedulable and not worker_b.unschedulable
    assert worker_b.labels["topology.kubernetes.io/zone"] == "eu-1b"
    assert [(t.key, t.value, str(t.effect)) for t in worker_b.taints] == [("dedicated", "gpu", "NoSchedule")]
    assert worker_b.allocatable["cpu"] == Quantity.parse("3800m")
    assert worker_b.allocatable["nvidia.com/gpu"] == Quantity.parse("2")
    web, done = sorted(snapshot.pods, key=lambda p: p.name, reverse=True)
    # app 250m + overhead 100m, raised to the init container's 2 cpu first; the gpu limit stands in for a request
    assert web.requests == {
        "cpu": Quantity.parse("2100m"),
        "memory": Quantity.parse("256Mi"),
        "nvidia.com/gpu": Quantity.parse("1"),
    }
    assert web.occupies_node and not done.occupies_node
    (quota,) = snapshot.resource_quotas
    assert (quota.namespace, quota.name, quota.scopes) == ("shop", "compute", ("NotTerminating",))
    assert [(s.scope_name, str(s.operator), s.values) for s in quota.selectors] == [
        ("NotTerminating", "Exists", ()),
        ("PriorityClass", "In", ("high",)),
    ]
    assert quota.used == {"requests.cpu": Quantity.parse("2500m"), "requests.memory": Quantity.parse("4Gi")}


def test_typed_lists_single_objects_and_defaults() -> None:
    nodes = parse_snapshot_document({"kind": "NodeList", "items": [{"metadata": {"name": "n1"}}]})
    pod = parse_snapshot_document(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": "n1"}}
    )
    assert nodes.nodes[0].allocatable == {} and nodes.nodes[0].taints == ()
    assert (pod.pods[0].namespace, pod.pods[0].phase, pod.pods[0].requests) == ("default", "", {})
    merged = merge_snapshots([nodes, pod])
    assert (len(merged.nodes), len(merged.pods)) == (1, 1)


def test_quotas_in_a_namespace_or_everywhere() -> None:
    snapshot = parse_snapshot_document(
        {
            "kind": "ResourceQuotaList",
            "items": [{"metadata": {"name": n, "namespace": ns}} for n, ns in (("a", "x"), ("b", "y"))],
        }
    )
    assert [q.name for q in snapshot.quotas_in("x")] == ["a"]
    assert [q.name for q in snapshot.quotas_in("")] == ["a", "b"]
    assert snapshot.resource_quota("y", "b") is not None and snapshot.resource_quota("y", "a") is None


BAD_DOCUMENTS = [
    ("not-an-object", ["a list"], "document", "must be an object"),
    ("no-kind", {"metadata": {"name": "n"}}, "kind", "is required"),
    ("list-item-without-kind", {"kind": "List", "items": [{"metadata": {"name": "n"}}]}, "items[0].kind", "is required"),
    ("other-kind", {"kind": "List", "items": [{"kind": "Deployment", "apiVersion": "apps/v1"}]}, "items[0].kind", "holds Node, Pod and ResourceQuota objects, not 'Deployment'"),
    ("wrong-api-version", {"kind": "Node", "apiVersion": "v2", "metadata": {"name": "n"}}, "apiVersion", "a Node is apiVersion v1"),
    ("node-without-name", {"kind": "NodeList", "items": [{"metadata": {}}]}, "items[0].metadata.name", "is required"),
    ("bad-allocatable", {"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "four"}}}, "status.allocatable.cpu", "quantities must match"),
    ("allocatable-not-a-map", {"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": ["cpu"]}}, "status.allocatable", "must be an object"),
    ("bad-taint-effect", {"kind": "Node", "metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "Sometimes"}]}}, "spec.taints[0].effect", "Input should be"),
    ("labels-not-strings", {"kind": "Node", "metadata": {"name": "n", "labels": {"a": 1}}}, "metadata.labels.a", "must be a string"),
    ("unschedulable-not-bool", {"kind": "Node", "metadata": {"name": "n"}, "spec": {"unschedulable": "yes"}}, "spec.unschedulable", "must be a boolean"),
    ("bad-pod-request", {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "x"}}}]}}, "spec", "spec.containers[0].resources.requests.cpu"),
    ("bad-scope-operator", {"kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "Matches"}]}}}, "spec.scopeSelector.matchExpressions[0].operator", "is not one of In, NotIn, Exists, DoesNotExist"),
    ("scope-in-without-values", {"kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In"}]}}}, "spec.scopeSelector.matchExpressions[0].values", "must be non-empty"),
    ("bad-used", {"kind": "ResourceQuota", "metadata": {"name": "q"}, "status": {"used": {"cpu": True}}}, "status.used.cpu", "quantity must be a string or a number"),
    ("duplicate-node", {"kind": "NodeList", "items": [{"metadata": {"name": "n"}}, {"metadata": {"name": "n"}}]}, "", "node 'n' appears more than once"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("document", "field", "message"), [b[1:] for b in BAD_DOCUMENTS], ids=[b[0] for b in BAD_DOCUMENTS]
)
def test_malformed_objects_name_the_field(document: Any, field: str, message: str) -> None:
    source = SourceRef("cluster-snapshots/m1/nodes.yaml", 2)
    with pytest.raises(InputError) as caught:
        parse_snapshot_document(document, source)
    assert caught.value.field == field
    assert message in caught.value.message
    if field:
        assert caught.value.source == source


NODE = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
POD = b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\nspec: {nodeName: n1}\n"


def test_repository_layout_one_folder_per_cluster() -> None:
    load = load_cluster_snapshots(
        {
            "cluster-snapshots/m1/nodes.yaml": NODE,
            "cluster-snapshots/m1/more/pods.yml": b"---\n" + POD + b"---\n",
            "cluster-snapshots/m1/README.md": b"not yaml at all: [",
            "cluster-snapshots/m2/nodes.yaml": b"",
            "apps/web.yaml": b"kind: Deployment\n",
        },
        root="cluster-snapshots",
    )
    assert load.diagnostics == ()
    assert sorted(load.snapshots) == ["m1", "m2"]
    assert [p.name for p in load.snapshots["m1"].pods] == ["p"]
    assert load.snapshots["m2"] == ClusterSnapshot()


def test_a_cluster_with_any_problem_gets_no_snapshot() -> None:
    load = load_cluster_snapshots(
        {
            "cluster-snapshots/loose.yaml": NODE,
            "cluster-snapshots/Not_A_Cluster/nodes.yaml": NODE,
            "cluster-snapshots/m1/nodes.yaml": NODE,
            "cluster-snapshots/m1/again.yaml": NODE,
            "cluster-snapshots/m2/nodes.yaml": NODE,
            "cluster-snapshots/m2/broken.yaml": b"kind: Node\nmetadata: {name: [\n",
            "cluster-snapshots/m3/nodes.yaml": NODE
            + b"---\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: lots}}\n",
            "cluster-snapshots/m4/nodes.yaml": NODE,
        },
        root="cluster-snapshots",
    )
    assert sorted(load.snapshots) == ["m4"]
    found = sorted((str(d.source) if d.source else d.subject, d.field) for d in load.diagnostics)
    assert found == [
        ("cluster-snapshots/Not_A_Cluster/nodes.yaml[0]", ""),
        ("cluster-snapshots/loose.yaml[0]", ""),
        ("cluster-snapshots/m1", ""),
        ("cluster-snapshots/m2/broken.yaml[0]", ""),
        ("cluster-snapshots/m3/nodes.yaml[1]", "status.allocatable.cpu"),
    ]
    assert all(d.is_error for d in load.diagnostics)
