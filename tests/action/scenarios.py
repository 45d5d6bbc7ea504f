"""Pull-request scenarios on the bundled example fleet: a reconciled ``main`` and one change on a branch.

The fleet is ``repo-layout/`` plus a Secret (so that masking is exercised on real output), committed and
reconciled once per test module; each scenario clones it, edits files on branch ``feature`` and commits.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

ROOT = Path(__file__).resolve().parents[2]
REPO_LAYOUT = ROOT / "repo-layout"
SECRET_VALUE = "czNjcjN0LXBhc3N3b3JkLTQ4MTU="  # base64 of "s3cr3t-password-4815"
NEW_SECRET_VALUE = "bjN3LXBhc3N3b3JkLTE2MjM0Mg=="  # base64 of "n3w-password-162342"
SECRET_VALUES = (
    SECRET_VALUE,
    NEW_SECRET_VALUE,
    "s3cr3t-password-4815",
    "n3w-password-162342",
    "tok-2b7e1516",
)

DB_SECRET: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {
        "name": "db-credentials",
        "namespace": "shop",
        "labels": {"app.kubernetes.io/part-of": "shop"},
    },
    "type": "Opaque",
    "data": {"username": "c2hvcA==", "password": SECRET_VALUE},
}
SECRETS_POLICY: dict[str, Any] = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "shop-secrets", "namespace": "shop"},
    "spec": {
        "resourceSelectors": [{"apiVersion": "v1", "kind": "Secret", "name": "db-credentials"}],
        "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
    },
}


@contextlib.contextmanager
def isolated_git(home: Path) -> Iterator[None]:
    """The test-wide Git isolation of ``tests/conftest.py``, for fixtures wider than one test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        patch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        for variable in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            patch.delenv(variable, raising=False)
        patch.setenv("GIT_AUTHOR_NAME", "Test Author")
        patch.setenv("GIT_AUTHOR_EMAIL", "author@example.test")
        patch.setenv("GIT_COMMITTER_NAME", "Test Committer")
        patch.setenv("GIT_COMMITTER_EMAIL", "committer@example.test")
        yield


def build_fleet(path: Path) -> FleetRepo:
    """repo-layout/ plus the shop's database Secret, committed on ``main`` and reconciled."""
    shutil.copytree(REPO_LAYOUT, path)
    repo = FleetRepo(path)
    git(path, "init", "-q", "-b", "main")
    repo.write("apps/shop/db-credentials.yaml", DB_SECRET)
    repo.write("policies/shop-secrets.yaml", SECRETS_POLICY)
    repo.commit("fleet")
    repo.cli("reconcile")
    return repo


def clone_fleet(template: Path, path: Path) -> FleetRepo:
    """A clone of the reconciled fleet (``origin`` is the template) on a new branch ``feature``."""
    git(template.parent, "clone", "-q", str(template), str(path))
    git(path, "checkout", "-q", "-b", "feature")
    return FleetRepo(path)


# -- edits ---------------------------------------------------------------------------------------------


def edit_yaml(repo: FleetRepo, name: str, change: Callable[[list[Any]], None]) -> None:
    """Load every document of ``name``, let ``change`` edit them, write them back."""
    documents = [d for d in yaml.safe_load_all(repo.read(name)) if d is not None]
    change(documents)
    repo.write(name, dump_yaml_documents(documents))


def change_weight(repo: FleetRepo) -> None:
    """frontend: member1's static weight 2 → 1 (8 replicas over three clusters 1:1:1)."""

    def change(documents: list[Any]) -> None:
        weights = documents[0]["spec"]["placement"]["replicaScheduling"]["weightPreference"][
            "staticWeightList"
        ]
        weights[0]["weight"] = 1

    edit_yaml(repo, "policies/shop.yaml", change)


def taint_cluster(repo: FleetRepo) -> None:
    """member3 gets a NoSchedule taint for maintenance (Karmada keeps what is already there)."""

    def change(documents: list[Any]) -> None:
        documents[0]["spec"]["taints"] = [{"key": "maintenance", "value": "planned", "effect": "NoSchedule"}]

    edit_yaml(repo, "clusters-inventory/member3.yaml", change)


def untaint_cluster(repo: FleetRepo) -> None:
    """The GPU cluster member4 loses its taint: the fleet-wide objects spread to it."""

    def change(documents: list[Any]) -> None:
        del documents[0]["spec"]["taints"]

    edit_yaml(repo, "clusters-inventory/member4.yaml", change)


def add_policy(repo: FleetRepo) -> None:
    """A new checkout service and its policy: Duplicated on the two AWS clusters."""
    repo.write(
        "apps/shop/checkout.yaml",
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "checkout", "namespace": "shop", "labels": {"app": "checkout"}},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "checkout"}},
                "template": {
                    "metadata": {"labels": {"app": "checkout"}},
                    "spec": {
                        "containers": [
                            {"name": "checkout", "image": "registry.example.com/shop/checkout:0.9.0"}
                        ]
                    },
                },
            },
        },
    )
    repo.write(
        "policies/checkout.yaml",
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": "checkout", "namespace": "shop"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "checkout"}],
                "placement": {
                    "clusterAffinity": {
                        "fieldSelector": {
                            "matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws"]}]
                        }
                    },
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            },
        },
    )


def change_override(repo: FleetRepo) -> None:
    """The GCP registry mirror moves to another host."""

    def change(documents: list[Any]) -> None:
        documents[0]["spec"]["overrideRules"][0]["overriders"]["imageOverrider"][0]["value"] = (
            "mirror.europe.example.com"
        )

    edit_yaml(repo, "overrides/shop.yaml", change)


def change_secret(repo: FleetRepo) -> None:
    """The database password rotates, the username goes, an API token is added."""
    secret = {**DB_SECRET, "data": {"password": NEW_SECRET_VALUE, "api-token": "dG9rLTJiN2UxNTE2"}}
    secret["stringData"] = {"note": "tok-2b7e1516"}
    repo.write("apps/shop/db-credentials.yaml", secret)


def exceed_quota(repo: FleetRepo) -> None:
    """The Flink job asks for 20 TaskManagers: more than the analytics FederatedResourceQuota allows."""

    def change(documents: list[Any]) -> None:
        documents[0]["spec"]["taskManager"]["replicas"] = 20

    edit_yaml(repo, "apps/analytics/flink.yaml", change)


def annotate_everything(repo: FleetRepo) -> None:
    """A ClusterOverridePolicy that stamps 400 annotations on every Deployment and ConfigMap: a huge diff."""
    annotations = {
        f"audit.example.com/check-{i:03d}": f"passed-2026-01-{1 + i % 28:02d}-run-{i:05d}" for i in range(400)
    }
    repo.write(
        "overrides/audit.yaml",
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterOverridePolicy",
            "metadata": {"name": "audit-stamps"},
            "spec": {
                "resourceSelectors": [
                    {"apiVersion": "apps/v1", "kind": "Deployment"},
                    {"apiVersion": "v1", "kind": "ConfigMap"},
                ],
                "overrideRules": [
                    {"overriders": {"annotationsOverrider": [{"operator": "add", "value": annotations}]}}
                ],
            },
        },
    )


SCENARIOS: dict[str, Callable[[FleetRepo], None]] = {
    "weight-change": change_weight,
    "cluster-taint": taint_cluster,
    "cluster-untaint": untaint_cluster,
    "new-policy": add_policy,
    "override-change": change_override,
    "secret-change": change_secret,
    "quota-blocked": exceed_quota,
    "far-over-budget": annotate_everything,
}
