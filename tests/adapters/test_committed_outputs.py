"""``CommittedOutputs``: the cluster folders of a commit, looked up path by path, agree with a full listing.

Real repositories: plain files, a symbolic link, a submodule entry, stray files at shallow depths, and paths
with spaces, non-ASCII and a newline. Every lookup, the shallow files and the per-cluster counts must equal
what one ``ls-tree -r`` of the folder says.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters import committed_outputs, git_tree
from gitops_karmada.adapters.committed_outputs import CommittedOutputs
from gitops_karmada.adapters.git_path_lookup import PathLookup
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.git_tree import EntryKind
from gitops_karmada.adapters.subtree_memo import ShallowMemo
from tests.gitrepos import git, make_repo

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from gitops_karmada.adapters.git_tree import TreeEntry

FILES = {
    "clusters/member1/shop/deployment.apps/web.yaml": "a: 1\n",
    "clusters/member1/shop/service/web.yaml": "b: 1\n",
    "clusters/member1/_cluster/namespace/shop.yaml": "c: 1\n",
    "clusters/member2/shop/deployment.apps/web.yaml": "a: 2\n",
    "clusters/member2/shop/deployment.apps/with space é.yaml": "d: 1\n",
    "clusters/member2/shop/deployment.apps/new\nline.yaml": "e: 1\n",
    "clusters/member2/stray.txt": "a file where a namespace folder would be\n",
    "clusters/member3/shop": "a file where a folder would be\n",
    "clusters/README.md": "hand-written\n",
    "clusters-not/member1/x.yaml": "not under the folder\n",
    "apps/web.yaml": "kind: Deployment\n",
}


@pytest.fixture
def store(tmp_path: Path) -> GitStore:
    repo = make_repo(
        tmp_path / "repo", FILES, symlinks={"clusters/member4/shop/deployment.apps/link.yaml": "../../x"}
    )
    other = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{other},clusters/member5/sub")
    git(repo, "commit", "-q", "-m", "submodule")
    return GitStore.open(repo)


def _listed(store: GitStore) -> dict[str, str]:
    entries = store.list_entries("HEAD", ["clusters"])
    return {e.path: e.oid for e in entries if e.kind is not EntryKind.SUBMODULE}


def test_lookups_agree_with_the_listing(store: GitStore) -> None:
    listed = _listed(store)
    outputs = CommittedOutputs(store, store.resolve("HEAD"), "clusters")
    for path, oid in listed.items():
        assert outputs.get(path) == oid, path
        assert path in outputs
    for absent in (
        "clusters/member1",  # a folder
        "clusters/member5/sub",  # a submodule
        "clusters/member1/shop/deployment.apps/gone.yaml",
        "clusters-not/member1/x.yaml",  # outside the folder
        "apps/web.yaml",
        "./clusters/README.md",
    ):
        assert absent not in outputs, absent
        assert outputs.get(absent) is None
    assert dict(outputs) == listed  # iterating lists the folder once
    outputs.close()


def test_shallow_files_and_counts_agree_with_the_listing(store: GitStore) -> None:
    listed = _listed(store)
    lazy = CommittedOutputs(store, store.resolve("HEAD"), "clusters")
    assert lazy.shallow(4) == {p for p in listed if p.count("/") < 4}
    assert lazy.shallow(4) == {"clusters/README.md", "clusters/member2/stray.txt", "clusters/member3/shop"}
    expected = Counter(p.removeprefix("clusters/").partition("/")[0] for p in listed)
    assert lazy.counts() == dict(expected)
    assert expected["member2"] == 4 and "member5" not in expected and expected["README.md"] == 1
    lazy.listing()
    assert lazy.counts() == dict(expected)  # from the listing once it is there


def test_shallow_files_kept_by_tree_id_follow_each_commit(
    store: GitStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process's memo answers as a fresh listing does, commit after commit, and is left holding
    only what the last commit has; an unchanged folder is not listed again."""
    assert store.work_tree is not None
    repo = store.work_tree
    memo = ShallowMemo()
    steps: list[tuple[dict[str, str], list[str]]] = [
        ({}, []),
        ({"clusters/member1/shop/service/web.yaml": "b: 2\n"}, []),  # a manifest changed: nothing shallow
        ({"clusters/member1/stray.txt": "x\n", "clusters/member6/ns/k/a.yaml": "a\n"}, []),
        ({}, ["clusters/member2/stray.txt", "clusters/member3/shop"]),
    ]
    for written, removed in steps:
        for path, text in written.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        if removed:
            git(repo, "rm", "-q", *removed)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", "step")
        head = store.resolve("HEAD")
        listed = _listed(store)
        warm = CommittedOutputs(store, head, "clusters").shallow(4, memo)
        assert warm == {p for p in listed if p.count("/") < 4}
        trees = {(e.path, e.oid) for e in store.list_children(head, ["clusters"])}
        assert {key[0] for key in memo.below if key[0].count("/") == 1} <= {path for path, _ in trees}
        assert {key for key in memo.below if key[0].count("/") == 1} <= trees
    assert "clusters/member1/stray.txt" in warm and "clusters/member2/stray.txt" not in warm
    calls: list[list[str]] = []
    listing = GitStore.list_children

    def counted(self: GitStore, rev: str, folders: Sequence[str]) -> tuple[TreeEntry, ...]:
        calls.append(list(folders))
        return listing(self, rev, folders)

    monkeypatch.setattr(GitStore, "list_children", counted)
    CommittedOutputs(store, store.resolve("HEAD"), "clusters").shallow(4, memo)
    assert calls == [["clusters"]]  # every folder below is known by its tree id


