"""The status branch: member clusters' snapshots read from and recorded on a branch of their own.

Status changes with every collection, so it lives apart from the fleet branch (``gitops-karmada-status``
by default): the fleet's ``git log`` shows changes of intent only. The branch holds one file per cluster,
``clusters/<name>.yaml``; a record is one commit moved there with a compare-and-swap, like every write of
the tool, and neither the fleet branch nor any work tree showing another branch is touched.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.git_process import git_error
from gitops_karmada.adapters.git_store import DEFAULT_AUTHOR_EMAIL, DEFAULT_AUTHOR_NAME, TEMPORARY_REF_PREFIX
from gitops_karmada.core.layout import branch_ref, status_snapshot_path
from gitops_karmada.core.observed.member_status import dump_snapshot, parse_snapshot
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.errors import GitError, InputError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.status import ClusterStatusSnapshot

SNAPSHOTS_FOLDER = "clusters"
RECORD_ATTEMPTS = 5
"""Compare-and-swap attempts of one record: other collectors may record other clusters at the same time."""


@dataclass(frozen=True)
class StatusView:
    """The status branch's tip: its commit (None when the branch does not exist) and every snapshot."""

    commit: str | None
    committed_at: datetime | None
    snapshots: Mapping[str, ClusterStatusSnapshot]
    """By cluster name."""


def _where(branch: str, path: str) -> SourceRef:
    # git's <rev>:<path> names the branch and the file in one
    return SourceRef(f"{branch}:{path}", 0)


def _cluster_of(path: str) -> str | None:
    """``member1`` of ``clusters/member1.yaml``; None for anything else on the branch."""
    name = path.removeprefix(SNAPSHOTS_FOLDER + "/")
    if name == path or "/" in name or not name.endswith(".yaml"):
        return None
    return name.removesuffix(".yaml")


def _parse(raw: bytes, branch: str, path: str, cluster: str) -> ClusterStatusSnapshot:
    snapshot = parse_snapshot(raw, _where(branch, path), f"status branch {branch}")
    if snapshot.cluster != cluster:
        raise InputError(
            f"names cluster {snapshot.cluster!r} but the file is {path} (status branch {branch})",
            _where(branch, path),
            "metadata.name",
        )
    return snapshot


def read_status(store: GitStore, branch: str, commit: str | None = None) -> StatusView:
    """Every snapshot at the tip of ``branch`` (or at ``commit`` of it, the one a reconcile recorded); an
    empty view when the branch does not exist yet. A malformed snapshot is an ``InputError`` naming the
    branch, the file and the field."""
    commit = store.try_resolve(commit) if commit is not None else store.try_resolve(branch_ref(branch))
    if commit is None:
        return StatusView(commit=None, committed_at=None, snapshots={})
    entries = {
        entry.path: entry.oid
        for entry in store.list_entries(commit, [SNAPSHOTS_FOLDER])
        if entry.is_regular_file and _cluster_of(entry.path) is not None
    }
    blobs = store.read_blobs(sorted(set(entries.values())))
    snapshots: dict[str, ClusterStatusSnapshot] = {}
    for path, oid in sorted(entries.items()):
        cluster = _cluster_of(path)
        assert cluster is not None
        snapshots[cluster] = _parse(blobs[oid], branch, path, cluster)
    return StatusView(commit=commit, committed_at=store.commit_time(commit), snapshots=snapshots)


def read_snapshot(store: GitStore, branch: str, cluster: str) -> ClusterStatusSnapshot | None:
    """One cluster's snapshot at the tip of ``branch`` (None when the branch or the file is missing)."""
    commit = store.try_resolve(branch_ref(branch))
    if commit is None:
        return None
    path = status_snapshot_path(cluster)
    raw = store.read_file(commit, path)
    return None if raw is None else _parse(raw, branch, path, cluster)


