"""GitStore remotes against a local bare "remote": upstream, fetch, push, non-fast-forward retry."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_remote import is_transient_failure
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.model.errors import GitError
from tests.gitrepos import commit_all, git, make_repo, status

if TYPE_CHECKING:
    from pathlib import Path

CHANGES: dict[str, bytes | None] = {"clusters/member1/web.yaml": b"replicas: 3\n"}


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    seed = make_repo(tmp_path / "seed", {"templates/web.yaml": "kind: Deployment\n"})
    git(tmp_path, "clone", "-q", "--bare", str(seed), "remote.git")
    return tmp_path / "remote.git"


@pytest.fixture
def clone(tmp_path: Path, remote: Path) -> Path:
    git(tmp_path, "clone", "-q", str(remote), "clone")
    return tmp_path / "clone"


def someone_else_pushes(tmp_path: Path, remote: Path, files: dict[str, bytes | str]) -> str:
    other = tmp_path / "other"
    if not other.exists():
        git(tmp_path, "clone", "-q", str(remote), "other")
    else:
        git(other, "pull", "-q", "--ff-only")
    pushed = commit_all(other, files, message="someone else")
    git(other, "push", "-q", "origin", "main")
    return pushed


def test_upstream_of_a_cloned_branch(clone: Path) -> None:
    store = GitStore.open(clone)
    assert store.upstream("refs/heads/main") == ("origin", "main")


@pytest.mark.parametrize(
    ("setup", "branch_ref"),
    [
        ((), "refs/heads/no-upstream"),
        (("branch", "no-upstream"), "refs/heads/no-upstream"),
        (("config", "branch.local.remote", "."), "refs/heads/local"),
        ((), "HEAD"),
        ((), "refs/tags/v1"),
    ],
    ids=["missing-branch", "branch-without-upstream", "local-upstream", "not-a-branch", "a-tag"],
)
def test_no_upstream(clone: Path, setup: tuple[str, ...], branch_ref: str) -> None:
    if setup:
        git(clone, *setup)
    if branch_ref == "refs/heads/local":
        git(clone, "config", "branch.local.merge", "refs/heads/main")
    assert GitStore.open(clone).upstream(branch_ref) is None


def test_upstream_with_a_dotted_branch_name(clone: Path) -> None:
    git(clone, "checkout", "-q", "-b", "release.v1", "--track", "origin/main")
    assert GitStore.open(clone).upstream("refs/heads/release.v1") == ("origin", "main")


def test_push_publishes_the_commit(clone: Path, remote: Path) -> None:
    store = GitStore.open(clone)
    new = store.commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="render")
    assert new is not None
    store.push("origin", "refs/heads/main", "main")
    assert git(remote, "rev-parse", "refs/heads/main") == new


def test_push_to_a_file_url(clone: Path, remote: Path) -> None:
    store = GitStore.open(clone)
    new = store.commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="render")
    assert new is not None
    store.push(remote.as_uri(), "HEAD", "rendered")
    assert git(remote, "rev-parse", "refs/heads/rendered") == new


def test_non_fast_forward_push_is_a_temporary_error(clone: Path, remote: Path, tmp_path: Path) -> None:
    store = GitStore.open(clone)
    assert store.commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="render") is not None
    theirs = someone_else_pushes(tmp_path, remote, {"templates/other.yaml": "x\n"})
    with pytest.raises(GitError, match="moved on") as caught:
        store.push("origin", "refs/heads/main", "main")
    assert caught.value.temporary
    assert caught.value.operation == "push"
    assert git(remote, "rev-parse", "refs/heads/main") == theirs


def test_push_rejected_as_behind_is_a_temporary_error(clone: Path, remote: Path, tmp_path: Path) -> None:
    store = GitStore.open(clone)
    someone_else_pushes(tmp_path, remote, {"templates/other.yaml": "x\n"})
    store.fetch("origin", "main")  # we now have the remote commit; ours is behind, not unknown
    with pytest.raises(GitError, match="non-fast-forward") as caught:
        store.push("origin", "refs/heads/main", "main")
    assert caught.value.temporary


def test_push_to_a_missing_remote_is_a_permanent_error(clone: Path, tmp_path: Path) -> None:
    with pytest.raises(GitError, match="does not appear to be a git repository") as caught:
        GitStore.open(clone).push(str(tmp_path / "missing.git"), "refs/heads/main", "main")
    assert not caught.value.temporary


def test_push_refused_by_the_remote_is_a_permanent_error(clone: Path, remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'policy says no' >&2\nexit 1\n")
    hook.chmod(0o755)
    store = GitStore.open(clone)
    store.commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="render")
    with pytest.raises(GitError, match="pre-receive hook declined") as caught:
        store.push("origin", "refs/heads/main", "main")
    assert not caught.value.temporary


def test_fetch_returns_the_remote_commit(clone: Path, remote: Path, tmp_path: Path) -> None:
    theirs = someone_else_pushes(tmp_path, remote, {"templates/other.yaml": "x\n"})
    store = GitStore.open(clone)
    assert store.fetch("origin", "main") == theirs
    assert git(clone, "rev-parse", "refs/remotes/origin/main") == theirs
    assert git(clone, "for-each-ref", "refs/gitops-karmada/") == ""
    assert store.read_files(theirs, lambda path: path == "templates/other.yaml") == {
        "templates/other.yaml": b"x\n"
    }


def test_fetch_of_a_missing_branch_is_a_permanent_error(clone: Path) -> None:
    with pytest.raises(GitError, match="origin has no branch nope") as caught:
        GitStore.open(clone).fetch("origin", "nope")
    assert not caught.value.temporary


def test_fetch_from_a_missing_remote_is_a_permanent_error(clone: Path, tmp_path: Path) -> None:
    with pytest.raises(GitError) as caught:
        GitStore.open(clone).fetch(str(tmp_path / "missing.git"), "main")
    assert not caught.value.temporary


@pytest.mark.parametrize("branch", ["bad..name", "-option", "has space"], ids=["dots", "dash", "space"])
def test_invalid_branch_names_are_refused(clone: Path, branch: str) -> None:
    store = GitStore.open(clone)
    with pytest.raises(GitError, match="not a valid branch name"):
        store.fetch("origin", branch)
    with pytest.raises(GitError, match="not a valid branch name"):
        store.push("origin", "refs/heads/main", branch)


def test_fetch_rerender_retry_flow(clone: Path, remote: Path, tmp_path: Path) -> None:
    """The sequence the reconciler runs after a rejected push; every step is a GitStore call."""
    store = GitStore.open(clone)
    source = store.resolve("HEAD")
    ours = store.commit(parent=source, ref="refs/heads/main", changes=CHANGES, message="render")
    assert ours is not None
    someone_else_pushes(tmp_path, remote, {"templates/other.yaml": "x\n"})
    with pytest.raises(GitError) as rejected:
        store.push("origin", "refs/heads/main", "main")
    assert rejected.value.temporary
    fetched = store.fetch("origin", "main")
    assert store.is_ancestor(source, fetched)  # only the remote moved: safe to drop our rendering
    store.move_ref(ref="refs/heads/main", old=ours, new=fetched)
    rerendered = store.commit(parent=fetched, ref="refs/heads/main", changes=CHANGES, message="render again")
    assert rerendered is not None
    store.push("origin", "refs/heads/main", "main")
    assert git(remote, "rev-parse", "refs/heads/main") == rerendered
    assert status(clone) == []
    assert (clone / "templates/other.yaml").read_text() == "x\n"


@pytest.mark.parametrize(
    ("stderr", "transient"),
    [
        ("fatal: unable to access 'https://example.test/r.git/': Could not resolve host: example.test", True),
        (
            "ssh: connect to host h port 22: Connection refused\nfatal: Could not read from remote",
            True,
        ),
        ("error: RPC failed; curl 56 Recv failure: Connection reset by peer", True),
        ("fatal: the remote end hung up unexpectedly", True),
        ("fatal: unable to access 'https://x/': The requested URL returned error: 503", True),
        (
            "fatal: '/nope' does not appear to be a git repository\nfatal: Could not read from remote",
            False,
        ),
        ("fatal: Authentication failed for 'https://example.test/r.git/'", False),
        ("fatal: couldn't find remote ref refs/heads/nope", False),
        ("error: some other failure", False),
    ],
    ids=[
        "dns",
        "ssh-refused",
        "connection-reset",
        "hung-up",
        "http-503",
        "missing-repository",
        "authentication",
        "missing-branch",
        "unknown",
    ],
)
def test_transient_failure_classification(stderr: str, transient: bool) -> None:
    assert is_transient_failure(stderr) is transient