def test_many_lookups_switch_to_one_listing(store: GitStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(committed_outputs, "LISTING_AFTER", 2)
    outputs = CommittedOutputs(store, store.resolve("HEAD"), "clusters")
    listed = _listed(store)
    assert [outputs.get(p) for p in listed] == list(listed.values())
    assert outputs._listing is not None


def test_a_nested_folder_and_an_empty_one(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"out/clusters/m1/ns/k/a.yaml": "a\n", "out/other.yaml": "o\n"})
    store = GitStore.open(repo)
    nested = CommittedOutputs(store, store.resolve("HEAD"), "out/clusters")
    assert nested.get("out/clusters/m1/ns/k/a.yaml") == git(
        repo, "rev-parse", "HEAD:out/clusters/m1/ns/k/a.yaml"
    )
    assert nested.counts() == {"m1": 1}
    assert nested.shallow(5) == frozenset()
    missing = CommittedOutputs(store, store.resolve("HEAD"), "clusters")
    assert missing.counts() == {} and missing.shallow(4) == frozenset() and dict(missing) == {}


def test_a_commit_without_the_folder_answers_every_lookup_from_one_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run asks about every path it writes: with no folder in the commit the answer is known after one
    lookup of the folder itself, so no path is asked one by one and no listing is made."""
    repo = make_repo(tmp_path / "repo", {"apps/web.yaml": "kind: Deployment\n", "clusters-not/x.yaml": "x\n"})
    store = GitStore.open(repo)
    outputs = CommittedOutputs(store, store.resolve("HEAD"), "clusters")
    asked: list[str] = []
    original = PathLookup.entry

    def counted(self: PathLookup, path: str) -> tuple[str, str] | None:
        asked.append(path)
        return original(self, path)

    monkeypatch.setattr(PathLookup, "entry", counted)
    monkeypatch.setattr(GitStore, "list_tree_raw", lambda *_: pytest.fail("listed the folder"))
    paths = [f"clusters/m{i}/ns/deployment.apps/web.yaml" for i in range(50)]
    assert not any(p in outputs for p in paths)
    assert outputs.get("clusters/m1/ns/deployment.apps/web.yaml") is None
    assert asked == ["clusters"]
    assert dict(outputs) == {} and outputs.counts() == {}


def test_the_listing_parsed_chunk_by_chunk_is_the_listing(
    store: GitStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records split across chunks of every size, each distinct blob id one string."""
    raw = store.list_tree_raw("HEAD", "clusters/")
    expected = _listed(store)
    for chunk in (1, 7, 64, len(raw), 1 << 20):
        monkeypatch.setattr(git_tree, "_CHUNK", chunk)
        assert git_tree.parse_ls_tree_ids(raw) == expected, chunk
    ids = git_tree.parse_ls_tree_ids(raw + raw.replace(b"\tclusters/", b"\tclusters/again/"))
    assert all(ids[p] is ids["clusters/again/" + p.removeprefix("clusters/")] for p in expected)
