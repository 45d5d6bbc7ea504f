"""propagateDeps end to end: a workload's ConfigMaps and Secrets follow it (attached bindings)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.builders import configmap, pp_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path


def app(name: str, config: str, secret: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": "c", "image": "x", "envFrom": [{"configMapRef": {"name": config}}]}
                    ],
                    "volumes": [{"name": "tls", "secret": {"secretName": secret}}],
                },
            },
        },
    }


def secret(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "shop"},
        "data": {"k": "djE="},
    }


def policy(name: str, clusters: list[str], *, deps: bool = True, **spec: Any) -> dict[str, Any]:
    return pp_doc(
        name,
        "shop",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
        propagateDeps=deps,
        placement={"clusterAffinity": {"clusterNames": clusters}},
        **spec,
    )


def deps_fleet(tmp_path: Path, **files: Any) -> FleetRepo:
    base = {
        "apps/web.yaml": app("web", "web-config", "web-tls"),
        "apps/deps.yaml": [configmap("web-config", "shop"), secret("web-tls")],
        "p.yaml": policy("web", ["member1", "member2"]),
    }
    return FleetRepo.create(tmp_path / "fleet", {**base, **files}, clusters=3)


def test_dependencies_follow_their_workload(tmp_path: Path) -> None:
    repo = deps_fleet(tmp_path)
    repo.cli("reconcile")
    for cluster in ("member1", "member2"):
        assert repo.exists(f"clusters/{cluster}/shop/configmap/web-config.yaml")
        assert repo.exists(f"clusters/{cluster}/shop/secret/web-tls.yaml")
    assert repo.tree("clusters/member3") == []
    record = repo.load("karmada-state/bindings/shop/configmap/web-config.yaml")
    assert "placement" not in record["spec"]
    assert record["spec"]["requiredBy"] == [
        {
            "namespace": "shop",
            "name": "web-deployment",
            "clusters": [{"name": "member1", "replicas": 1}, {"name": "member2", "replicas": 1}],
        }
    ]
    assert "via" in repo.read("clusters/member1/shop/configmap/web-config.yaml").splitlines()[0]


def test_dependencies_go_when_nothing_needs_them(tmp_path: Path) -> None:
    repo = deps_fleet(tmp_path)
    repo.cli("reconcile")
    repo.write("p.yaml", policy("web", ["member1", "member2"], deps=False))
    repo.commit("stop propagating dependencies")
    repo.cli("reconcile")
    assert not repo.exists("clusters/member1/shop/configmap/web-config.yaml")
    assert not repo.exists("karmada-state/bindings/shop/configmap/web-config.yaml")
    assert repo.exists("clusters/member1/shop/deployment.apps/web.yaml")


def test_a_workload_edit_that_drops_a_dependency_is_refused_unless_allowed(tmp_path: Path) -> None:
    repo = deps_fleet(tmp_path)
    repo.cli("reconcile")
    repo.write("apps/web.yaml", app("web", "other-config", "web-tls"))  # the ConfigMap is no longer used
    head = repo.commit("web reads another ConfigMap")
    refused = repo.cli("reconcile", check=3)
    assert "dependency-dropped (refused: --allow dependency-dropped): no workload requires it any more" in (
        refused.stdout
    )
    assert "ConfigMap/shop/web-config from member1, member2" in refused.stdout
    assert repo.head() == head and repo.exists("clusters/member1/shop/configmap/web-config.yaml")
    repo.cli("reconcile", "--allow", "dependency-dropped")
    assert not repo.exists("clusters/member1/shop/configmap/web-config.yaml")
    assert repo.exists("clusters/member1/shop/secret/web-tls.yaml")


def test_a_dependency_with_its_own_policy_gets_both_placements(tmp_path: Path) -> None:
    own = pp_doc(
        "config",
        "shop",
        [{"apiVersion": "v1", "kind": "ConfigMap", "name": "web-config"}],
        placement={"clusterAffinity": {"clusterNames": ["member3"]}},
    )
    repo = deps_fleet(tmp_path, **{"own.yaml": own})
    repo.cli("reconcile")
    for cluster in ("member1", "member2", "member3"):
        assert repo.exists(f"clusters/{cluster}/shop/configmap/web-config.yaml"), cluster
    record = repo.load("karmada-state/bindings/shop/configmap/web-config.yaml")
    assert [c["name"] for c in record["spec"]["clusters"]] == ["member3"]
    assert record["spec"]["requiredBy"][0]["name"] == "web-deployment"


def test_two_workloads_share_a_dependency_and_any_overwrite_wins(tmp_path: Path) -> None:
    repo = deps_fleet(
        tmp_path,
        **{
            "apps/api.yaml": app("api", "web-config", "web-tls"),
            "p2.yaml": policy("api", ["member3"], conflictResolution="Overwrite"),
            "clusters/member3/shop/configmap/web-config.yaml": "# hand-written\n",
        },
    )
    repo.cli("reconcile")
    assert repo.load("clusters/member3/shop/configmap/web-config.yaml")["kind"] == "ConfigMap", "taken over"
    record = repo.load("karmada-state/bindings/shop/configmap/web-config.yaml")
    assert [r["name"] for r in record["spec"]["requiredBy"]] == ["api-deployment", "web-deployment"]
    assert record["spec"]["conflictResolution"] == "Overwrite"


def test_a_missing_dependency_is_reported(tmp_path: Path) -> None:
    repo = deps_fleet(tmp_path, **{"apps/deps.yaml": configmap("web-config", "shop")})
    done = repo.cli("reconcile")
    assert "depends on Secret/shop/web-tls, which is not in the repository" in done.stderr


def test_the_propagate_deps_gate_turns_it_off(tmp_path: Path) -> None:
    repo = deps_fleet(tmp_path, **{"gitops-karmada.yaml": "featureGates:\n  PropagateDeps: false\n"})
    repo.cli("reconcile")
    assert not repo.exists("clusters/member1/shop/configmap/web-config.yaml")
