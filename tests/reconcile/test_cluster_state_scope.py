"""A cluster's state concerns the templates it can hold (``core.incremental.fingerprint``): a status change of
one cluster redoes the templates whose policy can select it, that it runs or reports, and reuses the rest."""

from __future__ import annotations

from typing import Any

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.observed.fold import ObservedStatus
from gitops_karmada.model.status import ClusterStatusSnapshot
from tests.builders import cluster_doc, deployment, pp_doc
from tests.inprocess import Tree, commit, run

NOW = "2026-01-02T03:04:05Z"
LATER = "2026-01-02T03:05:05Z"
DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]


def _yaml(*bodies: dict[str, Any]) -> bytes:
    return dump_yaml_documents(list(bodies)).encode()


def _fleet() -> Tree:
    """``east`` on m1 by name, ``west`` on m2 by label, ``everywhere`` with no affinity."""
    west = {"labelSelector": {"matchLabels": {"side": "west"}}}
    return {
        "inventory.yaml": _yaml(
            cluster_doc("m1", labels={"side": "east"}), cluster_doc("m2", labels={"side": "west"})
        ),
        "policies.yaml": _yaml(
            pp_doc("east", "east", DEPLOYMENTS, placement={"clusterAffinity": {"clusterNames": ["m1"]}}),
            pp_doc("west", "west", DEPLOYMENTS, placement={"clusterAffinity": west}),
            pp_doc("everywhere", "all", DEPLOYMENTS, placement={}),
        ),
        "apps/east.yaml": _yaml(deployment("app", "east", replicas=1)),
        "apps/west.yaml": _yaml(deployment("app", "west", replicas=1)),
        "apps/all.yaml": _yaml(deployment("app", "all", replicas=1)),
    }


def _report(cluster: str, ready: bool, runs: tuple[str, str] | None = None) -> ClusterStatusSnapshot:
    """``cluster``'s report: Ready or not, and the Deployment (namespace, name) it ``runs``."""
    objects = (
        []
        if runs is None
        else [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": runs[0],
                "name": runs[1],
                "observed": {"apiVersion": "apps/v1", "kind": "Deployment", "status": {"readyReplicas": 1}},
            }
        ]
    )
    return ClusterStatusSnapshot.model_validate(
        {
            "metadata": {"name": cluster},
            "collectedAt": LATER,
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
            "objects": objects,
        }
    )


def _redone(tree: Tree, observed: ObservedStatus) -> set[str]:
    result = run(tree, LATER, observed=observed)
    return {o.key.namespace for o in result.outcomes if not o.reused}


def test_a_cluster_going_not_ready_redoes_only_the_templates_it_can_hold() -> None:
    tree = _fleet()
    tree = commit(tree, run(tree, NOW))
    reports = {"m1": _report("m1", ready=True), "m2": _report("m2", ready=True)}
    tree = commit(tree, run(tree, LATER, observed=ObservedStatus(reports, "s1")))
    assert _redone(tree, ObservedStatus(reports, "s1")) == set()  # the same reports: nothing to redo
    reports["m2"] = _report("m2", ready=False)
    # west is placed by a label m2 carries, all by no affinity at all; east can only be on m1
    assert _redone(tree, ObservedStatus(reports, "s2")) == {"west", "all"}


def test_a_cluster_reporting_a_templates_objects_concerns_it_whatever_its_policy_selects() -> None:
    """A Divided workload stays on a cluster whose labels its policy no longer selects (Karmada keeps the
    result until its next scheduling trigger); that cluster reports its object, so its state is the
    workload's still."""
    tree = _fleet()
    divided = {
        "clusterAffinity": {"labelSelector": {"matchLabels": {"side": "west"}}},
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
    }
    tree["policies.yaml"] = _yaml(pp_doc("west", "west", DEPLOYMENTS, placement=divided))
    del tree["apps/east.yaml"], tree["apps/all.yaml"]
    tree = commit(tree, run(tree, NOW))
    tree["inventory.yaml"] = _yaml(cluster_doc("m1", labels={"side": "east"}), cluster_doc("m2"))
    tree = commit(tree, run(tree, NOW))
    assert b"west" in tree["clusters/m2/west/deployment.apps/app.yaml"]  # m2 lost its label; the app stays
    reports = {"m1": _report("m1", ready=True), "m2": _report("m2", ready=True, runs=("west", "app"))}
    tree = commit(tree, run(tree, LATER, observed=ObservedStatus(reports, "s1")))
    reports["m1"] = _report("m1", ready=False)
    assert _redone(tree, ObservedStatus(reports, "s2")) == set()  # m1 can neither hold it nor reports it
    reports["m2"] = _report("m2", ready=False, runs=("west", "app"))
    assert _redone(tree, ObservedStatus(reports, "s3")) == {"west"}
