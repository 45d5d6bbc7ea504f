"""``reconcile`` end to end: real repositories, real commits, the real CLI (in process)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.incremental.state_index import read_index
from gitops_karmada.core.layout import RepoLayout
from tests.builders import configmap, cpp_doc, deployment, pp_doc
from tests.fleet import FleetRepo, placement
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

WEB_POLICY = pp_doc(
    "web",
    "shop",
    [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
    placement={
        "clusterAffinity": {"clusterNames": ["member1", "member2"]},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": ["member1"]}, "weight": 3},
                    {"targetCluster": {"clusterNames": ["member2"]}, "weight": 1},
                ]
            },
        },
    },
)


def shop(tmp_path: Path) -> FleetRepo:
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/web.yaml": deployment("web", "shop", replicas=4),
            "apps/config.yaml": configmap("settings", "shop"),
            "policies/web.yaml": WEB_POLICY,
            "policies/everything.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
        },
        clusters=3,
    )


def test_reconcile_makes_one_commit_with_trailers_then_none(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    source = repo.head()
    repo.cli("reconcile")
    assert repo.commit_count() == 2
    message = git(repo.path, "log", "-1", "--format=%B")
    assert f"Source-Commit: {source}" in message
    assert "Rendered-By: gitops-karmada " in message
    assert git(repo.path, "rev-parse", "HEAD~1") == source
    assert repo.load("clusters/member1/shop/deployment.apps/web.yaml")["spec"]["replicas"] == 3
    assert repo.load("clusters/member2/shop/deployment.apps/web.yaml")["spec"]["replicas"] == 1
    assert not repo.exists("clusters/member3/shop/deployment.apps/web.yaml")
    assert repo.status() == ""
    second = repo.cli("reconcile")
    assert "no commit needed" in second.stdout
    assert repo.commit_count() == 2


def test_a_commit_of_an_older_engine_is_never_up_to_date(tmp_path: Path) -> None:
    """Output an older engine wrote (the state index in one file, before shards) is redone, not taken as
    what this version makes; the legacy index still vouches for the rendered files."""
    repo = shop(tmp_path)
    repo.cli("reconcile")
    message = git(repo.path, "log", "-1", "--format=%B")
    assert f"Rendered-By: gitops-karmada {ENGINE_VERSION}" in message
    shards = sorted((repo.path / "karmada-state/index").glob("*.json"))
    index = read_index(
        {f"karmada-state/index/{f.name}": f.read_bytes() for f in shards}, RepoLayout.default()
    )
    assert index is not None
    git(repo.path, "rm", "-q", "-r", "karmada-state/index")
    repo.write("karmada-state/index.json", index.dump().decode())
    git(repo.path, "add", "-A")
    older = message.replace(f"gitops-karmada {ENGINE_VERSION}", "gitops-karmada 0.1.0")
    git(repo.path, "commit", "-q", "--amend", "-m", older)
    upgraded = repo.cli("reconcile")
    assert "up to date" not in upgraded.stdout
    assert not repo.exists("karmada-state/index.json") and repo.exists("karmada-state/index/shop.json")
    assert repo.cli("verify").returncode == 0


def test_reconcile_reads_the_commit_not_the_work_tree(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=40))  # saved, not committed
    repo.cli("reconcile")
    assert repo.load("clusters/member1/shop/deployment.apps/web.yaml")["spec"]["replicas"] == 3
    assert repo.load("apps/web.yaml")["spec"]["replicas"] == 40, "the user's uncommitted edit is kept"
    assert repo.status() == " M apps/web.yaml"


def test_a_policy_change_moves_replicas_in_the_next_commit(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    changed = json.loads(json.dumps(WEB_POLICY))
    changed["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"][1]["weight"] = 3
    repo.write("policies/web.yaml", changed)
    repo.commit("weights 3:3")
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"member1": 2, "member2": 2}
    assert repo.load("clusters/member2/shop/deployment.apps/web.yaml")["spec"]["replicas"] == 2


def test_dry_run_lists_changes_and_commits_nothing(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    done = repo.cli("reconcile", "--dry-run")
    assert "W clusters/member1/shop/deployment.apps/web.yaml" in done.stdout
    assert "W karmada-state/bindings/shop/deployment.apps/web.yaml" in done.stdout
    assert repo.commit_count() == 1
    assert repo.tree("clusters") == []


def test_deleting_a_template_removes_its_manifests_everywhere(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    assert len(repo.tree("clusters/member3/shop/configmap")) == 1
    repo.delete("apps/config.yaml")
    repo.commit("drop settings")
    head = repo.head()
    refused = repo.cli("reconcile", check=3)  # member3 would be emptied: the default guardrail refuses
    assert "cluster-emptied: cluster member3 is emptied: 1 object(s) → 0" in refused.stderr
    assert "gitops-karmada reconcile --allow cluster-emptied" in refused.stderr
    assert repo.head() == head
    repo.cli("reconcile", "--allow", "cluster-emptied")
    assert [p for p in repo.tree() if "settings" in p] == []


def test_deleting_a_policy_keeps_the_placement(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    repo.delete("policies/web.yaml")
    repo.commit("drop the web policy")
    repo.cli("reconcile")
    binding = repo.load("karmada-state/bindings/shop/deployment.apps/web.yaml")
    assert [c["name"] for c in binding["spec"]["clusters"]] == ["member1", "member2"]
    assert "propagationpolicy.karmada.io/name" not in binding["metadata"].get("annotations", {})
    rendered = repo.load("clusters/member1/shop/deployment.apps/web.yaml")
    assert rendered["spec"]["replicas"] == 3
    assert "propagationpolicy.karmada.io/permanent-id" not in rendered["metadata"]["labels"]


def test_a_hand_written_file_is_never_overwritten_without_overwrite(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    hand_written = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n# mine\n"
    repo.write("clusters/member2/shop/configmap/settings.yaml", hand_written)
    repo.commit("hand-written member2 config")
    done = repo.cli("reconcile")
    assert "was not written by gitops-karmada" in done.stderr
    assert repo.read("clusters/member2/shop/configmap/settings.yaml") == hand_written
    binding = repo.load("karmada-state/bindings/shop/configmap/settings.yaml")
    annotations = binding["metadata"]["annotations"]
    assert annotations["gitops-karmada.io/rendered-clusters"] == "member1,member3"
    notes = json.loads(annotations["gitops-karmada.io/render-notes"])
    assert "conflictResolution is Abort" in notes["member2"]
    rendered = next(c for c in binding["status"]["conditions"] if c["type"] == "Rendered")
    assert rendered["status"] == "False" and rendered["message"].startswith("member2: ")
    assert "aggregatedStatus" not in binding["status"], "nothing observed the cluster: no applied claim"
    # deleting the template does not delete the file the tool never wrote
    repo.delete("apps/config.yaml")
    repo.commit("drop settings")
    repo.cli("reconcile", "--allow", "cluster-emptied")
    assert repo.read("clusters/member2/shop/configmap/settings.yaml") == hand_written
    assert not repo.exists("clusters/member1/shop/configmap/settings.yaml")


def test_overwrite_takes_over_a_hand_written_file(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("clusters/member2/shop/configmap/settings.yaml", "# hand-written\n")
    repo.write(
        "policies/everything.yaml",
        cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}], conflictResolution="Overwrite"),
    )
    repo.commit("adopt")
    repo.cli("reconcile")
    assert repo.load("clusters/member2/shop/configmap/settings.yaml")["data"] == {"key": "value"}


def test_input_errors_leave_head_and_tree_untouched(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    before = repo.head()
    bad = json.loads(json.dumps(WEB_POLICY))
    bad["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"][0]["weight"] = 0
    repo.write("policies/web.yaml", bad)
    repo.commit("bad weight")
    broken = repo.head()
    done = repo.cli("reconcile", check=1)
    assert (
        "policies/web.yaml[0] spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: "
        "must be > 0" in done.stderr
    )
    assert "nothing written" in done.stderr
    assert repo.head() == broken != before
    assert repo.status() == ""


def test_a_cluster_leaving_the_inventory_reschedules_its_replicas(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    repo.delete("inventory/member2.yaml")
    repo.commit("decommission member2")
    repo.cli("reconcile", "--allow", "cluster-emptied")
    assert placement(repo.render_json())["Deployment/web"] == {"member1": 4}
    assert repo.tree("clusters/member2") == []


def test_render_json_is_the_binding_list_contract_and_writes_nothing(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    head = repo.head()
    listing = repo.render_json()
    assert listing["apiVersion"] == "v1"
    assert listing["kind"] == "List"
    kinds = {item["kind"] for item in listing["items"]}
    assert kinds == {"ResourceBinding"}
    assert all(item["apiVersion"] == "work.karmada.io/v1alpha2" for item in listing["items"])
    keys = [(i["spec"]["resource"]["namespace"], i["spec"]["resource"]["kind"], i["spec"]["resource"]["name"])
            for i in listing["items"]]  # fmt: skip
    assert keys == sorted(keys)
    web = next(i for i in listing["items"] if i["spec"]["resource"]["name"] == "web")
    assert web["spec"]["replicas"] == 4
    assert web["spec"]["clusters"] == [{"name": "member1", "replicas": 3}, {"name": "member2", "replicas": 1}]
    assert web["status"]["conditions"][0]["type"] == "Scheduled"
    assert web["status"]["conditions"][0]["reason"] == "Success"
    assert repo.head() == head
    assert repo.status() == ""
    assert repo.render_json() == listing, "stable output"


def test_render_out_writes_the_tree_to_a_folder(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    out = tmp_path / "out"
    repo.cli("render", "--out", str(out))
    assert (out / "clusters/member1/shop/deployment.apps/web.yaml").is_file()
    assert (out / "karmada-state/bindings/shop/deployment.apps/web.yaml").is_file()
    assert repo.tree("clusters") == []


def test_json_logging_has_karmadas_shape(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    done = repo.cli("--logging-format=json", "reconcile")
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert lines, done.stderr
    summary = next(line for line in lines if "file(s) changed" in line["msg"])
    assert set(summary) >= {"ts", "logger", "level", "msg"}
    assert summary["level"] == "info"
    assert summary["logger"] == "reconcile"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    assert repo.cli("render", "-o", "xml", check=2).returncode == 2
    assert repo.cli("reconcile", "--dry-run", "--push", check=2).returncode == 2


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    repo = FleetRepo(folder)
    done = repo.cli("reconcile", check=1)
    assert "is not a git repository" in done.stderr


def test_an_override_policy_that_selects_nothing_is_reported(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write(
        "overrides/typo.yaml",
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "OverridePolicy",
            "metadata": {"name": "typo", "namespace": "shop"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "wbe"}],
                "overrideRules": [
                    {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"a": "b"}}]}}
                ],
            },
        },
    )
    repo.commit("override with a typo")
    done = repo.cli("reconcile")
    assert (
        "warning: overrides/typo.yaml[0]: OverridePolicy/shop/typo: resourceSelectors match no resource template"
        in done.stderr
    )


def test_a_run_with_nothing_to_do_answers_without_importing_the_engine(tmp_path: Path) -> None:
    """The no-change path (issue 38: at most 0.3 s at fleet M) reads a few git answers and the configuration;
    loading, the run, the diff and the report are not even imported."""
    repo = shop(tmp_path)
    repo.cli("reconcile")
    traced = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitops_karmada", "reconcile"],
                            cwd=repo.path, capture_output=True, text=True, check=True)  # fmt: skip
    assert "up to date: nothing reconcile reads changed" in traced.stdout
    imported = {line.rpartition("|")[2].strip() for line in traced.stderr.splitlines() if "|" in line}
    heavy = {"gitops_karmada.reconcile", "gitops_karmada.core.inputs.loading", "gitops_karmada.core.diff",
             "gitops_karmada.usecases.reconcile", "gitops_karmada.cli.output", "gitops_karmada.adapters.repository"}  # fmt: skip
    assert not heavy & imported, heavy & imported
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.commit("scale web")
    assert "committed" in repo.cli("reconcile").stdout, "with something to do, the same verb runs"
