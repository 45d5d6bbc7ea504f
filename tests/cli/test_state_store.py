"""Issue 7 through the pipeline: preserve-on-deletion, suspension and Lazy activation, on real repositories."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.builders import deployment, pp_doc, service
from tests.fleet import FleetRepo, placement

if TYPE_CHECKING:
    from pathlib import Path

NGINX_PP = pp_doc(
    "nginx-pp",
    "default",
    [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"},
        {"apiVersion": "v1", "kind": "Service", "name": "nginx-svc"},
    ],
    conflictResolution="Overwrite",
    preserveResourcesOnDeletion=True,
    placement={"clusterAffinity": {"clusterNames": ["member1"]}},
)
DEPLOYMENT = "clusters/member1/default/deployment.apps/nginx.yaml"
SERVICE = "clusters/member1/default/service/nginx-svc.yaml"


def migration(tmp_path: Path) -> FleetRepo:
    """The v1.12 release note: a single-cluster app whose manifests already sit in member1's folder."""
    repo = FleetRepo.create(tmp_path / "fleet", clusters=2)
    repo.write(DEPLOYMENT, deployment("nginx", image="nginx:1.25"))
    repo.write(SERVICE, service("nginx-svc"))
    repo.commit("the app as it ran before the migration")
    return repo


def test_v112_migration_and_rollback(tmp_path: Path) -> None:
    repo = migration(tmp_path)
    # 1. move the manifests into templates and add the policy: Overwrite adopts the existing files
    repo.write("apps/nginx.yaml", [deployment("nginx", image="nginx:1.27"), service("nginx-svc")])
    repo.write("policies/nginx.yaml", NGINX_PP)
    repo.commit("migrate nginx to the fleet")
    repo.cli("reconcile")
    adopted = repo.load(DEPLOYMENT)
    assert adopted["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    assert adopted["metadata"]["labels"]["karmada.io/managed"] == "true"
    assert repo.read(DEPLOYMENT).startswith("# Rendered by gitops-karmada from apps/nginx.yaml[0]")
    # 2. something goes wrong: roll the migration back by deleting the templates
    repo.delete("apps/nginx.yaml")
    repo.commit("roll back the migration")
    repo.cli("reconcile")
    for path in (DEPLOYMENT, SERVICE):
        assert repo.exists(path), f"{path} must be preserved"
        released = repo.load(path)
        labels = released["metadata"].get("labels", {})
        annotations = released["metadata"].get("annotations", {})
        assert not any("karmada.io" in key for key in (*labels, *annotations)), released["metadata"]
        assert repo.read(path).startswith("# Released by gitops-karmada")
    assert repo.load(DEPLOYMENT)["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    record = repo.load("karmada-state/released.yaml")
    assert [item["path"] for item in record["items"]] == [DEPLOYMENT, SERVICE]
    assert repo.tree("karmada-state/bindings/default") == []
    # 3. later runs leave the released files alone, even when edited by hand
    repo.write(SERVICE, repo.read(SERVICE).replace("port: 80", "port: 8080"))
    repo.commit("hand edit after the rollback")
    assert "no commit needed" in repo.cli("reconcile").stdout
    assert "port: 8080" in repo.read(SERVICE)


def test_without_preserve_deleted_templates_are_removed(tmp_path: Path) -> None:
    repo = migration(tmp_path)
    policy: dict[str, Any] = {**NGINX_PP, "spec": {**NGINX_PP["spec"], "preserveResourcesOnDeletion": False}}
    repo.write("apps/nginx.yaml", [deployment("nginx"), service("nginx-svc")])
    repo.write("policies/nginx.yaml", policy)
    repo.commit("migrate")
    repo.cli("reconcile")
    repo.delete("apps/nginx.yaml")
    repo.commit("delete")
    repo.cli("reconcile", "--allow", "all")
    assert not repo.exists(DEPLOYMENT) and not repo.exists(SERVICE)
    assert not repo.exists("karmada-state/released.yaml")


def web_policy(**spec: Any) -> dict[str, Any]:
    return pp_doc(
        "web",
        "default",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
        placement={"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
        **spec,
    )


def test_suspended_dispatching_freezes_a_clusters_folder(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"apps/web.yaml": deployment("web", image="web:1"), "p.yaml": web_policy()},
        clusters=2,
    )
    repo.cli("reconcile")
    repo.write("p.yaml", web_policy(suspension={"dispatchingOnClusters": {"clusterNames": ["member2"]}}))
    repo.write("apps/web.yaml", deployment("web", image="web:2"))
    repo.commit("suspend member2, ship web:2")
    repo.cli("reconcile")
    image = "clusters/{}/default/deployment.apps/web.yaml"
    assert "image: web:2" in repo.read(image.format("member1"))
    assert "image: web:1" in repo.read(image.format("member2")), "member2's folder stays as it was"
    annotations = repo.load("karmada-state/bindings/default/deployment.apps/web.yaml")["metadata"][
        "annotations"
    ]
    assert "member2" in annotations["gitops-karmada.io/rendered-clusters"].split(",")
    assert "dispatching is suspended" in json.loads(annotations["gitops-karmada.io/render-notes"])["member2"]
    # resuming dispatches the current template
    repo.write("p.yaml", web_policy())
    repo.commit("resume")
    repo.cli("reconcile")
    assert "image: web:2" in repo.read(image.format("member2"))


def test_suspending_all_dispatching_writes_nothing_new(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"apps/web.yaml": deployment("web"), "p.yaml": web_policy(suspension={"dispatching": True})},
        clusters=2,
    )
    repo.cli("reconcile")
    assert repo.tree("clusters/member1/default") == []
    assert placement(repo.render_json())["Deployment/web"] == {"member1": 1, "member2": 1}, (
        "scheduled, not dispatched"
    )


def test_lazy_policy_changes_wait_for_a_template_change(tmp_path: Path) -> None:
    lazy = {"activationPreference": "Lazy"}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"apps/web.yaml": deployment("web", image="web:1"), "p.yaml": web_policy(**lazy)},
        clusters=3,
    )
    repo.cli("reconcile")
    moved = pp_doc(
        "web",
        "default",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
        placement={"clusterAffinity": {"clusterNames": ["member3"]}},
        **lazy,
    )
    repo.write("p.yaml", moved)
    repo.commit("move web to member3 (lazily)")
    repo.cli("reconcile")
    assert sorted(placement(repo.render_json())["Deployment/web"]) == ["member1", "member2"], (
        "policy change waits"
    )
    repo.write("apps/web.yaml", deployment("web", image="web:2"))
    repo.commit("web:2")
    repo.cli("reconcile", "--allow", "cluster-emptied")
    assert sorted(placement(repo.render_json())["Deployment/web"]) == ["member3"]
    assert repo.tree("clusters/member1/default") == []
    assert "image: web:2" in repo.read("clusters/member3/default/deployment.apps/web.yaml")


def test_without_lazy_a_policy_change_applies_at_once(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet", {"apps/web.yaml": deployment("web"), "p.yaml": web_policy()}, clusters=3
    )
    repo.cli("reconcile")
    repo.write(
        "p.yaml",
        pp_doc(
            "web",
            "default",
            [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            placement={"clusterAffinity": {"clusterNames": ["member3"]}},
        ),
    )
    repo.commit("move web to member3")
    repo.cli("reconcile", "--allow", "cluster-emptied")
    assert sorted(placement(repo.render_json())["Deployment/web"]) == ["member3"]
