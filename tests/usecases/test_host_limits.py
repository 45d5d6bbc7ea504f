"""``usecases.host_limits``: the folders a run touches, listed one level each or from one listing of the
managed folders, give the same entries (a real repository)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.git_tree_edit import write_blob
from gitops_karmada.core.file_changes import StoredBlob
from gitops_karmada.core.host_limits import touched_folders
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.usecases.host_limits import check_host_limits, entries_before
from tests.gitrepos import make_repo

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.core.file_changes import FileChange

ROOTS = ("clusters", "karmada-state")


def test_both_ways_of_listing_the_touched_folders_agree(tmp_path: Path) -> None:
    files = {
        "clusters/m1/shop/configmap/a.yaml": "a",
        "clusters/m1/shop/configmap/b.yaml": "b",
        "clusters/m1/shop/secret/s.yaml": "s",
        "clusters/m1/billing/configmap/c.yaml": "c",  # a folder the run does not touch, inside one it does
        "clusters/m2/shop/configmap/a.yaml": "a",
        "karmada-state/index/shop.json": "{}",
        "apps/web.yaml": "input",
    }
    repo = make_repo(tmp_path / "fleet", files)
    store = GitStore.open(repo)
    folders = touched_folders(["clusters/m1/shop/configmap/new.yaml", "karmada-state/index/x.json"], ROOTS)
    one_level = entries_before(store, "HEAD", folders, ROOTS)
    whole = entries_before(store, "HEAD", folders, ROOTS, listed=0)
    assert one_level == whole
    assert whole == {
        "clusters/m1/shop/configmap": {"a.yaml", "b.yaml"},
        "clusters/m1/shop": {"configmap", "secret"},
        "clusters/m1": {"shop", "billing"},
        "clusters": {"m1", "m2"},
        "karmada-state/index": {"shop.json"},
        "karmada-state": {"index"},
    }


def test_only_folders_whose_entries_change_are_counted_when_the_existing_paths_are_known(
    tmp_path: Path,
) -> None:
    full = {f"clusters/m1/shop/configmap/c{i}.yaml": str(i) for i in range(6)}
    repo = make_repo(tmp_path / "fleet", {**full, "apps/web.yaml": "input"})
    store = GitStore.open(repo)
    config = ToolConfig.model_validate({"output": {"hostLimits": {"maxFolderEntries": 5, "maxFileBytes": 0}}})
    rewritten: dict[str, FileChange] = {"clusters/m1/shop/configmap/c0.yaml": b"new"}
    added: dict[str, FileChange] = {"clusters/m1/shop/configmap/c6.yaml": b"new"}

    def folders(changes: dict[str, FileChange], existing: set[str] | None) -> list[tuple[str, int]]:
        return [(f.path, f.size) for f in check_host_limits(store, "HEAD", changes, config, existing)]

    kind = "clusters/m1/shop/configmap"
    assert folders(rewritten, None) == [(kind, 6)], "without the existing paths: every touched folder"
    assert folders(rewritten, set(full)) == [], "a rewrite leaves the count as it was: nothing listed"
    assert folders(added, set(full)) == [(kind, 7)], "an added file: the folder counted with what it keeps"


def test_every_path_of_a_content_past_the_size_limit_is_named_whether_sent_or_stored(tmp_path: Path) -> None:
    """Contents are sized once each (a content shared by many paths is one object); every path writing one
    past the limit is named, with its size, and the others are not."""
    repo = make_repo(tmp_path / "fleet", {"apps/web.yaml": "input"})
    store = GitStore.open(repo)
    large = b"x" * 50
    stored = StoredBlob(write_blob(store.runner, b"y" * 60))
    small_stored = StoredBlob(write_blob(store.runner, b"z"))
    config = ToolConfig.model_validate(
        {"output": {"hostLimits": {"maxFolderEntries": 0, "maxFileBytes": 40}}}
    )
    changes: dict[str, FileChange] = {
        **{f"clusters/m{i}/shop/configmap/big.yaml": large for i in range(3)},
        **{f"clusters/m{i}/shop/configmap/stored.yaml": stored for i in range(2)},
        "clusters/m1/shop/configmap/small.yaml": b"small",
        "clusters/m1/shop/configmap/small-stored.yaml": small_stored,
        "clusters/m1/shop/configmap/gone.yaml": None,
    }
    found = [(f.path, f.size) for f in check_host_limits(store, "HEAD", changes, config, set())]
    assert found == sorted(
        [(f"clusters/m{i}/shop/configmap/big.yaml", 50) for i in range(3)]
        + [(f"clusters/m{i}/shop/configmap/stored.yaml", 60) for i in range(2)]
    )
