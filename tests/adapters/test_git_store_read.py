"""GitStore: opening repositories, resolving revisions, reading a commit's files and blob ids."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore, SkippedEntry
from gitops_karmada.adapters.git_tree import EntryKind
from gitops_karmada.model.errors import GitError
from tests.gitrepos import commit_all, git, make_repo, tree_files, write_files

if TYPE_CHECKING:
    from pathlib import Path

# Content that would confuse a line-based reader: NULs, fake cat-file headers, CRLF, no final newline.
BINARY = b"\x00\x01\xff" + b"0123456789abcdef0123456789abcdef01234567 blob 3\n" + b"\r\n\x00end"
FILES: dict[str, bytes | str] = {
    "clusters/member1/default/deployment.apps/web.yaml": "kind: Deployment\n",
    "clusters/member10/default/svc.yaml": "kind: Service\n",
    "templates/nested/deeper/still/app.yaml": "a: 1\n",
    "templates/with space/my file.yaml": "spaced: true\n",
    "templates/ünïcödé/名前.yaml": "unicode: true\n",
    "no-newline.txt": "last line without newline",
    "empty.yaml": "",
    "binary.bin": BINARY,
    "bin/run.sh": "#!/bin/sh\necho hi\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        FILES,
        executables=("bin/run.sh",),
        symlinks={"templates/link.yaml": "nested/deeper/still/app.yaml"},
    )


def expected_bytes(name: str) -> bytes:
    content = FILES[name]
    return content.encode() if isinstance(content, str) else content


# --- open ------------------------------------------------------------------------------------------------


def test_open_work_tree_finds_root_and_git_dir(repo: Path) -> None:
    store = GitStore.open(repo)
    assert store.work_tree == repo.resolve()
    assert store.git_dir == (repo / ".git").resolve()
    assert store.object_format == "sha1"


def test_open_from_a_subfolder_opens_the_whole_work_tree(repo: Path) -> None:
    store = GitStore.open(repo / "templates" / "nested")
    assert store.work_tree == repo.resolve()


def test_open_bare_repository_has_no_work_tree(repo: Path, tmp_path: Path) -> None:
    git(tmp_path, "clone", "-q", "--bare", str(repo), "bare.git")
    store = GitStore.open(tmp_path / "bare.git")
    assert store.work_tree is None
    assert store.git_dir == (tmp_path / "bare.git").resolve()
    assert store.read_files("main", lambda path: path == "empty.yaml") == {"empty.yaml": b""}


def test_open_plain_folder_is_a_git_error(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="is not a git repository") as caught:
        GitStore.open(tmp_path / "plain")
    assert caught.value.operation == "open"
    assert not caught.value.temporary


def test_open_missing_folder_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="is not a directory"):
        GitStore.open(tmp_path / "missing")


# --- revisions -------------------------------------------------------------------------------------------


def test_resolve_gives_full_commit_ids(repo: Path) -> None:
    store = GitStore.open(repo)
    head = git(repo, "rev-parse", "HEAD")
    assert store.resolve("HEAD") == head
    assert store.resolve("main") == head
    assert store.resolve(head[:10]) == head
    assert store.resolve("refs/heads/main") == head


def test_a_commit_id_resolved_once_is_answered_without_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full id names one commit for ever: a run that lists and reads a commit many times asks git once.
    A ref name moves, so it is asked every time."""
    store = GitStore.open(repo)
    head = store.resolve("HEAD")
    abbreviated = head[:12]
    assert store.resolve(abbreviated) == head
    monkeypatch.setenv("PATH", "")  # no git from here on
    assert store.resolve(head) == head
    for rev in ("HEAD", abbreviated):
        with pytest.raises((GitError, OSError)):
            store.resolve(rev)


def test_resolve_peels_annotated_tags_to_the_commit(repo: Path) -> None:
    git(repo, "tag", "-a", "-m", "release", "v1")
    assert GitStore.open(repo).resolve("v1") == git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("no-such-branch", "unknown revision 'no-such-branch'"),
        ("HEAD~5", "unknown revision 'HEAD~5'"),
        ("HEAD^{tree}", "does not name a commit"),
        ("--all", "is not a revision"),
        ("", "is not a revision"),
    ],
    ids=["unknown-branch", "beyond-history", "a-tree", "option-lookalike", "empty"],
)
def test_resolve_names_the_revision_it_cannot_find(repo: Path, rev: str, message: str) -> None:
    with pytest.raises(GitError, match=message) as caught:
        GitStore.open(repo).resolve(rev)
    assert not caught.value.temporary


def test_resolve_in_a_repository_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main", "empty")
    store = GitStore.open(tmp_path / "empty")
    with pytest.raises(GitError, match="the repository has no commits yet"):
        store.resolve("HEAD")
    with pytest.raises(GitError, match="the repository has no commits yet"):
        store.read_files("HEAD", lambda _path: True)
    assert store.head_ref() == "refs/heads/main"


def test_head_ref_is_the_branch_or_none_when_detached(repo: Path) -> None:
    store = GitStore.open(repo)
    assert store.head_ref() == "refs/heads/main"
    git(repo, "checkout", "-q", "--detach")
    assert store.head_ref() is None


