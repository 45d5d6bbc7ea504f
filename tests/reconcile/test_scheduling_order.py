"""Issue 35 items 4 and 5: the run's scheduling order (``reconcile.order``) and what it decides.

The order is schedulePriority first (gate PriorityBasedScheduling, the PriorityClass read from the
repository), then templates with a previous target list, then namespace and binding name. With gate
SchedulingOvercommitProtection what a template is given is deducted before the next one is estimated, so the
order decides who gets scarce capacity; an incremental run and a full run commit the same files.
"""

from __future__ import annotations

from typing import Any

import yaml

from gitops_karmada.core.incremental.change_scope import ChangedInputs
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import RenderResult, RunMode
from gitops_karmada.reconcile.judge import judge
from gitops_karmada.reconcile.order import order
from gitops_karmada.reconcile.prepare import Prepared, prepare
from gitops_karmada.reconcile.scope import scope
from tests.builders import cluster_doc, deployment, pp_doc
from tests.inprocess import Tree, commit, request, run

NOW = "2026-08-01T00:00:00Z"
DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
PLACEMENT = {
    "clusterAffinity": {"clusterNames": ["big", "small"]},
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
}


def _yaml(*docs: Any) -> bytes:
    return yaml.safe_dump_all(docs).encode()


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def fleet(version: str = "v1.19", *, overcommit: bool = True, urgent: str = "urgent") -> Tree:
    """Two clusters with room for 4 and 3 pods; two workloads of 3 replicas each, Divided Aggregated:
    whichever is scheduled first takes ``big``, the other finds 1 pod left there and goes to ``small``."""
    gates = {"SchedulingOvercommitProtection": True} if overcommit else {}
    return {
        CONFIG_FILE: yaml.safe_dump({"karmadaVersion": version, "featureGates": gates}).encode(),
        "inventory/big.yaml": _yaml(cluster_doc("big", allocatable={"pods": "4"})),
        "inventory/small.yaml": _yaml(cluster_doc("small", allocatable={"pods": "3"})),
        "apps/a.yaml": _yaml(deployment("a-app", "shop", replicas=3)),
        "apps/z.yaml": _yaml(deployment("z-app", "shop", replicas=3)),
        "apps/classes.yaml": _yaml(priority_class("urgent", 1000)),
        "policies.yaml": _yaml(
            pp_doc(
                "low",
                "shop",
                [{**DEPLOYMENTS[0], "name": "a-app"}],
                placement=PLACEMENT,
            ),
            pp_doc(
                "high",
                "shop",
                [{**DEPLOYMENTS[0], "name": "z-app"}],
                placement=PLACEMENT,
                schedulePriority={"priorityClassSource": "KubePriorityClass", "priorityClassName": urgent},
            ),
        ),
    }


def placements(result: RenderResult) -> dict[str, dict[str, int]]:
    return {
        b.spec.resource.name: {c.name: c.replicas for c in b.spec.clusters}
        for b in result.bindings
        if b.spec.resource.kind == "Deployment"
    }


def binding(result: RenderResult, name: str) -> Any:
    return next(b for b in result.bindings if b.spec.resource.name == name)


def _prepared(tree: Tree) -> tuple[Prepared, Any]:
    req = request(tree, NOW)
    ground = prepare(req)
    assert isinstance(ground, Prepared)
    return ground, req


def test_the_order_is_priority_then_placed_then_namespace_and_name() -> None:
    ground, req = _prepared(fleet())
    scoped = scope(ground, req)
    ordered = order(ground, scoped, judge(ground, scoped, req))
    names = [t.key.name for t in ordered.templates]
    assert names.index("z-app") < names.index("a-app")  # priority 1000 before none (0)
    assert ordered.priority(("apps", "Deployment", "shop", "z-app")).priority == 1000
    assert ordered.priority(("apps", "Deployment", "shop", "a-app")).priority is None
    # v1.18: PriorityBasedScheduling is off by default, so names decide
    ground, req = _prepared(fleet("v1.18"))
    scoped = scope(ground, req)
    names = [t.key.name for t in order(ground, scoped, judge(ground, scoped, req)).templates]
    assert names.index("a-app") < names.index("z-app")


def test_the_higher_priority_takes_the_scarce_capacity_with_overcommit_protection() -> None:
    result = run(fleet(), NOW)
    assert result.input_ok, result.diagnostics
    assert placements(result) == {"z-app": {"big": 3}, "a-app": {"small": 3}}
    assert binding(result, "z-app").spec.schedule_priority.priority == 1000
    assert binding(result, "a-app").spec.schedule_priority is None


def test_without_priority_the_name_order_decides() -> None:
    result = run(fleet("v1.18"), NOW)
    assert placements(result) == {"a-app": {"big": 3}, "z-app": {"small": 3}}
    assert binding(result, "z-app").spec.schedule_priority is None  # gate off: not recorded


def test_without_overcommit_protection_both_see_the_same_capacity() -> None:
    result = run(fleet(overcommit=False), NOW)
    assert placements(result) == {"a-app": {"big": 3}, "z-app": {"big": 3}}


def test_a_missing_priority_class_fails_the_binding_and_nothing_is_propagated() -> None:
    result = run(fleet(urgent="missing"), NOW)
    assert "z-app" not in placements(result)
    failed = [str(d) for d in result.diagnostics if d.source is not None and d.source.path == "apps/z.yaml"]
    assert any("PriorityClass 'missing'" in d and "not in the repository" in d for d in failed), failed
    assert not any("/z-app.yaml" in path for path in commit(fleet(urgent="missing"), result))


