"""GitStore.read_file: one path of one commit, without listing the tree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from tests.gitrepos import commit_all, make_repo

if TYPE_CHECKING:
    from pathlib import Path


def test_read_file_returns_the_committed_content_not_the_work_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"gitops-karmada.yaml": "a: 1\n", "dir/x.yaml": "b: 2\n"})
    first = commit_all(repo, {"gitops-karmada.yaml": "a: 2\n"})
    (repo / "gitops-karmada.yaml").write_text("a: uncommitted\n")
    store = GitStore.open(repo)
    assert store.read_file("HEAD", "gitops-karmada.yaml") == b"a: 2\n"
    assert store.read_file(f"{first}~1", "gitops-karmada.yaml") == b"a: 1\n"


def test_read_file_is_none_for_missing_paths_and_folders(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"dir/x.yaml": "b: 2\n"})
    store = GitStore.open(repo)
    assert store.read_file("HEAD", "absent.yaml") is None
    assert store.read_file("HEAD", "dir") is None
