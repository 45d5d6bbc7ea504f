"""The cluster folders' file counts a writing run keeps for the next run's guard (``adapters.count_cache``):
after every commit, in the single tree and with a branch per cluster, they equal a fresh count of the folders
the commit left; a folder changed by hand since is counted again, not taken from the file."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.committed_outputs import CommittedOutputs
from gitops_karmada.adapters.count_cache import counts_path, load_counts
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.shard_store import output_view
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.usecases.reconcile import reconcile_rev
from tests.builders import configmap
from tests.cli.test_lifecycle_fleet import shop_fleet, web_policy

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

MODES = {
    "tree": "",
    "branch-per-cluster": "output:\n  mode: branch-per-cluster\n",
}


def counted_afresh(store: GitStore, layout: RepoLayout) -> dict[str, int]:
    """Files per cluster folder of HEAD's output, from a listing of every file."""
    view = output_view(store, "HEAD", layout)
    found: dict[str, int] = {}
    for path in CommittedOutputs(store, view.rev, layout.clusters_dir).listing():
        cluster = path.removeprefix(layout.clusters_dir + "/").partition("/")[0]
        found[cluster] = found.get(cluster, 0) + 1
    return found


def kept_for_head(store: GitStore, layout: RepoLayout) -> dict[str, int]:
    """The kept counts of HEAD's cluster folders, by name (a folder whose tree id is not kept is absent)."""
    view = output_view(store, "HEAD", layout)
    kept = load_counts(store.git_dir)
    return {
        c.path.removeprefix(layout.clusters_dir + "/"): kept[(c.path, c.oid)]
        for c in store.list_children(view.rev, [layout.clusters_dir])
        if (c.path, c.oid) in kept
    }


def moded_fleet(tmp_path: Path, mode: str) -> tuple[FleetRepo, GitStore, RepoLayout]:
    repo = shop_fleet(tmp_path)
    if MODES[mode]:
        repo.write(
            "gitops-karmada.yaml", f"apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\n{MODES[mode]}"
        )
        repo.commit("output mode")
        assert reconcile_rev(GitStore.open(repo.path), "main").commit is not None
    store = GitStore.open(repo.path)
    config = ToolConfig.model_validate({"output": {"mode": mode}})
    return repo, store, RepoLayout.of(config)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_each_commit_keeps_the_counts_a_fresh_listing_gives(tmp_path: Path, mode: str) -> None:
    repo, store, layout = moded_fleet(tmp_path, mode)
    steps = [
        ("apps/extra.yaml", configmap("extra", "shop"), "a ConfigMap more: every cluster gains a file"),
        ("policies/web.yaml", web_policy({"member1": 1}), "web leaves member2"),
        ("apps/extra.yaml", None, "the ConfigMap deleted"),
    ]
    for path, content, message in steps:
        if content is None:
            repo.delete(path)
        else:
            repo.write(path, content)
        repo.commit(message)
        done = reconcile_rev(store, "main", allow=frozenset({"all"}))
        assert done.commit is not None, message
        assert kept_for_head(store, layout) == counted_afresh(store, layout), message


def test_a_folder_edited_by_hand_is_counted_again(tmp_path: Path) -> None:
    repo, store, layout = moded_fleet(tmp_path, "tree")
    repo.write("apps/extra.yaml", configmap("extra", "shop"))
    repo.commit("a ConfigMap more")
    assert reconcile_rev(store, "main").commit is not None
    repo.write("clusters/member1/hand/notes.yaml", "kind: Note\n")
    repo.commit("a file of one's own in member1's folder")
    view = output_view(store, "HEAD", layout)
    outputs = CommittedOutputs(store, view.rev, layout.clusters_dir)
    assert outputs.counts() == counted_afresh(store, layout)
    assert "member1" not in kept_for_head(store, layout), "member1's tree changed: its kept count is not used"


def test_an_unreadable_file_is_counted_around(tmp_path: Path) -> None:
    _repo, store, layout = moded_fleet(tmp_path, "tree")
    counts_path(store.git_dir).parent.mkdir(parents=True, exist_ok=True)
    counts_path(store.git_dir).write_bytes(b"not a pickle")
    view = output_view(store, "HEAD", layout)
    assert CommittedOutputs(store, view.rev, layout.clusters_dir).counts() == counted_afresh(store, layout)
