"""Repository state in, one commit out: the glue between the Git store (or a directory) and ``reconcile``.

Reads a commit (never the work tree, unless ``--worktree`` asks for it): the configuration, the input
documents, the state folder and the list of files already in the cluster folders. Writes a
``RenderResult`` as one commit whose trailers name the source commit and the tool version.
"""

from __future__ import annotations

import enum
import os
import subprocess
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.adapters.committed_outputs import CommittedOutputs
from gitops_karmada.adapters.directory import read_directory
from gitops_karmada.adapters.external_sources import render_commit_sources, render_sources
from gitops_karmada.adapters.fleet_config import read_config
from gitops_karmada.adapters.fork_pool import ForkPool
from gitops_karmada.adapters.git_store import SUBMODULE_SKIPPED, SYMLINK_SKIPPED, GitStore
from gitops_karmada.adapters.git_tree import EntryKind, TreeEntry, normalise_prefix
from gitops_karmada.adapters.kubernetes_schemas import packaged_schemas
from gitops_karmada.adapters.parse_cache import decode_inputs, prune_decoded
from gitops_karmada.adapters.rollout_signals import rollout_signals
from gitops_karmada.adapters.shard_store import OutputView, output_view
from gitops_karmada.adapters.status_store import StatusView, read_status
from gitops_karmada.adapters.subtree_memo import SubtreeMemo, entries_below
from gitops_karmada.adapters.tool_commits import RENDERED_BY, latest_tool_commit
from gitops_karmada.core.codecs.times import format_time, parse_time
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.external_sources import source_plan
from gitops_karmada.core.inputs.loading import input_path_filter
from gitops_karmada.core.layout import RepoLayout, config_path
from gitops_karmada.core.observed.fold import ObservedStatus
from gitops_karmada.core.ownership import is_state_file
from gitops_karmada.model import wellknown
from gitops_karmada.model.diagnostics import Diagnostic, SourceRef, warning
from gitops_karmada.model.errors import GitError
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import (
    ManagedBlobs,
    Ports,
    ReconcileRequest,
    RenderResult,
    RepoSnapshot,
    RunMode,
    WarmCaches,
    blob_sha,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime
    from pathlib import Path

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.warm_state import WarmState
    from gitops_karmada.core.file_changes import FileChange
    from gitops_karmada.core.inputs.loading import Decoded
    from gitops_karmada.model.config import ToolConfig


class StatusChoice(enum.Enum):
    """Which member-cluster status a run uses (``docs/status.md``)."""

    TIP = "tip"
    """The status branch's tip: what reconcile commits, as of the newest snapshots."""
    RECORDED = "recorded"
    """The status commit the latest reconcile at or before the commit recorded: re-renders what that
    reconcile rendered (verify, diff, explain)."""


@dataclass(frozen=True, slots=True)
class RepositoryState:
    request: ReconcileRequest
    source: str | None
    """The commit read (None when a directory was read)."""
    current_blobs: Mapping[str, str] = field(default_factory=dict)
    """Files now under the managed folders (clusters + state): path → blob sha."""
    status_commit: str | None = None
    """The status-branch commit whose snapshots the request carries (None: none used)."""
    view: OutputView | None = None
    """Where the commit's cluster folders were read (the shards, in a sharded output mode)."""


def rfc3339(moment: datetime) -> str:
    return format_time(moment)


def _managed_prefixes(config: ToolConfig) -> tuple[str, str]:
    layout = RepoLayout.of(config)
    return (layout.output_prefix, layout.state_prefix)


def read_commit(
    store: GitStore,
    rev: str,
    *,
    reschedule: frozenset[tuple[str, str, str, str]] = frozenset(),
    full: bool = False,
    materialize: bool = True,
    warm: WarmState | None = None,
    status: StatusChoice = StatusChoice.RECORDED,
    clock: datetime | None = None,
    signals: bool = True,
    shard_tips: bool = False,
) -> RepositoryState:
    """The repository as committed at ``rev``: one listing of everything but the cluster folders, whose
    files are looked up as the run asks (``CommittedOutputs``); the inputs, snapshots and the state files
    other than binding records are read at once, the records only when the run asks for them.

    The run's clock is the commit's time (or the status commit's, when later); ``clock`` moves it later (a
    run made because failover work fell due); re-rendering a tool commit takes the clock it recorded.
    ``signals``: read what the rollouts learn from outside the files (approvals, commit statuses); False
    for callers that read the inputs and records only (``get``, ``describe``, ``collect``). ``shard_tips``:
    read sharded output as the shard branches hold it now (the write path), not as ``rev`` recorded it."""
    sha = store.resolve(rev)
    config, config_diagnostics = read_config(store, sha)
    clusters_prefix, state_prefix = _managed_prefixes(config)
    layout = RepoLayout.of(config)
    listed = _list_commit(store, sha, config, warm)
    snapshots, eager_state, state_blobs = listed.snapshots, listed.eager_state, listed.state_blobs
    view = output_view(store, sha, layout, tips=shard_tips)
    output_blobs = CommittedOutputs(
        store, view.rev, config.output.clusters_dir, warm.counted if warm else None
    )
    blobs = store.read_blobs(sorted({*snapshots.values(), *eager_state.values()}))
    decoded = decode_inputs(store.git_dir, listed.inputs, store.read_blobs, warm.decoded if warm else None)
    prune_decoded(store.git_dir, {*listed.inputs.values(), *state_blobs.values()})
    plan = source_plan(decoded)
    generated = (
        render_commit_sources(store, sha, plan, config, (clusters_prefix, state_prefix))
        if not plan.empty
        else {}
    )

    def read_state(paths: Sequence[str]) -> dict[str, bytes]:
        wanted = {path: state_blobs[path] for path in paths if path in state_blobs}
        found = store.read_blobs(sorted(set(wanted.values())))
        return {path: found[oid] for path, oid in wanted.items()}

    def read_records(paths: Sequence[str]) -> dict[str, Decoded]:
        wanted = {path: state_blobs[path] for path in paths if path in state_blobs}
        return decode_inputs(store.git_dir, wanted, store.read_blobs)

    anchor = latest_tool_commit(store, sha) if status is StatusChoice.RECORDED else None
    status_view = _status_view(store, config, status, anchor)
    observed = (
        ObservedStatus(status_view.snapshots, status_view.commit) if status_view.commit is not None else None
    )
    moment = _run_clock(store, sha, anchor, status_view.committed_at, clock)
    recorded = anchor if anchor is not None and anchor.commit == sha else None
    found = rollout_signals(store, sha, decoded, recorded=recorded) if signals else None
    request = ReconcileRequest(
        snapshot=RepoSnapshot(
            decoded=decoded,
            config=config,
            config_diagnostics=(*config_diagnostics, *listed.skipped),
            state_files={path: blobs[oid] for path, oid in eager_state.items()},
            state_blobs=state_blobs,
            snapshot_files={path: blobs[oid] for path, oid in snapshots.items()},
            output_blobs=output_blobs,
            output_edits=None
            if full
            else output_edits(
                store, sha, layout, {p: o for p, o in state_blobs.items() if layout.is_index_file(p)}, view
            ),
            shallow_outputs=output_blobs.shallow(layout.manifest_depth, warm.shallow if warm else None),
            now=rfc3339(moment),
            observed=observed,
            native_schemas=packaged_schemas(),
            generated=generated,
            commit=sha,
            rollout_signals=found,
        ),
        mode=RunMode(reschedule=reschedule, full=full, materialize=materialize),
        ports=Ports(
            read_state=read_state,
            read_records=read_records,
            read_output=lambda path: store.read_file(view.rev, path),
            read_output_at=store.read_file,
            count_outputs=output_blobs.counts,
            hash_blob=store.blob_id,
            fan_out=ForkPool(),
        ),
        caches=WarmCaches(
            index_lines=warm.index_lines if warm else None,
            classified=warm.classified if warm else None,
            memo=warm.memo if warm else None,
        ),
    )
    return RepositoryState(request, sha, ManagedBlobs(state_blobs, output_blobs), status_view.commit, view)


@dataclass(frozen=True, slots=True)
class _Listing:
    """One listing of a commit outside its cluster folders, sorted by what the run does with each file."""

    inputs: dict[str, str]
    snapshots: dict[str, str]
    eager_state: dict[str, str]
    """State files read at once (everything but the binding records)."""
    state_blobs: dict[str, str]
    skipped: tuple[Diagnostic, ...]
    """Symlinks and submodules among the inputs: not read, each a warning."""


def _list_commit(store: GitStore, sha: str, config: ToolConfig, warm: WarmState | None) -> _Listing:
    layout = RepoLayout.of(config)
    state_prefix = layout.state_prefix
    bindings_prefix, snapshots_prefix = layout.bindings_dir + "/", layout.snapshots_prefix
    is_input = input_path_filter(config)
    listing = _Listing({}, {}, {}, {}, ())
    skipped: list[Diagnostic] = []
    shard_record = layout.shards_path  # the adapters' own record (``shard_store``): not the run's to judge
    for entry in _entries_outside(store, sha, config.output.clusters_dir, warm.listed if warm else None):
        path = entry.path
        if path == shard_record:
            continue
        if path.startswith(state_prefix):
            if entry.kind is not EntryKind.SUBMODULE:
                listing.state_blobs[path] = entry.oid
                if is_state_file(path) and entry.is_regular_file and not path.startswith(bindings_prefix):
                    listing.eager_state[path] = entry.oid
        elif path.startswith(snapshots_prefix):
            if path.endswith((".yaml", ".yml")) and entry.is_regular_file:
                listing.snapshots[path] = entry.oid
        elif is_input(path):
            if entry.is_regular_file:
                listing.inputs[path] = entry.oid
            else:
                reason = SYMLINK_SKIPPED if entry.kind is EntryKind.SYMLINK else SUBMODULE_SKIPPED
                skipped.append(
                    warning(f"{reason}; not read (commit the file itself, or exclude it)", SourceRef(path, 0))
                )
    return replace(listing, skipped=tuple(skipped))


def _run_clock(
    store: GitStore, sha: str, anchor: LogEntry | None, status_at: datetime | None, clock: datetime | None
) -> datetime:
    """The latest of the commit's time, the status commit's, ``clock`` and the time a tool commit recorded."""
    committed = store.commit_time(_clock_commit(store, sha, anchor))
    ran = _recorded_run_time(sha, anchor)
    return max(committed, status_at or committed, clock or committed, ran or committed)


def _clock_commit(store: GitStore, sha: str, anchor: LogEntry | None) -> str:
    """The commit whose time is a run's clock: ``sha``; but re-rendering the tool's own commit (RECORDED)
    takes the source it reconciled, so ``verify`` and ``diff`` see the time ``reconcile`` saw."""
    if anchor is None or anchor.commit != sha:
        return sha
    source = anchor.trailers.get(wellknown.SOURCE_COMMIT_TRAILER)
    return source if source and store.try_resolve(source) else sha


def _recorded_run_time(sha: str, anchor: LogEntry | None) -> datetime | None:
    """The clock the tool commit ``sha`` recorded it ran at (re-rendering it sees that time)."""
    if anchor is None or anchor.commit != sha:
        return None
    recorded = anchor.trailers.get(wellknown.RUN_TIME_TRAILER)
    try:
        return parse_time(recorded) if recorded else None
    except ValueError:
        return None


def _status_view(
    store: GitStore, config: ToolConfig, choice: StatusChoice, anchor: LogEntry | None
) -> StatusView:
    """The member-cluster status a run uses: the branch tip, or what the last reconcile (``anchor``) used."""
    branch = config.status.branch
    if choice is StatusChoice.TIP:
        return read_status(store, branch)
    recorded = anchor.trailers.get(wellknown.STATUS_COMMIT_TRAILER) if anchor is not None else None
    if recorded is None:
        return StatusView(commit=None, committed_at=None, snapshots={})
    return read_status(store, branch, recorded)


def _entries_outside(
    store: GitStore, sha: str, folder: str, memo: SubtreeMemo[tuple[TreeEntry, ...]] | None = None
) -> tuple[TreeEntry, ...]:
    """Every file, link and submodule of ``sha`` except those under ``folder``: its siblings (and those of
    each folder above it) are listed recursively, ``folder`` itself not at all (``memo``: subtrees listed
    by earlier runs of the process, by tree id)."""
    keep: list[TreeEntry] = []
    level = ""
    for part in normalise_prefix(folder).split("/"):
        here = f"{level}/{part}" if level else part
        keep.extend(e for e in store.list_children(sha, [level]) if e.path != here)
        level = here
    if memo is not None:
        return entries_below(store, sha, keep, memo)
    return store.list_entries(sha, [e.path for e in keep]) if keep else ()


def output_edits(
    store: GitStore,
    sha: str,
    layout: RepoLayout,
    index_blobs: Mapping[str, str],
    view: OutputView | None = None,
) -> frozenset[str] | None:
    """The cluster-folder paths changed since the tool's last commit on ``sha``'s history, when that commit
    wrote the state index ``sha`` has (``index_blobs``: its files' ids; so the index's file digests
    describe that commit's files); ``None`` when no such commit is known, and a run must compare every
    reused template's files itself. Sharded output (``view``): none when every shard branch is where that
    commit recorded it, else None."""
    if not index_blobs:
        return None
    if view is not None and view.sharded:
        return _shard_edits(store, sha, layout, view)
    anchor = latest_tool_commit(store, sha)
    if anchor is None:
        return None
    if anchor.commit != sha:
        entries = store.list_entries(anchor.commit, [layout.index_dir, layout.legacy_index_path])
        if {e.path: e.oid for e in entries if layout.is_index_file(e.path)} != index_blobs:
            return None
    return frozenset(c.path for c in store.diff(anchor.commit, sha, [layout.clusters_dir]))


def _shard_edits(store: GitStore, sha: str, layout: RepoLayout, view: OutputView) -> frozenset[str] | None:
    anchor = latest_tool_commit(store, sha)
    if anchor is None or view.behind:
        return None
    if anchor.commit != sha:
        record = layout.shards_path
        if store.list_blobs(anchor.commit, [record]) != store.list_blobs(sha, [record]):
            return None
    return frozenset()


def fleet_on_disk(path: Path) -> tuple[Path, str]:
    """The folder paths are relative to, and the fleet's folder in it, for the files on disk at ``path``:
    the nearest ``gitops-karmada.yaml`` at or above ``path`` within its work tree (a fleet in a subfolder of
    a monorepo, found as a committed read finds it); else ``path`` itself is the fleet."""
    start = path.resolve()
    top = next((p for p in (start, *start.parents) if (p / ".git").exists()), None)
    if top is None:
        return path, ""
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            rel = folder.relative_to(top).as_posix()
            return top, "" if rel == "." else rel
        if folder == top:
            break
    return path, ""


def read_worktree(path: Path, now: datetime) -> RepositoryState:
    """The repository as it is on disk (for ``validate``/``render --worktree`` before committing)."""
    root, fleet = fleet_on_disk(path)
    config_file = root / config_path(fleet)
    config, config_diagnostics = load_config(
        config_file.read_bytes() if config_file.is_file() else None, fleet
    )
    clusters_prefix, state_prefix = _managed_prefixes(config)
    links: list[str] = []
    input_files = read_directory(root, input_path_filter(config), links, under=fleet)
    skipped = tuple(
        warning(f"{SYMLINK_SKIPPED}; not read (commit the file itself, or exclude it)", SourceRef(path, 0))
        for path in links
    )
    managed = read_directory(root, lambda p: p.startswith((clusters_prefix, state_prefix)), under=fleet)
    snapshots_prefix = RepoLayout.of(config).snapshots_prefix
    snapshot_files = read_directory(root, lambda p: p.startswith(snapshots_prefix), under=fleet)
    current = {path: blob_sha(content) for path, content in managed.items()}
    plan = source_plan(input_files)
    request = ReconcileRequest(
        snapshot=RepoSnapshot(
            input_files=input_files,
            config=config,
            config_diagnostics=(*config_diagnostics, *skipped),
            state_files={p: c for p, c in managed.items() if p.startswith(state_prefix) and is_state_file(p)},
            snapshot_files=snapshot_files,
            output_blobs={p: s for p, s in current.items() if p.startswith(clusters_prefix)},
            now=rfc3339(now),
            native_schemas=packaged_schemas(),
            generated=render_sources(plan, root, config) if not plan.empty else {},
        ),
        ports=Ports(
            read_output=lambda p: (root / p).read_bytes() if (root / p).is_file() else None,
            fan_out=ForkPool(),
        ),
    )
    return RepositoryState(request, None, current)


@dataclass(frozen=True, slots=True)
class CommitSummary:
    written: int
    deleted: int
    bindings: int
    failed: int
    reverted: tuple[str, ...] = ()


def summarize(
    result: RenderResult, changes: Mapping[str, FileChange], reverted: tuple[str, ...] = ()
) -> CommitSummary:
    return CommitSummary(
        written=sum(1 for v in changes.values() if v is not None),
        deleted=sum(1 for v in changes.values() if v is None),
        bindings=len(result.bindings),
        failed=len(result.failed_templates),
        reverted=reverted,
    )


@dataclass(frozen=True, slots=True)
class RolloutTrailers:
    """What a reconcile commit says of the rollouts in flight."""

    due: str | None = None
    """When time alone moves one on (``Rollout-Due``)."""
    waiting: tuple[str, ...] = ()
    """What they wait for from outside the files (``Rollout-Waiting``)."""
    events: tuple[str, ...] = ()
    """What they did, one line each (the message's body)."""
    statuses: str | None = None
    """The commit statuses they were judged on (``Rollout-Statuses``)."""


def commit_message(
    source: str,
    summary: CommitSummary,
    message: str | None = None,
    status_commit: str | None = None,
    *,
    run_time: str | None = None,
    failover_due: str | None = None,
    rollout: RolloutTrailers | None = None,
) -> str:
    """The reconcile commit's message; its trailers let the tool recognise its own commits."""
    rollout = rollout or RolloutTrailers()
    title = message or f"gitops-karmada: reconcile {source[:12]}"
    body = (
        f"{summary.bindings} binding(s); {summary.written} file(s) written, {summary.deleted} deleted"
        + (
            f"; {summary.failed} template(s) failed and kept their previous placement"
            if summary.failed
            else ""
        )
        + "."
    )
    if summary.reverted:
        body += "\n\nReverted hand edits of managed files:\n" + "".join(f"- {p}\n" for p in summary.reverted)
        body = body.rstrip("\n")
    if rollout.events:
        body += "\n\nRollouts:\n" + "".join(f"- {event}\n" for event in rollout.events)
        body = body.rstrip("\n")
    failed = f"{wellknown.FAILED_TEMPLATES_TRAILER}: {summary.failed}\n" if summary.failed else ""
    return (
        f"{title}\n\n{body}\n\n"
        f"{wellknown.SOURCE_COMMIT_TRAILER}: {source}\n"
        f"{wellknown.RENDERED_BY_TRAILER}: {RENDERED_BY}\n"
        f"{failed}"
        + (f"{wellknown.STATUS_COMMIT_TRAILER}: {status_commit}\n" if status_commit else "")
        + (f"{wellknown.RUN_TIME_TRAILER}: {run_time}\n" if run_time else "")
        + (f"{wellknown.FAILOVER_DUE_TRAILER}: {failover_due}\n" if failover_due else "")
        + (f"{wellknown.ROLLOUT_DUE_TRAILER}: {rollout.due}\n" if rollout.due else "")
        + (f"{wellknown.ROLLOUT_WAITING_TRAILER}: {', '.join(rollout.waiting)}\n" if rollout.waiting else "")
        + (f"{wellknown.ROLLOUT_STATUSES_TRAILER}: {rollout.statuses}\n" if rollout.statuses else "")
    )


def create_repository(path: Path, message: str) -> str:
    """``git init`` ``path`` and commit everything in it on ``main`` (used by ``demo``)."""
    env = {
        "GIT_AUTHOR_NAME": "gitops-karmada demo",
        "GIT_AUTHOR_EMAIL": "demo@gitops-karmada.invalid",
        "GIT_COMMITTER_NAME": "gitops-karmada demo",
        "GIT_COMMITTER_EMAIL": "demo@gitops-karmada.invalid",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", message]):
        completed = subprocess.run(
            ["git", *args], cwd=path, env={**os.environ, **env}, capture_output=True, text=True, check=False
        )
        if completed.returncode != 0:
            raise GitError(args[0], completed.stderr.strip()[-2000:])
    return GitStore.open(path).resolve("HEAD")