def test_is_ancestor(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    second = commit_all(repo, {"more.txt": "x"})
    store = GitStore.open(repo)
    assert store.is_ancestor(first, second)
    assert store.is_ancestor(second, second)
    assert not store.is_ancestor(second, first)


# --- read_files / read_snapshot --------------------------------------------------------------------------


def test_read_files_returns_every_regular_file_byte_for_byte(repo: Path) -> None:
    files = GitStore.open(repo).read_files("HEAD", lambda _path: True)
    assert files == {name: expected_bytes(name) for name in FILES}


def test_read_files_applies_the_filter_to_posix_paths(repo: Path) -> None:
    seen: list[str] = []

    def include(path: str) -> bool:
        seen.append(path)
        return path.startswith("templates/")

    files = GitStore.open(repo).read_files("HEAD", include)
    assert sorted(files) == [
        "templates/nested/deeper/still/app.yaml",
        "templates/with space/my file.yaml",
        "templates/ünïcödé/名前.yaml",
    ]
    assert "templates/ünïcödé/名前.yaml" in seen
    assert "clusters/member1/default/deployment.apps/web.yaml" in seen


def test_snapshot_skips_symlinks_and_submodules_with_a_reason(repo: Path) -> None:
    other = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{other},vendor/sub")
    git(repo, "commit", "-q", "-m", "submodule")
    snapshot = GitStore.open(repo).read_snapshot("HEAD", lambda path: not path.startswith("clusters/"))
    assert snapshot.commit == git(repo, "rev-parse", "HEAD")
    assert [(entry.path, entry.kind) for entry in snapshot.skipped] == [
        ("templates/link.yaml", EntryKind.SYMLINK),
        ("vendor/sub", EntryKind.SUBMODULE),
    ]
    assert snapshot.skipped[0] == SkippedEntry(
        "templates/link.yaml",
        EntryKind.SYMLINK,
        "symbolic link: its target is not read (it may point outside the repository)",
    )
    assert all(entry.reason for entry in snapshot.skipped)
    assert "templates/link.yaml" not in snapshot.files
    assert snapshot.files["bin/run.sh"] == expected_bytes("bin/run.sh")


def test_read_files_reads_the_commit_not_the_work_tree(repo: Path) -> None:
    write_files(repo, {"empty.yaml": "half-saved edit\n", "untracked.yaml": "new\n"})
    (repo / "no-newline.txt").unlink()
    files = GitStore.open(repo).read_files("HEAD", lambda _path: True)
    assert files["empty.yaml"] == b""
    assert "untracked.yaml" not in files
    assert files["no-newline.txt"] == b"last line without newline"


def test_read_files_of_an_older_revision(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    commit_all(repo, {"empty.yaml": "now filled\n"})
    store = GitStore.open(repo)
    assert store.read_files(first, lambda path: path == "empty.yaml") == {"empty.yaml": b""}
    assert store.read_files("HEAD", lambda path: path == "empty.yaml") == {"empty.yaml": b"now filled\n"}


def test_read_files_shares_identical_blobs_and_handles_many_files(tmp_path: Path) -> None:
    many = {f"d{index % 7}/f{index:04}.yaml": f"same-{index % 3}\n" for index in range(1500)}
    repo = make_repo(tmp_path / "many", many)
    files = GitStore.open(repo).read_files("HEAD", lambda _path: True)
    assert files == {name: content.encode() for name, content in many.items()}


def test_read_files_with_a_filter_matching_nothing(repo: Path) -> None:
    assert GitStore.open(repo).read_files("HEAD", lambda _path: False) == {}


# --- list_blobs / blob_id --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefixes", "expected"),
    [
        (
            ["clusters"],
            ["clusters/member1/default/deployment.apps/web.yaml", "clusters/member10/default/svc.yaml"],
        ),
        (
            ["clusters/"],
            ["clusters/member1/default/deployment.apps/web.yaml", "clusters/member10/default/svc.yaml"],
        ),
        (["clusters/member1"], ["clusters/member1/default/deployment.apps/web.yaml"]),
        (["clusters/member"], []),
        (["empty.yaml"], ["empty.yaml"]),
        (["templates/with space", "bin"], ["bin/run.sh", "templates/with space/my file.yaml"]),
        (["templates/link.yaml"], ["templates/link.yaml"]),
        ([], []),
        (["missing"], []),
    ],
    ids=[
        "folder",
        "folder-with-slash",
        "sub-folder-not-its-sibling",
        "partial-component-matches-nothing",
        "single-file",
        "several-prefixes",
        "symlink-is-listed",
        "no-prefixes",
        "missing-folder",
    ],
)
def test_list_blobs_under_prefixes(repo: Path, prefixes: list[str], expected: list[str]) -> None:
    blobs = GitStore.open(repo).list_blobs("HEAD", prefixes)
    assert sorted(blobs) == expected
    in_git = tree_files(repo, "HEAD")
    assert all(blobs[path] == in_git[path] for path in blobs)


def test_list_blobs_of_the_whole_tree(repo: Path) -> None:
    blobs = GitStore.open(repo).list_blobs("HEAD", [""])
    assert blobs == tree_files(repo, "HEAD")


@pytest.mark.parametrize(
    "content",
    [b"", b"kind: Deployment\n", b"no newline", BINARY, b"x" * 100_000],
    ids=["empty", "yaml", "no-newline", "binary", "large"],
)
def test_blob_id_matches_git_hash_object(repo: Path, content: bytes) -> None:
    assert GitStore.open(repo).blob_id(content) == git(repo, "hash-object", "--stdin", stdin=content)


def test_sha256_repository_reads_and_hashes(tmp_path: Path) -> None:
    repo = tmp_path / "sha256"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", "--object-format=sha256")
    write_files(repo, {"a.yaml": "a: 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    store = GitStore.open(repo)
    assert store.object_format == "sha256"
    assert len(store.resolve("HEAD")) == 64
    assert store.read_files("HEAD", lambda _path: True) == {"a.yaml": b"a: 1\n"}
    assert store.list_blobs("HEAD", [""])["a.yaml"] == store.blob_id(b"a: 1\n")
