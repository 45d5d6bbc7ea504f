"""Where a reading command's input comes from: a commit of the repository, or its files on disk.

``validate``, ``render``, ``explain`` and ``interpret`` read the same way: a revision (with a warning when
the work tree holds input changes that are not committed), or with ``--worktree`` the files on disk, the
wall clock standing in for a commit time.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.repository import RepositoryState, StatusChoice, read_commit, read_worktree
from gitops_karmada.usecases.up_to_date import warn_uncommitted_inputs

if TYPE_CHECKING:
    from pathlib import Path


def read_source(
    repo: Path, rev: str, worktree: bool, status: StatusChoice = StatusChoice.RECORDED
) -> RepositoryState:
    """The repository state at ``rev`` of ``repo`` (``worktree``: its files on disk); ``status``: the
    member-cluster status the last reconcile used, or the status branch's tip."""
    if worktree:
        return read_worktree(repo, datetime.now(UTC))
    store = GitStore.open(repo)
    state = read_commit(store, rev, status=status)
    warn_uncommitted_inputs(store, rev, state.request.config)
    return state