def fetch_status_branch(store: GitStore, remote: str, branch: str) -> str | None:
    """Fetch ``branch`` of ``remote`` and move the local branch to it (in a daemon's clone the remote's status
    branch is the truth); the fetched commit, or None when the remote has no such branch yet (nothing is
    moved then). Network failures are GitError(temporary=True)."""
    try:
        remote_tip = store.fetch(remote, branch)
    except GitError as err:
        if err.temporary or "has no branch" not in str(err):
            raise
        return None  # nobody has collected anything yet
    ref = branch_ref(branch)
    store.runner.run(["update-ref", ref, remote_tip], operation="update-ref", what=ref)
    return remote_tip


def record_snapshots(
    store: GitStore, branch: str, snapshots: Sequence[ClusterStatusSnapshot], message: str
) -> str | None:
    """One commit on ``branch`` writing each snapshot's file; the new commit, or None when every file
    already held these bytes. The branch is created (from a root commit with an empty tree) when it does
    not exist. A concurrent update of the branch is retried on top of it; GitError after
    ``RECORD_ATTEMPTS`` races or on any other failure."""
    changes: dict[str, bytes | None] = {}
    for snapshot in sorted(snapshots, key=lambda s: s.cluster):
        path = status_snapshot_path(snapshot.cluster)
        if path in changes:
            raise ValueError(f"two snapshots of cluster {snapshot.cluster!r} in one record")
        changes[path] = dump_snapshot(snapshot)
    if not changes:
        return None
    ref = branch_ref(branch)
    for attempt in range(1, RECORD_ATTEMPTS + 1):
        try:
            tip = store.try_resolve(ref)
            if tip is None:
                return _create_branch(store, ref, branch, changes, message)
            return store.commit(parent=tip, ref=ref, changes=changes, message=message)
        except GitError as err:
            if not err.temporary or attempt == RECORD_ATTEMPTS:
                raise
            logger.bind(logger="status", branch=branch, attempt=attempt).debug("{}; retrying", err.detail)
            time.sleep(0.05 * attempt)  # let the other writer finish; each retry rereads the tip
    raise AssertionError("unreachable")  # pragma: no cover


def _create_branch(
    store: GitStore, ref: str, branch: str, changes: Mapping[str, bytes | None], message: str
) -> str:
    """Create ``ref`` at its first record: a parentless commit with an empty tree, the record on top of it
    (on a staging ref), and only then the branch, at the record. A reader polling the branch (the daemon)
    never sees it without its snapshots: an empty status would make every cluster unreported, and the
    fleet would be re-rendered twice. GitError(temporary) when another writer created the branch first."""
    git = store.runner
    tree = git.run(["mktree"], operation="mktree", what="an empty tree", stdin=b"").stdout.decode().strip()
    # the tool's own identity when the user has none, as GitStore.commit does
    fallback: dict[str, str] = {}
    for role in ("AUTHOR", "COMMITTER"):
        if not git.succeeds(["-c", "user.useConfigOnly=true", "var", f"GIT_{role}_IDENT"]):
            fallback |= {f"GIT_{role}_NAME": DEFAULT_AUTHOR_NAME, f"GIT_{role}_EMAIL": DEFAULT_AUTHOR_EMAIL}
    root = git.text(
        ["commit-tree", tree, "-m", f"Start the status branch {branch}"],
        operation="commit-tree",
        what=f"the first commit of {branch}",
        env=fallback,
    )
    staging = f"{TEMPORARY_REF_PREFIX}status-{os.getpid()}-{secrets.token_hex(4)}"
    git.run(["update-ref", staging, root, ""], operation="update-ref", what=f"creating {staging}")
    try:
        first = store.commit(parent=root, ref=staging, changes=changes, message=message) or root
    finally:
        git.run(["update-ref", "-d", staging], operation="update-ref", what=f"deleting {staging}")
    created = git.run(
        ["update-ref", "-m", f"gitops-karmada: create {branch}", ref, first, ""],
        operation="update-ref",
        what=f"creating {ref}",
        ok_codes=range(256),
    )
    if created.returncode == 0:
        return first
    if store.try_resolve(ref) is not None:
        raise GitError("update-ref", f"another writer created {ref} meanwhile", temporary=True)
    raise git_error("update-ref", f"creating {ref}", created.stderr)
