"""Issue 11: no hang, no lost output, no silent skip, under hostile input and faults (CLI, real repos).

The Lua sandbox cases live beside the sandbox (tests/core/interpreter, tests/cli/test_interpreters.py) and
the GitHub client's token handling beside the client (tests/action).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from gitops_karmada.adapters import git_work_tree
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.git_work_tree import JOURNAL_NAME
from tests.adapters.test_git_store_crash import assert_converged, kill_after_ref_update
from tests.builders import configmap, cpp_doc, deployment
from tests.cli.test_reconcile import shop
from tests.clirun import cli_in_process
from tests.fleet import FleetRepo
from tests.gitrepos import git, make_repo, status

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

ROOT_DIR_FILES = {
    "clusters/member1/old.yaml": "stale\n",
    "clusters/member1/web.yaml": "replicas: 1\n",
    "README.md": "r\n",
}


def cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli_in_process(repo, args, {"COLUMNS": "200"})


# -- item 1: a rerun always finishes an interrupted work-tree update ------------------------------------------


def test_a_rerun_with_nothing_to_commit_finishes_the_sync_a_killed_run_left(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ROOT_DIR_FILES)
    kill_after_ref_update(repo)  # the branch moved; the index and files still show the old commit
    flagged = cli(repo, "verify")
    assert flagged.returncode == 1
    assert (
        "work-tree    clusters/member1/old.yaml: an earlier run was killed before the work tree"
        in flagged.stdout
    )
    done = cli(repo, "reconcile")
    assert done.returncode == 0, done.stderr
    assert "up to date: no commit needed" in done.stdout
    assert_converged(repo, GitStore.open(repo))
    assert not (repo / ".git" / JOURNAL_NAME).exists()
    # the user's next unrelated commit no longer reverts the reconciler's files
    (repo / "notes.txt").write_text("n\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-m", "unrelated")
    assert git(repo, "show", "HEAD:clusters/member1/web.yaml") == "replicas: 5"


def test_verify_flags_an_uncommitted_edit_of_a_managed_file(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    target = "clusters/member1/shop/deployment.apps/web.yaml"
    repo.write(target, repo.read(target).replace("replicas: 3", "replicas: 4"))
    done = repo.cli("verify", check=1)
    assert f"work-tree    {target}: differs from the commit in the work tree or index" in done.stdout
    assert status(repo.path) == [f" M {target}"]


# -- item 7: clear messages for locks, skipped symlinks, and what a commit deletes -------------------------------


def _pending_change(tmp_path: Path) -> FleetRepo:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.commit("scale web")
    return repo


def test_a_stale_index_lock_is_named_with_the_command_that_removes_it(tmp_path: Path) -> None:
    repo = _pending_change(tmp_path)
    lock = repo.path / ".git" / "index.lock"
    lock.write_text("")
    head = repo.head()
    done = repo.cli("reconcile", check=1)
    assert f"{lock} exists but no process holds it" in done.stderr
    assert f"remove it (rm {lock}) and rerun" in done.stderr
    assert repo.head() == head
    lock.unlink()
    repo.cli("reconcile")
    assert status(repo.path) == []


def test_a_held_index_lock_says_to_wait_not_to_remove_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the run waits out a held lock before it gives up: a shorter wait than a real run's ten seconds
    monkeypatch.setattr(git_work_tree, "LOCK_WAIT_SECONDS", 0.5)
    repo = _pending_change(tmp_path)
    lock = repo.path / ".git" / "index.lock"
    with lock.open("w"):
        done = repo.cli("reconcile", check=1)
    assert f"process {os.getpid()} holds {lock}" in done.stderr
    assert "rm " not in done.stderr
    lock.unlink()


def test_two_concurrent_reconciles_make_one_commit_and_the_loser_says_why(tmp_path: Path) -> None:
    repo = _pending_change(tmp_path)
    before = repo.commit_count()
    env = {**os.environ, "COLUMNS": "200"}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitops_karmada", "reconcile"],
            cwd=repo.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(run.wait(timeout=120), run.communicate()) for run in runs]
    assert repo.commit_count() == before + 1
    assert status(repo.path) == []
    for code, (_, stderr) in results:
        if code != 0:
            assert "uncommitted changes" not in stderr, stderr
            # the winner's commit moved the branch, or its git commands held the index lock
            assert "refs/heads/main moved to" in stderr or "held" in stderr or "holds" in stderr, stderr


def test_a_symlinked_input_file_is_named_not_silently_skipped(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    (repo.path / "apps/elsewhere.yaml").symlink_to("/etc/hostname")
    repo.commit("a symlinked template")
    done = repo.cli("validate")
    assert (
        "warning: apps/elsewhere.yaml[0]: symbolic link: its target is not read (it may point outside the "
        "repository); not read (commit the file itself, or exclude it)"
    ) in done.stderr
    assert "symbolic link" in repo.cli("validate", "--worktree").stderr


def test_a_committed_symlink_in_place_of_a_cluster_folder_is_never_replaced(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/config.yaml": configmap("settings", "shop"),
            "policies/all.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
        },
        clusters=2,
    )
    (repo.path / "clusters").mkdir()
    (repo.path / "clusters/member2").symlink_to("../elsewhere")
    repo.commit("member2 is synced from elsewhere")
    done = repo.cli("reconcile")
    assert "clusters/member2 is a file or symbolic link gitops-karmada did not write" in done.stderr
    assert git(repo.path, "ls-tree", "HEAD", "clusters/member2").startswith("120000 blob")
    assert "clusters/member1/shop/configmap/settings.yaml" in repo.tree("clusters")
    message = git(repo.path, "log", "-1", "--format=%B")
    assert ", 0 deleted" in message


# -- item 6: validate catches what reconcile refuses, at the document to fix -----------------------------------


def _bad_override(clusters: list[str]) -> dict[str, object]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "bad", "namespace": "shop"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "overrideRules": [
                {"targetCluster": {"clusterNames": ["member3"]}, "overriders": {"labelsOverrider": []}},
                {
                    "targetCluster": {"clusterNames": clusters},
                    "overriders": {
                        "plaintext": [{"path": "/spec/nothere/x", "operator": "replace", "value": 1}]
                    },
                },
            ],
        },
    }


def test_a_plaintext_override_with_a_bad_path_is_reported_at_the_override_for_the_right_clusters(
    tmp_path: Path,
) -> None:
    repo = shop(tmp_path)
    repo.write("overrides/bad.yaml", _bad_override(["member2"]))
    repo.commit("bad override for member2")
    done = repo.cli("validate", check=1)
    assert (
        "error: overrides/bad.yaml[0] spec.overrideRules[1].overriders.plaintext[0]: cannot override "
        "Deployment.apps/shop/web (from apps/web.yaml[0]) for cluster 'member2' at /spec/nothere/x: replace "
        "operation does not apply"
    ) in done.stderr
    assert "member1" not in done.stderr
    repo.write("overrides/bad.yaml", _bad_override(["member1", "member2"]))
    repo.commit("bad override for both")
    both = repo.cli("validate", check=1)
    assert "for clusters 'member1', 'member2' at /spec/nothere/x" in both.stderr
    assert both.stderr.count("cannot override") == 1


# -- item 4: inputs that used to crash with a traceback ---------------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_a_clear_error_everywhere(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    base = repo.head()
    # a POSIX file name is bytes: Path keeps an undecodable byte as a surrogate and writes it back as is
    name = repo.path / os.fsdecode(b"apps/caf\xe9.yaml")
    name.write_text(repo.read("apps/web.yaml").replace("name: web", "name: cafe"))
    repo.commit("a Latin-1 file name")
    expected = "apps/caf\\xe9.yaml[0]: the file name is not valid UTF-8; rename it"
    for args in (("reconcile",), ("render",), ("validate",), ("verify",)):
        done = repo.cli(*args, check=1)
        assert expected in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    diffed = repo.cli("diff", "--base", base, "--head", "HEAD", check=None)
    assert diffed.returncode not in (0, 1) and "Traceback" not in diffed.stderr
    assert expected in diffed.stdout + diffed.stderr


def test_a_template_nested_deeper_than_the_bound_is_an_error_not_a_recursion_crash(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write(
        "apps/deep.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x: "
        + "[" * 600
        + "]" * 600
        + "\n",
    )
    repo.commit("deep")
    done = repo.cli("reconcile", check=1)
    assert "apps/deep.yaml[0]: line 5 column 132: nested more than 128 levels deep" in done.stderr
    assert "Traceback" not in done.stderr
