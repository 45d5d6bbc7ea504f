"""Issue 13: the daemon lists only the subtrees a commit changed, and gets what a full listing gets.

Real repositories: a folder larger than ``SPLIT_ABOVE`` is, once known to be large, listed one level at a
time when it changes, the unchanged subtrees coming from the memo by tree id; the entries and the file
counts must equal those of a whole ``ls-tree`` after every commit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.git_tree import SUBMODULE_MODE, TreeEntry
from gitops_karmada.adapters.subtree_memo import (
    SPLIT_ABOVE,
    TREE_MODE,
    SubtreeMemo,
    entries_below,
    files_below,
)
from tests.gitrepos import commit_all, git, make_repo

if TYPE_CHECKING:
    from pathlib import Path

TEAMS = 4
PER_TEAM = SPLIT_ABOVE // 2  # the teams are small, ``apps`` is large


def _repo(tmp_path: Path) -> Path:
    files = {f"apps/team-{t}/app-{i:03d}.yaml": f"n: {i}\n" for t in range(TEAMS) for i in range(PER_TEAM)}
    files.update({"apps/README.md": "apps\n", "state/index/shop.json": "{}\n", "top.yaml": "a: 1\n"})
    return make_repo(tmp_path / "repo", files)


def _roots(store: GitStore) -> tuple[TreeEntry, ...]:
    return store.list_children("HEAD", [""])


def test_changed_subtrees_are_listed_again_and_the_rest_recalled(tmp_path: Path) -> None:
    path = _repo(tmp_path)
    store = GitStore.open(path)
    memo: SubtreeMemo[tuple[TreeEntry, ...]] = SubtreeMemo()
    changes = [
        {"apps/team-1/app-007.yaml": "n: changed\n"},  # apps known large now: listed level by level
        {"apps/team-2/app-000.yaml": "n: changed\n", "apps/team-2/new.yaml": "new\n"},
        {"state/index/web.json": "{}\n"},
        {},
    ]
    for change in [{}, *changes]:
        if change:
            commit_all(path, change)
        roots = _roots(store)
        whole = store.list_entries("HEAD", [r.path for r in roots])
        assert entries_below(store, "HEAD", roots, memo) == whole
        assert all(
            made == tuple(e for e in whole if e.path.startswith(subtree + "/"))
            for (subtree, _oid), (_count, made) in memo.made.items()
        )
    team_0 = git(path, "rev-parse", "HEAD:apps/team-0")
    # team-0 never changed: its listing is kept by its tree id since apps was split
    assert ("apps/team-0", team_0) in memo.made
    assert ("apps", git(path, "rev-parse", "HEAD:apps")) in memo.made


def test_a_tree_not_in_the_walk_is_forgotten(tmp_path: Path) -> None:
    path = _repo(tmp_path)
    store = GitStore.open(path)
    memo: SubtreeMemo[tuple[TreeEntry, ...]] = SubtreeMemo()
    entries_below(store, "HEAD", _roots(store), memo)
    git(path, "rm", "-q", "-r", "state")
    commit_all(path, {})
    entries_below(store, "HEAD", _roots(store), memo)
    assert {subtree for subtree, _oid in memo.made} == {"apps"}


def test_file_counts_equal_a_whole_listing(tmp_path: Path) -> None:
    path = _repo(tmp_path)
    store = GitStore.open(path)
    memo: SubtreeMemo[int] = SubtreeMemo()
    for change in [{}, {"apps/team-3/more.yaml": "m\n"}, {"apps/team-0/more.yaml": "m\n"}]:
        if change:
            commit_all(path, change)
        trees = [e for e in _roots(store) if e.mode == TREE_MODE]
        counts = files_below(store, "HEAD", trees, memo)
        for tree in trees:
            listed = store.list_entries("HEAD", [tree.path])
            assert counts[tree.path] == sum(1 for e in listed if e.mode != SUBMODULE_MODE)


def test_counts_from_the_listing_bytes_follow_gits_order_and_leave_submodules_out(tmp_path: Path) -> None:
    """A first walk counts whole trees from the listing's bytes: sibling folders whose names sort differently
    as paths and as trees (``a-b``, ``a.d`` and ``a``), a file whose name holds a TAB, and a submodule."""
    files = {"a/x.yaml": "1\n", "a/deep/y.yaml": "2\n", "a-b/z.yaml": "3\n", "a.d/w.yaml": "4\n"}
    files.update({"a/tab\there.yaml": "5\n", "b/only.yaml": "6\n"})
    path = make_repo(tmp_path / "repo", files)
    head = git(path, "rev-parse", "HEAD")
    git(path, "update-index", "--add", "--cacheinfo", f"{SUBMODULE_MODE},{head},a/sub")
    git(path, "commit", "-q", "-m", "a submodule")
    store = GitStore.open(path)
    trees = [e for e in _roots(store) if e.mode == TREE_MODE]

    counts = files_below(store, "HEAD", trees, SubtreeMemo())

    assert counts == {"a": 3, "a-b": 1, "a.d": 1, "b": 1}
