"""A first reconcile spreads its templates over processes (``GITOPS_KARMADA_WORKERS``), and commits the
very tree one process commits; a bad value is an error that names the variable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.fork_pool import MIN_PER_WORKER
from tests.builders import configmap, cpp_doc
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

SPREAD_LOG = "item(s) over 2 processes"


def _fleet(path: Path) -> FleetRepo:
    files: dict[str, Any] = {"policies/all.yaml": cpp_doc("all", [{"apiVersion": "v1", "kind": "ConfigMap"}])}
    files["apps/configs.yaml"] = [configmap(f"c{i:04}", "default") for i in range(2 * MIN_PER_WORKER)]
    return FleetRepo.create(path, files, clusters=2)


def test_two_processes_commit_the_tree_one_process_commits(tmp_path: Path) -> None:
    trees = {}
    for workers in ("1", "2"):
        repo = _fleet(tmp_path / f"workers-{workers}")
        # forks: a process of its own (the test process runs threads, and must not be forked)
        done = repo.cli_process("--log-level", "debug", "reconcile", env={"GITOPS_KARMADA_WORKERS": workers})
        assert (SPREAD_LOG in done.stderr) is (workers == "2"), done.stderr
        trees[workers] = git(repo.path, "rev-parse", "HEAD^{tree}")

    assert trees["1"] == trees["2"]


def test_a_bad_number_of_processes_is_an_error_that_names_the_variable(tmp_path: Path) -> None:
    repo = _fleet(tmp_path / "fleet")
    before = repo.head()

    done = repo.cli("reconcile", env={"GITOPS_KARMADA_WORKERS": "many"}, check=1)

    assert "error: GITOPS_KARMADA_WORKERS must be a whole number of processes (1 or more), not 'many'" in (
        done.stderr
    )
    assert repo.head() == before