def test_an_incremental_run_commits_what_a_full_run_commits() -> None:
    """A third workload arrives after the first two are placed: incrementally only it is scheduled; the
    full run keeps the first two's results (nothing triggers them), so neither run deducts them again."""
    first = fleet()
    tree = commit(first, run(first, NOW))
    added = {
        "apps/m.yaml": _yaml(deployment("m-app", "shop", replicas=2)),
        "policies-m.yaml": _yaml(
            pp_doc(
                "mid",
                "shop",
                [{**DEPLOYMENTS[0], "name": "m-app"}],
                placement=PLACEMENT,
            )
        ),
    }
    after = {**tree, **added}
    config, _ = load_config(after[CONFIG_FILE])
    changed = ChangedInputs(frozenset(added), load({}, config).inputs)
    incremental = run(after, NOW, changed=changed)
    full = run(after, NOW, mode=RunMode(full=True))
    assert incremental.incremental and not full.incremental
    assert commit(after, incremental) == commit(after, full)
    # the results kept from the first run are in what the clusters report, not deducted again
    assert placements(full)["m-app"] == {"big": 2}


def test_a_priority_class_changed_alone_updates_the_records_that_name_it() -> None:
    first = fleet()
    tree = commit(first, run(first, NOW))
    after = {**tree, "apps/classes.yaml": _yaml(priority_class("urgent", 7))}
    config, _ = load_config(after[CONFIG_FILE])
    changed = ChangedInputs(
        frozenset({"apps/classes.yaml"}),
        load({"apps/classes.yaml": tree["apps/classes.yaml"]}, config).inputs,
    )
    for result in (run(after, NOW, changed=changed), run(after, NOW, mode=RunMode(full=True))):
        assert binding(result, "z-app").spec.schedule_priority.priority == 7


def test_templates_placed_before_come_before_new_ones() -> None:
    """v1.18 (no priority): a new ``b-app`` is scheduled after the placed ``z-app`` although its name is
    earlier, so an anchor placed in an earlier run stays the anchor."""
    first = fleet("v1.18")
    tree = commit(first, run(first, NOW))
    tree["apps/b.yaml"] = _yaml(deployment("b-app", "shop", replicas=1))
    tree["policies-b.yaml"] = _yaml(
        pp_doc("b", "shop", [{**DEPLOYMENTS[0], "name": "b-app"}], placement=PLACEMENT)
    )
    ground, req = _prepared(tree)
    scoped = scope(ground, req)
    names = [t.key.name for t in order(ground, scoped, judge(ground, scoped, req)).templates]
    assert names[-1] == "b-app" and names.index("a-app") < names.index("z-app"), names


def test_the_higher_priority_is_admitted_first_by_a_federated_resource_quota() -> None:
    """A FederatedResourceQuota of 4 CPU in ``shop``, two new workloads of 3 × 1 CPU: the fold admits in
    the scheduling order, so the one with the PriorityClass is admitted and the other refused."""
    tree = fleet(overcommit=False)
    tree[CONFIG_FILE] = yaml.safe_dump({"featureGates": {"FederatedQuotaEnforcement": True}}).encode()
    for name in ("a-app", "z-app"):
        body = deployment(name, "shop", replicas=3, requests={"cpu": "1"})
        tree[f"apps/{name[0]}.yaml"] = _yaml(body)
    tree["inventory/big.yaml"] = _yaml(cluster_doc("big", allocatable={"pods": "40", "cpu": "40"}))
    tree["quota.yaml"] = _yaml(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "FederatedResourceQuota",
            "metadata": {"name": "quota", "namespace": "shop"},
            "spec": {"overall": {"cpu": "4"}},
        }
    )
    result = run(tree, NOW)
    assert placements(result)["z-app"] == {"big": 3}
    refused = [str(d) for d in result.diagnostics if d.source is not None and d.source.path == "apps/a.yaml"]
    assert any("FederatedResourceQuota(shop/quota) exceeded" in d for d in refused), refused


def _nodes(name: str, cpu: str) -> bytes:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"}},
    }
    return _yaml({"apiVersion": "v1", "kind": "List", "items": [node]})


def test_the_accurate_estimator_places_what_earlier_templates_were_given_first() -> None:
    """The summaries promise 40 CPUs everywhere; the nodes hold 4 (big) and 3 (small). z-app (priority)
    takes 3 CPUs on big; with the assumption placed on big's node first, a-app finds 1 there and goes to
    small. Without the gate both see the node empty and go to big."""
    ample = {"cpu": "40", "memory": "64Gi", "pods": "100"}
    tree = fleet()
    tree["inventory/big.yaml"] = _yaml(cluster_doc("big", allocatable=ample))
    tree["inventory/small.yaml"] = _yaml(cluster_doc("small", allocatable=ample))
    tree["cluster-snapshots/big/nodes.yaml"] = _nodes("n1", "4")
    tree["cluster-snapshots/small/nodes.yaml"] = _nodes("n2", "3")
    for name in ("a-app", "z-app"):
        tree[f"apps/{name[0]}.yaml"] = _yaml(deployment(name, "shop", replicas=3, requests={"cpu": "1"}))
    assert placements(run(tree, NOW)) == {"z-app": {"big": 3}, "a-app": {"small": 3}}
    tree[CONFIG_FILE] = yaml.safe_dump({"karmadaVersion": "v1.19"}).encode()
    assert placements(run(tree, NOW)) == {"z-app": {"big": 3}, "a-app": {"big": 3}}
