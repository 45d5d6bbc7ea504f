"""Issue 35 item 1: WorkloadAffinity scheduling (gate WorkloadAffinity, spec §1.3-§1.7).

The spec's own examples (§1.7), written as repositories: clusters m1, m2, m3; each template picks one
cluster (a spread constraint of one cluster), and without the filters every template would land on ``m1``.
An anchor is pinned elsewhere by its own policy (group identity does not include the policy), so each test
shows the filter moving a template; the run's order (``reconcile.order``) decides who is first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from gitops_karmada.core.incremental.change_scope import ChangedInputs
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import RenderResult, RunMode
from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo
from tests.inprocess import Tree, commit, run

if TYPE_CHECKING:
    from pathlib import Path

NOW = "2026-08-01T00:00:00Z"
ONE_CLUSTER = [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]
GROUPS = {
    "affinity": {"groupByLabelKey": "grp"},
    "antiAffinity": {"groupByLabelKey": "rep"},
}


def _yaml(*docs: Any) -> bytes:
    return yaml.safe_dump_all(docs).encode()


def policy(name: str, apps: list[str], clusters: list[str], namespace: str = "ns") -> dict[str, Any]:
    return pp_doc(
        name,
        namespace,
        [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app} for app in apps],
        placement={
            "clusterAffinity": {"clusterNames": clusters},
            "spreadConstraints": ONE_CLUSTER,
            "workloadAffinity": GROUPS,
        },
    )


def fleet(templates: dict[str, dict[str, str]], pinned: dict[str, str], gate: bool = True) -> Tree:
    """``templates``: name → labels (namespace ``ns``); ``pinned``: name → the one cluster its own policy
    allows; every other template may go to m1, m2 or m3."""
    free = [name for name in templates if name not in pinned]
    docs = [policy(f"pin-{name}", [name], [cluster]) for name, cluster in pinned.items()]
    if free:
        docs.append(policy("free", free, ["m1", "m2", "m3"]))
    return {
        CONFIG_FILE: yaml.safe_dump({"featureGates": {"WorkloadAffinity": gate}}).encode(),
        **{f"inventory/{c}.yaml": _yaml(cluster_doc(c)) for c in ("m1", "m2", "m3")},
        **{
            f"apps/{n}.yaml": _yaml(deployment(n, "ns", replicas=1, labels=labels))
            for n, labels in templates.items()
        },
        "policies.yaml": _yaml(*docs),
    }


def placed(result: RenderResult) -> dict[str, list[str]]:
    return {b.spec.resource.name: [c.name for c in b.spec.clusters] for b in result.bindings}


def test_an_affinity_group_follows_its_placed_member() -> None:
    templates = {"a": {"grp": "x"}, "b": {"grp": "x"}, "c": {"grp": "z"}, "d": {}}
    result = run(fleet(templates, {"a": "m2"}), NOW)
    assert placed(result) == {"a": ["m2"], "b": ["m2"], "c": ["m1"], "d": ["m1"]}
    groups = {b.spec.resource.name: b.spec.workload_affinity_groups for b in result.bindings}
    assert groups["b"] is not None and groups["b"].affinity_group == "grp=x"
    assert groups["d"] is None  # neither label: in no group


def test_without_the_gate_nothing_is_grouped_or_filtered() -> None:
    result = run(fleet({"a": {"grp": "x"}, "b": {"grp": "x"}}, {"a": "m2"}, gate=False), NOW)
    assert placed(result) == {"a": ["m2"], "b": ["m1"]}
    assert all(b.spec.workload_affinity_groups is None for b in result.bindings)


def test_an_anti_affinity_group_spreads_until_no_cluster_is_left() -> None:
    templates = {"p": {"rep": "1"}, "q": {"rep": "1"}, "r": {"rep": "1"}, "s": {"rep": "1"}}
    result = run(fleet(templates, {"p": "m1"}), NOW)
    got = placed(result)
    assert got["p"] == ["m1"]
    assert sorted(got["q"] + got["r"]) == ["m2", "m3"]
    assert got["s"] == []  # the fourth member finds no cluster: unschedulable
    failed = [str(d) for d in result.diagnostics if d.source is not None and d.source.path == "apps/s.yaml"]
    assert any("cluster already has workload with the same anti-affinity group" in d for d in failed), failed


def test_the_affinity_is_an_intersection_of_every_placed_member() -> None:
    """a on [m1, m2] (its policy divides over both), b on [m1]: a new member may use m1 only."""
    docs = [
        pp_doc(
            "pin-a",
            "ns",
            [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "a"}],
            placement={"clusterAffinity": {"clusterNames": ["m1", "m2"]}, "workloadAffinity": GROUPS},
        ),
        policy("pin-b", ["b"], ["m1"]),
        pp_doc(
            "free",
            "ns",
            [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "c"}],
            placement={"clusterAffinity": {"clusterNames": ["m1", "m2", "m3"]}, "workloadAffinity": GROUPS},
        ),
    ]
    tree = fleet({"a": {"grp": "x"}, "b": {"grp": "x"}, "c": {"grp": "x"}}, {})
    tree["policies.yaml"] = _yaml(*docs)
    assert placed(run(tree, NOW)) == {"a": ["m1", "m2"], "b": ["m1"], "c": ["m1"]}


def test_another_namespace_is_another_group() -> None:
    tree = fleet({"a": {"grp": "x"}}, {"a": "m2"})
    tree["apps/e.yaml"] = _yaml(deployment("e", "other", replicas=1, labels={"grp": "x"}))
    tree["policies-other.yaml"] = _yaml(policy("free", ["e"], ["m1", "m2", "m3"], namespace="other"))
    assert placed(run(tree, NOW))["e"] == ["m1"]


def test_a_new_member_in_an_incremental_run_lands_as_in_a_full_run() -> None:
    """The anchor is reused (not redone) in the incremental run: its recorded clusters count."""
    first = fleet({"a": {"grp": "x"}}, {"a": "m2"})
    tree = commit(first, run(first, NOW))
    added = {
        "apps/b.yaml": _yaml(deployment("b", "ns", replicas=1, labels={"grp": "x"})),
        "policies-b.yaml": _yaml(policy("free", ["b"], ["m1", "m2", "m3"])),
    }
    after = {**tree, **added}
    config, _ = load_config(after[CONFIG_FILE])
    changed = ChangedInputs(frozenset(added), load({}, config).inputs)
    incremental = run(after, NOW, changed=changed)
    full = run(after, NOW, mode=RunMode(full=True))
    assert incremental.incremental
    assert commit(after, incremental) == commit(after, full)
    assert placed(full)["b"] == ["m2"]
    # diff's partial run keeps only what the change touched, and still sees the standing anchor
    partial = run(after, NOW, changed=changed, mode=RunMode(partial=True))
    assert "a" not in placed(partial)
    assert placed(partial)["b"] == ["m2"]


def test_explain_names_the_member_that_anchored_or_blocked_a_cluster(tmp_path: Path) -> None:
    templates = {"a": {"grp": "x"}, "b": {"grp": "x"}, "p": {"rep": "1"}, "q": {"rep": "1"}}
    files = {p: c.decode() for p, c in fleet(templates, {"a": "m2", "p": "m1"}).items()}
    repo = FleetRepo.create(tmp_path / "fleet", files)
    repo.cli("reconcile")
    text = repo.cli("explain", "Deployment/ns/b").stdout
    assert (
        "m1  WorkloadAffinity: ResourceBinding with the same affinity group does not target this cluster"
        in text
    )
    assert "(affinity group grp=x: ns/a-deployment not on this cluster)" in text
    assert (
        "m2  fits (affinity group grp=x: already targeted, which always passes; anchored by ns/a-deployment)"
        in text
    )
    assert "  affinityGroup: grp=x" in text
    text = repo.cli("explain", "Deployment/ns/q").stdout
    assert "(anti-affinity group rep=1: ns/p-deployment is on this cluster)" in text
    assert "  antiAffinityGroup: rep=1" in text
    record = repo.load("karmada-state/bindings/ns/deployment.apps/b.yaml")
    assert record["spec"]["workloadAffinityGroups"] == {"affinityGroup": "grp=x"}


def test_the_priority_order_decides_the_anchor() -> None:
    """``z`` may go only to m3, ``a`` anywhere, both new, same group. With PriorityBasedScheduling (v1.19)
    and a PriorityClass on z's policy, z is first and anchors the group on m3, where ``a`` follows; following
    v1.18 (no priority) ``a`` is first by name, anchors on m1, and z finds no cluster."""
    tree = fleet({"a": {"grp": "x"}, "z": {"grp": "x"}}, {"z": "m3"})
    docs = list(yaml.safe_load_all(tree["policies.yaml"]))
    for doc in docs:
        if doc["metadata"]["name"] == "pin-z":
            doc["spec"]["schedulePriority"] = {"priorityClassName": "first"}
    tree["policies.yaml"] = _yaml(*docs)
    first = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "first"},
        "value": 10,
    }
    tree["apps/classes.yaml"] = _yaml(first)
    assert placed(run(tree, NOW)) == {"a": ["m3"], "z": ["m3"]}
    tree[CONFIG_FILE] = yaml.safe_dump(
        {"karmadaVersion": "v1.18", "featureGates": {"WorkloadAffinity": True}}
    ).encode()
    assert placed(run(tree, NOW)) == {"a": ["m1"], "z": []}
