"""``completion bash|zsh|fish``, and completion of references, namespaces, clusters, policies and binding
names from the records of the last reconcile, answered without importing the verbs."""

from __future__ import annotations

import os
import pprint
import shutil
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.cli import cli
from gitops_karmada.cli.completion import COMPLETE_VAR, KIND_WORDS, command_shapes
from gitops_karmada.cli.completion_shapes import SHAPES
from gitops_karmada.core.views.listing import KIND_ALIASES
from tests.action.scenarios import REPO_LAYOUT
from tests.builders import deployment
from tests.cli.test_reconcile import shop
from tests.clirun import cli_in_process
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def _complete(cwd: Path, words: str) -> list[str]:
    """What bash completion offers for the last word of ``words`` (click's bash_complete protocol)."""
    env = {
        "_GITOPS_KARMADA_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    done = cli_in_process(cwd, [], env)
    assert done.returncode == 0, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]  # "type,value" lines


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_script_for_each_shell(tmp_path: Path, shell: str) -> None:
    done = cli_in_process(tmp_path, ["completion", shell])
    assert done.returncode == 0, done.stderr
    assert "_GITOPS_KARMADA_COMPLETE" in done.stdout


def test_template_references_complete_from_the_last_reconcile(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    assert _complete(repo.path, "gitops-karmada explain dep") == [], "nothing reconciled yet: nothing offered"
    repo.cli("reconcile")
    assert _complete(repo.path, "gitops-karmada explain dep") == ["Deployment.apps/shop/web"]
    assert _complete(repo.path, "gitops-karmada history ConfigMap/") == ["ConfigMap/shop/settings"]
    assert _complete(repo.path, "gitops-karmada reschedule ") == [
        "ConfigMap/shop/settings",
        "Deployment.apps/shop/web",
    ]
    elsewhere = f"gitops-karmada explain --repo {repo.path} Dep"
    assert _complete(tmp_path, elsewhere) == ["Deployment.apps/shop/web"]
    assert "history" in _complete(repo.path, "gitops-karmada hi")


# -- completion from the records, without importing the verbs (issue 33) ----------------------------------


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> FleetRepo:
    path = tmp_path_factory.mktemp("example") / "fleet"
    shutil.copytree(REPO_LAYOUT, path)
    repo = FleetRepo.create(path)
    repo.cli("reconcile")
    return repo


@pytest.mark.parametrize(
    ("words", "offered"),
    [
        ("gitops-karmada explain Deployment/shop/", ["Deployment/shop/cart", "Deployment/shop/frontend",
                                                    "Deployment/shop/payments"]),
        ("gitops-karmada history deployment.apps/default/", ["Deployment.apps/default/nginx"]),
        ("gitops-karmada get q", ["quota", "quotas"]),
        ("gitops-karmada get rb -n ", ["analytics", "default", "shop"]),
        ("gitops-karmada get rb -n shop c", ["cart-deployment", "cart-service"]),
        ("gitops-karmada get crb ", ["analytics-namespace", "flinkdeployments.flink.apache.org-customresourcedefinition",
                                     "shop-namespace"]),
        ("gitops-karmada get pp -A ", ["cart", "flink", "frontend", "nginx-pp", "payments", "shop-shared"]),
        ("gitops-karmada get clusters member", ["member1", "member2", "member3", "member4"]),
        ("gitops-karmada describe pp/", ["pp/analytics/flink", "pp/default/nginx-pp", "pp/shop/cart",
                                         "pp/shop/frontend", "pp/shop/payments", "pp/shop/shop-shared"]),
        ("gitops-karmada describe cpp/", ["cpp/fleet-configmaps", "cpp/fleet-crds"]),
        ("gitops-karmada describe cluster/member", ["cluster/member1", "cluster/member2", "cluster/member3",
                                                   "cluster/member4"]),
        ("gitops-karmada describe Service/shop/", ["Service/shop/cart", "Service/shop/frontend",
                                                   "Service/shop/payments"]),
        ("gitops-karmada simulate --cluster-down ", ["member1", "member2", "member3", "member4"]),
        ("gitops-karmada simulate --taint member1", ["member1:"]),
        ("gitops-karmada simulate --unhealthy Deployment/shop/cart@member", ["Deployment/shop/cart@member1",
                                                                            "Deployment/shop/cart@member2",
                                                                            "Deployment/shop/cart@member3",
                                                                            "Deployment/shop/cart@member4"]),
        ("gitops-karmada collect --cluster member4", ["member4"]),
        ("gitops-karmada get rb --all-n", ["--all-namespaces"]),
    ],
)  # fmt: skip
def test_values_complete_from_the_records_of_the_last_reconcile(
    example: FleetRepo, words: str, offered: list[str]
) -> None:
    assert _complete(example.path, words) == offered


def test_the_records_are_the_last_reconcile_commits_not_the_work_tree(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("gitops-karmada.yaml", "output:\n  clustersDir: out\n  stateDir: records\n")
    repo.commit("another layout")
    repo.cli("reconcile")
    assert _complete(repo.path, "gitops-karmada get rb -n shop ") == ["settings-configmap", "web-deployment"]
    repo.write("apps/api.yaml", deployment("api", "shop", replicas=1))
    repo.commit("a new template, not reconciled yet")
    assert _complete(repo.path, "gitops-karmada explain Deployment/") == ["Deployment/shop/web"]
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(bare))
    assert _complete(tmp_path, f"gitops-karmada simulate --repo {bare} --cluster-down ") == [
        "member1",
        "member2",
        "member3",
    ]


def test_the_shapes_are_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    actual = command_shapes(cli, cli.all_commands())
    if actual != SHAPES:
        with capsys.disabled():
            print(
                "\ngitops_karmada/cli/completion_shapes.py: SHAPES = "
                + pprint.pformat(actual, sort_dicts=False)
            )
    assert actual == SHAPES, "a verb changed: replace SHAPES with the value printed above (then ruff format)"
    assert sorted(KIND_WORDS) == sorted(KIND_ALIASES)


def test_a_tab_takes_under_0_3_s_and_imports_no_verb(example: FleetRepo) -> None:
    words = "gitops-karmada get rb -n "
    env = {**os.environ, COMPLETE_VAR: "bash_complete", "COMP_WORDS": words, "COMP_CWORD": "4"}
    traced = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitops_karmada"], cwd=example.path,
                            env=env, capture_output=True, text=True, check=True)  # fmt: skip
    imported = {line.rpartition("|")[2].strip() for line in traced.stderr.splitlines() if "|" in line}
    heavy = {"pydantic", "loguru", "gitops_karmada.core", "gitops_karmada.reconcile", "gitops_karmada.usecases",
             "gitops_karmada.adapters.git_store", "gitops_karmada.cli.get"}  # fmt: skip
    assert not heavy & imported, heavy & imported
    assert traced.stdout.splitlines() == ["plain,analytics", "plain,default", "plain,shop"]
    times = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gitops_karmada"], cwd=example.path, env=env, capture_output=True,
                       check=True)  # fmt: skip
        times.append(time.perf_counter() - started)
    assert min(times) < 0.3, times
