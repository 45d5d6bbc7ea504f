"""The true floor rebuilds a reconciled tree exactly, sending each distinct content once (real git, a tiny
fleet reconciled by the real CLI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.bench_incremental import build
from benchmarks.floor import loose_floor, new_bare, read_rendered, true_floor
from tests.clirun import cli_in_process
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def test_the_true_floor_is_the_rendered_tree_with_each_content_sent_once(tmp_path: Path) -> None:
    bare, _ = build(tmp_path, "M", 6, 3, 3)
    done = cli_in_process(tmp_path, ["reconcile", "--repo", str(bare)])
    assert done.returncode == 0, done.stderr
    reconciled = git(bare, "rev-parse", "HEAD")

    tree = read_rendered(bare, reconciled)
    files = git(bare, "ls-tree", "-r", "--name-only", reconciled, "clusters").splitlines()
    distinct = set(git(bare, "ls-tree", "-r", "--object-only", reconciled, "clusters").splitlines())
    assert tree.files == len(files) > len(distinct) == len(tree.documents)  # Duplicated: alike on 3 clusters

    run = true_floor(tree, new_bare(tmp_path / "floor.git"))
    assert (run.blobs_sent, run.paths_written) == (len(distinct), len(files))
    assert run.seconds > 0
    rebuilt = git(tmp_path / "floor.git", "rev-parse", f"{run.commit}:clusters")
    assert rebuilt == git(bare, "rev-parse", f"{reconciled}:clusters")
    assert git(tmp_path / "floor.git", "count-objects", "-v").count("\n") > 0

    loose = loose_floor(tree, new_bare(tmp_path / "loose.git"))
    assert loose.blobs_sent == len(files)
    assert git(tmp_path / "loose.git", "rev-parse", f"{loose.commit}:clusters") == rebuilt
