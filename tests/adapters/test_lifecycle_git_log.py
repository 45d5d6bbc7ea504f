"""GitStore's history reads (log with trailers and changed blobs, diff, entries, blobs) on real repositories."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_log import parse_log, parse_trailers
from gitops_karmada.adapters.git_store import GitStore
from tests.gitrepos import commit_all, git, make_repo, tree_files

if TYPE_CHECKING:
    from pathlib import Path

TRICKY = {
    "with space/a b.yaml": "a: 1\n",
    "ünïcödé/名前.yaml": "b: 2\n",
    "colon/:starts.yaml": "c: 3\n",
    "nl/new\nline.yaml": "d: 4\n",
    "marker/\x1estarts.yaml": "e: 5\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "fleet\n", "apps/web.yaml": "replicas: 1\n"})


def test_log_lists_first_parent_commits_newest_first_with_trailers(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    tagged = commit_all(
        repo, {"apps/web.yaml": "replicas: 2\n"}, "scale\n\nSource-Commit: abc\nRendered-By: x 1"
    )
    entries = GitStore.open(repo).log("HEAD")
    assert [e.commit for e in entries] == [tagged, base]
    assert entries[0].parents == (base,)
    assert entries[0].subject == "scale"
    assert entries[0].trailers == {"Source-Commit": "abc", "Rendered-By": "x 1"}
    assert entries[1].trailers == {}
    assert entries[0].changes == (), "changes only when asked for"


def test_log_with_changes_reads_every_path_exactly_with_both_blob_ids(repo: Path) -> None:
    before = tree_files(repo, "HEAD")
    commit_all(repo, {**TRICKY, "apps/web.yaml": "replicas: 3\n"}, "tricky paths")
    after = tree_files(repo, "HEAD")
    (entry, _) = GitStore.open(repo).log("HEAD", with_changes=True)
    changes = {c.path: (c.old_oid, c.new_oid) for c in entry.changes}
    assert changes == {
        **{path: (None, after[path]) for path in TRICKY},
        "apps/web.yaml": (before["apps/web.yaml"], after["apps/web.yaml"]),
    }
    assert all(c.new_mode == "100644" for c in entry.changes)


def test_log_paths_globs_since_grep_and_max_count_narrow_the_walk(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    second = commit_all(repo, {"apps/db.yaml": "x: 1\n"}, "db\n\nRendered-By: gitops-karmada 1")
    third = commit_all(repo, {"docs/a.md": "a\n"}, "docs")
    store = GitStore.open(repo)
    assert [e.commit for e in store.log("HEAD", paths=["apps"])] == [second, first]
    assert [e.commit for e in store.log("HEAD", globs=["apps/*.yaml"], since=first)] == [second]
    assert [e.commit for e in store.log("HEAD", paths=["apps/db.yaml", ""])] == [third, second, first]
    assert [e.commit for e in store.log("HEAD", grep="^Rendered-By: gitops-karmada")] == [second]
    assert [e.commit for e in store.log("HEAD", max_count=1)] == [third]


def test_first_parent_walks_show_a_merge_with_its_changes_against_the_first_parent(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "side")
    side = commit_all(repo, {"apps/side.yaml": "s: 1\n"}, "side work")
    git(repo, "checkout", "-q", "main")
    main = commit_all(repo, {"README.md": "fleet 2\n"}, "main work")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = git(repo, "rev-parse", "HEAD")
    store = GitStore.open(repo)

    first_parent = store.log("HEAD", with_changes=True)
    assert [e.commit for e in first_parent] == [merge, main, base]
    assert [c.path for c in first_parent[0].changes] == ["apps/side.yaml"]
    assert side in [e.commit for e in store.log("HEAD", first_parent=False)]


def test_diff_compares_two_commits_under_prefixes_with_ids_and_modes(repo: Path) -> None:
    old = git(repo, "rev-parse", "HEAD")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    new = commit_all(repo, {"apps/web.yaml": "replicas: 9\n", "apps/new.yaml": "n: 1\n"}, "more")
    (repo / "README.md").unlink()
    newest = commit_all(repo, {}, "no readme")
    store = GitStore.open(repo)

    changes = {c.path: c for c in store.diff(old, newest)}
    assert set(changes) == {"apps/web.yaml", "apps/new.yaml", "run.sh", "README.md"}
    assert changes["README.md"].deleted and changes["README.md"].new_mode is None
    assert changes["apps/new.yaml"].added
    assert changes["run.sh"].new_mode == "100755"
    assert [c.path for c in store.diff(old, new, ["apps"])] == ["apps/new.yaml", "apps/web.yaml"]
    assert store.diff(old, new, []) == ()
    assert store.diff(new, new) == ()


def test_list_entries_and_read_blobs_return_modes_and_contents(repo: Path) -> None:
    store = GitStore.open(repo)
    entries = {e.path: e for e in store.list_entries("HEAD", ["apps"])}
    assert set(entries) == {"apps/web.yaml"}
    assert store.read_blobs([entries["apps/web.yaml"].oid]) == {
        entries["apps/web.yaml"].oid: b"replicas: 1\n"
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Source-Commit: abc\nRendered-By: gitops-karmada 0.1.0\n",
            {"Source-Commit": "abc", "Rendered-By": "gitops-karmada 0.1.0"},
        ),
        ("Key: one\nKey: two\n", {"Key": "two"}),
        ("no separator here\n: empty key\n", {}),
        ("Url: https://example.com/a:b\n", {"Url": "https://example.com/a:b"}),
    ],
    ids=["two-trailers", "last-wins", "not-trailers", "colon-in-value"],
)
def test_parse_trailers(text: str, expected: dict[str, str]) -> None:
    assert parse_trailers(text) == expected


def test_parse_log_of_nothing_is_empty() -> None:
    assert parse_log(b"") == ()
