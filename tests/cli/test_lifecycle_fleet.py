"""The fleet the lifecycle tests share (rollback, history, verify, trace), and its own sanity check.

Setup commits and reconciles run in-process (fast); the command under test runs through the real CLI.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.usecases.reconcile import reconcile_ref
from tests.builders import configmap, cpp_doc, deployment, pp_doc
from tests.fleet import FleetRepo
from tests.gitrepos import tree_files

if TYPE_CHECKING:
    from pathlib import Path

WEB = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]
WEB_PATH = "clusters/{cluster}/shop/deployment.apps/web.yaml"
WEB_RECORD = "karmada-state/bindings/shop/deployment.apps/web.yaml"
MANAGED = ("clusters/", "karmada-state/")


def web_policy(weights: dict[str, int]) -> dict[str, Any]:
    """Deployment web divided over the named clusters by static weights."""
    return pp_doc(
        "web",
        "shop",
        WEB,
        placement={
            "clusterAffinity": {"clusterNames": sorted(weights)},
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": [name]}, "weight": weight}
                        for name, weight in sorted(weights.items())
                    ]
                },
            },
        },
    )


EU_LABEL = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "OverridePolicy",
    "metadata": {"name": "eu-label", "namespace": "shop"},
    "spec": {
        "resourceSelectors": WEB,
        "overrideRules": [
            {
                "targetCluster": {"clusterNames": ["member2"]},
                "overriders": {"labelsOverrider": [{"operator": "add", "value": {"region": "eu"}}]},
            }
        ],
    },
}


def shop_fleet(tmp_path: Path, *, reconciled: bool = True) -> FleetRepo:
    """Three clusters; Deployment web (4 replicas, 3:1 on member1/member2, labelled on member2); a ConfigMap
    everywhere."""
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/web.yaml": deployment("web", "shop", replicas=4),
            "apps/settings.yaml": configmap("settings", "shop"),
            "policies/web.yaml": web_policy({"member1": 3, "member2": 1}),
            "policies/configs.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
            "overrides/eu.yaml": EU_LABEL,
        },
        clusters=3,
    )
    if reconciled:
        reconcile(repo)
    return repo


def reconcile(repo: FleetRepo, *, failing: bool = False) -> str | None:
    """Reconcile the branch in-process; the reconcile commit, or None when nothing changed.

    Every template must succeed unless ``failing`` says a template is expected to fail.
    """
    outcome = reconcile_ref(GitStore.open(repo.path), "refs/heads/main")
    if outcome.up_to_date is not None:
        assert not failing
        return None
    assert outcome.result is not None
    assert outcome.result.input_ok, outcome.result.diagnostics
    assert bool(outcome.result.failed_templates) == failing, outcome.result.diagnostics
    return outcome.commit


def change(
    repo: FleetRepo, files: dict[str, Any], message: str, *, reconciled: bool = True, failing: bool = False
) -> str:
    """Commit ``files`` (and reconcile): the input commit's id."""
    for name, content in files.items():
        repo.write(name, content)
    source = repo.commit(message)
    if reconciled:
        reconcile(repo, failing=failing)
    return source


def managed_blobs(repo: FleetRepo, rev: str = "HEAD") -> dict[str, str]:
    """path → blob id of the cluster and state folders at ``rev`` (equal ids: byte-equal files)."""
    return {p: oid for p, oid in tree_files(repo.path, rev).items() if p.startswith(MANAGED)}


def input_blobs(repo: FleetRepo, rev: str = "HEAD") -> dict[str, str]:
    return {p: oid for p, oid in tree_files(repo.path, rev).items() if not p.startswith(MANAGED)}


def test_the_fleet_divides_web_by_weight_and_verifies_clean(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    assert repo.load(WEB_PATH.format(cluster="member1"))["spec"]["replicas"] == 3
    assert repo.load(WEB_PATH.format(cluster="member2"))["spec"]["replicas"] == 1
    assert not repo.exists(WEB_PATH.format(cluster="member3"))
    done = repo.cli("verify", "-o", "json")
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert report["failures"] == []
    assert report["lastReconcile"] == repo.head()
