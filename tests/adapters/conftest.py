"""What the blob writer's and the blob stream's tests share: a repository of either object format, and
files to write into it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
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
