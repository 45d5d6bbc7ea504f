"""What the blob writer's and the blob stream's tests share: a repository of either object format, and
files to write into it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.reconcile import reconcile
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

FILES = {f"clusters/m{i % 5}/apps/f{i:03d}.yaml": f"v: {i % 7}\n".encode() for i in range(60)}
"""Sixty files of seven contents: blobs shared between paths are written once."""


@pytest.fixture(params=["sha1", "sha256"])
def store(tmp_path: Path, request: pytest.FixtureRequest) -> GitStore:
    """A repository with one commit, in SHA-1 and in SHA-256."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", f"--object-format={request.param}")
    (repo / "README.md").write_text("fleet\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "initial")
    return GitStore.open(repo)


def plain_reconcile_tree(twin: Path) -> str:
    """The tree of a reconcile of ``twin``'s HEAD whose commit sends every file itself (nothing written
    ahead or streamed): what a commit naming blobs by id must equal."""
    plain = GitStore.open(twin)
    state = read_commit(plain, "HEAD")
    assert state.source is not None
    changes = reconcile(state.request).changes(state.current_blobs, plain.blob_id)
    commit = plain.commit(parent=state.source, ref="refs/heads/main", changes=changes, message="plain")
    return git(twin, "rev-parse", f"{commit}^{{tree}}")
