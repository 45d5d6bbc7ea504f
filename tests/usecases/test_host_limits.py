"""``usecases.host_limits``: the folders a run touches, listed one level each or from one listing of the
managed folders, give the same entries (a real repository)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.host_limits import touched_folders
from gitops_karmada.usecases.host_limits import entries_before
from tests.gitrepos import make_repo

if TYPE_CHECKING:
    from pathlib import Path

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
