"""``compare`` on fleets rendered by the real pipeline: what changed, and which inputs caused it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitops_karmada.core.diff import ChangeKind, DiffSide, compare, render_json, render_text
from gitops_karmada.model.config import ToolConfig
from tests.action.diffdata import render_side
from tests.builders import cluster_doc, configmap, cpp_doc, deployment, pp_doc

WEB = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def _weighted(weights: dict[str, int]) -> dict[str, Any]:
    return {
        "clusterAffinity": {"clusterNames": sorted(weights)},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [c]}, "weight": w} for c, w in sorted(weights.items())
                ]
            },
        },
    }


def _fleet(**overrides: Any) -> dict[str, Any]:
    files: dict[str, Any] = {
        "inventory/clusters.yaml": [cluster_doc(f"m{i}", labels={"env": "prod"}) for i in (1, 2, 3)],
        "apps/web.yaml": deployment("web", "shop", replicas=8),
        "apps/api.yaml": deployment("api", "shop", replicas=3),
        "apps/cfg.yaml": configmap("settings", "shop"),
        "policies/web.yaml": pp_doc("web", "shop", [WEB], placement=_weighted({"m1": 2, "m2": 1, "m3": 1})),
        "policies/api.yaml": pp_doc(
            "api",
            "shop",
            [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"}],
            placement={"clusterAffinity": {"clusterNames": ["m1"]}},
        ),
        "policies/fleet.yaml": cpp_doc(
            "fleet-configmaps",
            [{"apiVersion": "v1", "kind": "ConfigMap"}],
            placement={"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}},
        ),
    }
    files.update(overrides)
    return files


@pytest.fixture(scope="module")
def base() -> DiffSide:
    first = render_side("first", _fleet())
    # the branch point is a reconciled commit: render once more on top of its own records
    return render_side("base", _fleet(), previous=first)


def test_the_base_compared_with_itself_has_no_change(base: DiffSide) -> None:
    diff = compare(base, render_side("head", _fleet(), previous=base))
    assert not diff.has_changes
    assert (diff.workloads, diff.objects, diff.inputs, diff.clusters) == ((), (), (), ())


def test_a_weight_change_moves_replicas_and_names_the_policy(base: DiffSide) -> None:
    head_files = _fleet(
        **{
            "policies/web.yaml": pp_doc(
                "web", "shop", [WEB], placement=_weighted({"m1": 1, "m2": 1, "m3": 1})
            )
        }
    )
    diff = compare(base, render_side("head", head_files, previous=base))
    (workload,) = diff.workloads
    assert workload.template == "Deployment.apps/shop/web"
    assert {c.cluster: (c.before, c.after) for c in workload.cells} == {
        "m1": (4, 2),
        "m2": (2, 3),
        "m3": (2, 3),
    }
    assert workload.moved == 2
    (policy,) = diff.inputs
    assert (policy.title, policy.change) == ("PropagationPolicy shop/web", ChangeKind.MODIFIED)
    assert policy.templates == ("Deployment.apps/shop/web",)
    assert policy.clusters == ("m1", "m2", "m3")
    assert [(o.cluster, o.change) for o in diff.objects] == [
        (c, ChangeKind.MODIFIED) for c in ("m1", "m2", "m3")
    ]
    assert all("-  replicas: " in o.diff and "+  replicas: " in o.diff for o in diff.objects)


def test_a_new_cluster_policy_claims_nothing_that_is_claimed(base: DiffSide) -> None:
    # a namespaced policy always beats a cluster-wide one, and claims are sticky: nothing moves
    extra = cpp_doc("all-deployments", [{"apiVersion": "apps/v1", "kind": "Deployment"}])
    diff = compare(base, render_side("head", _fleet(**{"policies/extra.yaml": extra}), previous=base))
    assert not diff.has_changes
    (change,) = diff.inputs
    assert (change.title, change.change, change.templates) == (
        "ClusterPropagationPolicy all-deployments",
        ChangeKind.ADDED,
        (),
    )


def test_a_new_template_and_its_policy(base: DiffSide) -> None:
    files = _fleet(
        **{
            "apps/jobs.yaml": deployment("worker", "batch", replicas=2),
            "policies/jobs.yaml": pp_doc(
                "worker",
                "batch",
                [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"}],
                placement={"clusterAffinity": {"clusterNames": ["m2", "m3"]}},
            ),
        }
    )
    diff = compare(base, render_side("head", files, previous=base))
    (workload,) = diff.workloads
    assert (workload.template, workload.change, workload.gained) == (
        "Deployment.apps/batch/worker",
        ChangeKind.ADDED,
        ("m2", "m3"),
    )
    assert [(o.cluster, o.change) for o in diff.objects] == [
        ("m2", ChangeKind.ADDED),
        ("m3", ChangeKind.ADDED),
    ]
    (policy,) = diff.inputs
    assert (policy.title, policy.change, policy.clusters) == (
        "PropagationPolicy batch/worker",
        ChangeKind.ADDED,
        ("m2", "m3"),
    )


def test_an_override_change_touches_what_it_selects(base: DiffSide) -> None:
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "m3-registry"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["m3"]},
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "replace", "value": "mirror.example.com"}
                        ]
                    },
                }
            ],
        },
    }
    diff = compare(base, render_side("head", _fleet(**{"overrides/m3.yaml": override}), previous=base))
    assert diff.workloads == ()  # placement unchanged
    assert [(o.cluster, o.title) for o in diff.objects] == [("m3", "Deployment.apps/shop/web")]
    assert "+        image: mirror.example.com/nginx:1.27" in diff.objects[0].diff
    (change,) = diff.inputs
    assert (change.title, change.templates, change.clusters) == (
        "ClusterOverridePolicy m3-registry",
        ("Deployment.apps/shop/web",),
        ("m3",),
    )


def test_a_cluster_leaving_the_inventory_empties_its_folder(base: DiffSide) -> None:
    files = _fleet(
        **{"inventory/clusters.yaml": [cluster_doc(f"m{i}", labels={"env": "prod"}) for i in (1, 2)]}
    )
    diff = compare(base, render_side("head", files, previous=base))
    (m3,) = [c for c in diff.clusters if c.cluster == "m3"]
    assert m3.emptied and m3.objects_after == 0 and m3.removed == m3.objects_before
    (cluster,) = [i for i in diff.inputs if i.kind == "Cluster"]
    assert (cluster.title, cluster.change) == ("Cluster m3", ChangeKind.REMOVED)
    assert "Deployment.apps/shop/web" in cluster.templates
    assert "m3: emptied" in render_text(diff)


def test_a_configuration_change_touches_everything_that_changed(base: DiffSide) -> None:
    config = ToolConfig.model_validate({"enableEmptyWorkloadPropagation": True})
    head = render_side("head", _fleet(), previous=base, config=config)
    diff = compare(base, head)
    config_changes = [i for i in diff.inputs if i.kind == "Config"]
    assert [c.change for c in config_changes] == [ChangeKind.MODIFIED]


def test_json_report_is_complete_and_ordered(base: DiffSide) -> None:
    changed = copy.deepcopy(_fleet())
    changed["apps/web.yaml"] = deployment("web", "shop", replicas=12)
    diff = compare(base, render_side("head", changed, previous=base))
    report = render_json(diff)
    assert report.index('"placement"') < report.index('"manifests"')
    assert '"changedClusters": [\n    "m1",\n    "m2",\n    "m3"\n  ]' in report
