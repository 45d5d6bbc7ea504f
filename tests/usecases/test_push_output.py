"""The source branch goes to its remote in the same atomic push as that remote's output shards: after the
push both are there, and a rejected source branch (the remote moved on) leaves every branch of that remote as
it was and is a temporary error (fetch, re-render, retry)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.shard_store import recorded_shards
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.model.errors import GitError
from gitops_karmada.usecases.reconcile import push_branch, reconcile_rev
from tests.builders import configmap
from tests.cli.test_lifecycle_fleet import shop_fleet
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

LAYOUT = RepoLayout.of(ToolConfig.model_validate({"output": {"mode": "branch-per-cluster"}}))


def _sharded_fleet_with_origin(tmp_path: Path) -> tuple[FleetRepo, GitStore, Path]:
    repo = shop_fleet(tmp_path)
    repo.write("gitops-karmada.yaml", "apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\n"
               "output:\n  mode: branch-per-cluster\n")  # fmt: skip
    repo.commit("a branch per cluster")
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(repo.path, "remote", "add", "origin", str(origin))
    git(repo.path, "push", "-q", "-u", "origin", "main")
    return repo, GitStore.open(repo.path), origin


def _branches(bare: Path) -> dict[str, str]:
    listed = git(bare, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
    return dict(line.split(" ") for line in listed.splitlines())


def test_the_source_branch_and_its_shards_arrive_together(tmp_path: Path) -> None:
    _repo, store, origin = _sharded_fleet_with_origin(tmp_path)
    done = reconcile_rev(store, "main", push=True)
    assert done.pushed and done.commit is not None
    record = recorded_shards(store, done.commit, LAYOUT)
    assert record is not None and record.shards
    pushed = _branches(origin)
    assert pushed["main"] == done.commit
    for recorded in record.shards:
        assert pushed[recorded.shard.branch] == recorded.commit, recorded.shard.name


def test_a_rejected_source_branch_pushes_no_shard(tmp_path: Path) -> None:
    repo, store, origin = _sharded_fleet_with_origin(tmp_path)
    assert reconcile_rev(store, "main", push=True).pushed
    before = _branches(origin)
    # someone else pushes to main meanwhile
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", "-b", "main", str(origin), str(other))
    (other / "notes.md").write_text("a note\n")
    git(other, "add", "notes.md")
    git(other, "-c", "user.name=o", "-c", "user.email=o@o", "commit", "-q", "-m", "a note")
    git(other, "push", "-q", "origin", "main")
    moved = _branches(origin)
    repo.write("apps/extra.yaml", configmap("extra", "shop"))
    repo.commit("a ConfigMap more: every shard changes")
    done = reconcile_rev(store, "main")
    assert done.commit is not None and done.shards
    with pytest.raises(GitError) as raised:
        push_branch(store, "refs/heads/main", "origin", "main", done.shards)
    assert raised.value.temporary, raised.value
    assert "moved on" in str(raised.value)
    assert _branches(origin) == moved, "all or none: no shard branch moved"
    assert {b: c for b, c in moved.items() if b != "main"} == {b: c for b, c in before.items() if b != "main"}
