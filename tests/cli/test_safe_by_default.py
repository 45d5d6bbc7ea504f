"""Issue 33: no typo, misconfiguration or removal deletes a workload without being named and stopped.

Each case starts from ``repo-layout/`` as it ships, reconciled once, makes one ordinary edit and runs the
CLI on the real repository: a removal the change does not say itself is refused (exit 3, nothing written,
the ``--allow`` named); a deliberate one passes and is named with its cause.
"""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.action.scenarios import REPO_LAYOUT
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

CRD = "clusters/{}/_cluster/customresourcedefinition.apiextensions.k8s.io/flinkdeployments.flink.apache.org.yaml"


@pytest.fixture(scope="module")
def reconciled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example fleet, committed and reconciled once (copied by each test)."""
    path = tmp_path_factory.mktemp("example") / "fleet"
    shutil.copytree(REPO_LAYOUT, path)
    repo = FleetRepo.create(path)
    repo.cli("reconcile")
    return path


@pytest.fixture
def fleet(reconciled: Path, tmp_path: Path) -> FleetRepo:
    shutil.copytree(reconciled, tmp_path / "fleet", symlinks=True)
    return FleetRepo(tmp_path / "fleet")


def test_a_crd_removed_while_its_objects_are_rendered_is_refused_and_named(fleet: FleetRepo) -> None:
    head = fleet.head()
    fleet.delete("crds/flinkdeployments.yaml")
    fleet.commit("remove the Flink CRD")
    refused = fleet.cli("reconcile", check=3)
    assert "crd-in-use (refused: --allow crd-in-use)" in refused.stdout
    assert (
        "still rendered on member1 (FlinkDeployment.flink.apache.org/analytics/flink-example)"
        in refused.stdout
    )
    # the clusters that run no FlinkDeployment lose the CRD deliberately: named, not refused
    assert "template-deleted (deliberate): deleted from crds/flinkdeployments.yaml" in refused.stdout
    assert "--allow crd-in-use" in refused.stderr
    assert git(fleet.path, "rev-parse", "HEAD^") == head  # nothing written: HEAD is the user's commit
    assert fleet.exists(CRD.format("member1"))
    fleet.cli("reconcile", "--allow", "crd-in-use")
    assert not fleet.exists(CRD.format("member1"))


def test_a_template_that_changed_identity_by_its_own_edit_is_refused(fleet: FleetRepo) -> None:
    text = fleet.read("apps/shop/cart.yaml")
    fleet.write("apps/shop/cart.yaml", text.replace("  namespace: shop\n", "", 1))
    fleet.commit("drop the namespace")
    refused = fleet.cli("reconcile", check=3)
    assert (
        "template-edited (refused: --allow template-edited): an edit of apps/shop/cart.yaml[0] made it "
        "Deployment.apps/default/cart" in refused.stdout
    )
    assert fleet.exists("clusters/member1/shop/deployment.apps/cart.yaml")


def test_a_cluster_label_typo_is_refused_and_says_why_divided_workloads_stay(fleet: FleetRepo) -> None:
    text = fleet.read("clusters-inventory/member3.yaml")
    fleet.write("clusters-inventory/member3.yaml", text.replace("env: prod", "env: prd"))
    fleet.commit("typo")
    refused = fleet.cli("reconcile", check=3)
    assert (
        "cluster-changed (refused: --allow cluster-changed): Cluster member3's labels changed"
        in refused.stdout
    )
    assert "(env: prod → prd)" in refused.stdout
    assert "Service/shop/cart" in refused.stdout
    assert "Deployment.apps/shop/cart stays on member3 though PropagationPolicy shop/cart" in refused.stderr
    assert fleet.exists("clusters/member3/shop/service/cart.yaml")


CONFIGMAP = "clusters/{}/default/configmap/example-configmap.yaml"


def test_a_deleted_template_is_removed_unasked_and_named(fleet: FleetRepo) -> None:
    fleet.delete("apps/default/example-configmap.yaml")
    fleet.commit("retire the example ConfigMap")
    done = fleet.cli("reconcile")
    assert "template-deleted (deliberate): deleted from apps/default/example-configmap.yaml" in done.stdout
    assert "ConfigMap/default/example-configmap from member1, member2, member3" in done.stdout
    assert not fleet.exists(CONFIGMAP.format("member1"))


def test_removal_json_groups_each_removal_by_cause(fleet: FleetRepo) -> None:
    fleet.delete("apps/default/example-configmap.yaml")
    fleet.commit("retire the example ConfigMap")
    document = json.loads(fleet.cli("reconcile", "--dry-run", "-o", "json").stdout)
    [group] = document["removals"]
    assert group["cause"] == "template-deleted" and group["deliberate"] is True
    assert group["owners"] == ["ConfigMap/default/example-configmap"]
    assert group["clusters"] == ["member1", "member2", "member3"]
    assert group["paths"] == [CONFIGMAP.format(c) for c in ("member1", "member2", "member3")]


def test_an_allowed_cause_in_the_configuration_passes_unasked(fleet: FleetRepo) -> None:
    config = fleet.read("gitops-karmada.yaml") + "removals:\n  allow: [cluster-changed]\n"
    fleet.write("gitops-karmada.yaml", config)
    text = fleet.read("clusters-inventory/member3.yaml")
    fleet.write("clusters-inventory/member3.yaml", text.replace("env: prod", "env: prd"))
    fleet.commit("member3 leaves production")
    done = fleet.cli("reconcile")
    assert "cluster-changed (allowed)" in done.stdout
    assert not fleet.exists("clusters/member3/shop/service/cart.yaml")


def test_a_symlink_out_of_the_repository_is_named_and_nothing_crashes(fleet: FleetRepo) -> None:
    (fleet.path / "apps" / "passwd.yaml").symlink_to("/etc/passwd")
    fleet.commit("a stray link")
    done = fleet.cli("reconcile")
    assert "apps/passwd.yaml[0]: symbolic link" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_configuration_typo_names_the_field_and_adds_no_false_errors(fleet: FleetRepo) -> None:
    fleet.write("gitops-karmada.yaml", fleet.read("gitops-karmada.yaml").replace("exclude:", "exlude:"))
    fleet.commit("typo")
    done = fleet.cli("validate", check=1)
    assert "gitops-karmada.yaml[0] exlude: unknown field (did you mean exclude?)" in done.stderr
    assert "duplicate" not in done.stderr
    assert "error: 1 error(s) found" in done.stderr


def test_a_detached_head_is_refused_unless_asked(fleet: FleetRepo) -> None:
    fleet.delete("apps/default/example-configmap.yaml")
    user = fleet.commit("retire the example ConfigMap")
    git(fleet.path, "checkout", "-q", "--detach", "HEAD")
    refused = fleet.cli("reconcile", check=1)
    assert "HEAD is detached" in refused.stderr and "--detached" in refused.stderr
    assert fleet.head() == user
    fleet.cli("reconcile", "--detached")
    assert git(fleet.path, "rev-parse", "HEAD^") == user
    assert CONFIGMAP.format("member1") not in fleet.tree("clusters")


def test_a_broken_lua_script_is_reported_at_its_customization(fleet: FleetRepo) -> None:
    fleet.write(
        "overrides/broken.yaml",
        {
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": "broken"},
            "spec": {
                "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
                "customizations": {
                    "replicaResource": {
                        "luaScript": "function GetReplicas(obj)\n  return obj.spec.replicas +\nend\n"
                    }
                },
            },
        },
    )
    fleet.commit("a broken script")
    done = fleet.cli("validate", check=1)
    assert (
        "overrides/broken.yaml[0] spec.customizations.replicaResource.luaScript: cannot interpret "
        "Deployment.apps/shop/cart (from apps/shop/cart.yaml[0])" in done.stderr
    )


def test_a_fleet_in_a_subfolder_of_a_monorepo_works_the_same_way_for_every_verb(tmp_path: Path) -> None:
    monorepo = tmp_path / "monorepo"
    shutil.copytree(REPO_LAYOUT, monorepo / "fleet")
    (monorepo / "services").mkdir()
    (monorepo / "services" / "values.yaml").write_text("not: a kubernetes object\n")
    FleetRepo.create(monorepo)
    fleet = FleetRepo(monorepo / "fleet")
    assert "valid: 14 template(s)" in fleet.cli("validate").stdout
    assert "valid: 14 template(s)" in fleet.cli("validate", "--worktree").stdout
    fleet.cli("reconcile")
    outputs = FleetRepo(monorepo).tree("fleet/clusters/member1")
    assert "fleet/clusters/member1/shop/deployment.apps/cart.yaml" in outputs
    assert FleetRepo(monorepo).tree("clusters") == []  # nothing at the repository's root
    fleet.cli("verify")
    # the paths a user sees are the repository's, as git shows them
    explained = fleet.cli("explain", "Deployment/shop/cart").stdout
    assert "fleet/clusters/member1/shop/deployment.apps/cart.yaml" in explained
    fleet.delete("apps/default/example-configmap.yaml")
    fleet.commit("retire the example ConfigMap")
    diff = fleet.cli("diff", "--base", "HEAD~1", "--head", "HEAD", "-o", "json", check=None)
    report = json.loads(diff.stdout)
    assert [g["cause"] for g in report["removals"]] == ["template-deleted"]
    done = FleetRepo(monorepo).cli("reconcile", "--repo", "fleet")
    assert "deleted from fleet/apps/default/example-configmap.yaml" in done.stdout
