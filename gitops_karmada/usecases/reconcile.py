"""Reconcile a Git repository: read a branch tip, render, commit once, optionally push with retries.

Used by the ``reconcile``, ``reschedule``, ``rollback`` and ``demo`` commands and the watch daemon. A push
rejected as non-fast-forward means someone else pushed meanwhile: fetch, move the local branch to the
remote tip, render again from there and retry, a bounded number of times.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.committed_outputs import CommittedOutputs
from gitops_karmada.adapters.fleet_config import read_config
from gitops_karmada.adapters.fork_pool import ForkPool
from gitops_karmada.adapters.repository import (
    RepositoryState,
    RolloutTrailers,
    StatusChoice,
    commit_message,
    read_commit,
    summarize,
)
from gitops_karmada.adapters.rollout_signals import statuses_trailer
from gitops_karmada.adapters.shard_store import (
    OutputView,
    ShardWrite,
    fetch_missing_shards,
    layout_pending,
    log_output_write,
    output_view,
    push_shards,
    write_output,
)
from gitops_karmada.adapters.tool_commits import latest_tool_commit
from gitops_karmada.core.codecs.times import format_time, parse_time, seconds
from gitops_karmada.core.diff.removals import InputHistory
from gitops_karmada.core.incremental.change_scope import ChangedInputs
from gitops_karmada.core.inputs.loading import input_path_filter, load
from gitops_karmada.core.layout import RepoLayout, config_path
from gitops_karmada.core.shards import shard_plan
from gitops_karmada.model.errors import GitError
from gitops_karmada.model.inputs import Inputs
from gitops_karmada.reconcile import RenderResult, reconcile
from gitops_karmada.usecases.host_limits import check_host_limits, log_host_limits
from gitops_karmada.usecases.up_to_date import Preflight, UpToDate, preflight, target_ref

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence
    from datetime import datetime

    from gitops_karmada.adapters.git_blob_stream import BlobStream
    from gitops_karmada.adapters.git_blob_writer import BlobWriter
    from gitops_karmada.adapters.git_log import PathChange
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.adapters.warm_state import WarmState
    from gitops_karmada.core.diff.model import PlanDiff
    from gitops_karmada.core.failover.controllers import FailoverOutcome
    from gitops_karmada.core.file_changes import FileChange
    from gitops_karmada.core.host_limits import HostLimitFinding
    from gitops_karmada.model.config import ToolConfig

PUSH_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class ReconcileOutcome:
    state: RepositoryState | None
    """The repository state read (None when nothing needed reading: see ``up_to_date``)."""
    result: RenderResult | None
    changes: Mapping[str, FileChange] = field(default_factory=dict)
    commit: str | None = None
    """The reconcile commit, or None when nothing changed (or a dry run, input errors, a guardrail)."""
    pushed: bool = False
    guard: PlanDiff | None = None
    """The deletion guard's verdict on the changes (its ``violations`` refuse the commit)."""
    reverted: tuple[str, ...] = ()
    """Managed files edited by hand since the last reconcile that this run rewrites or deletes."""
    up_to_date: UpToDate | None = None
    """Nothing the pipeline reads changed since a reconcile commit of this tool version: its output stands,
    and nothing was read or rendered."""
    shards: tuple[ShardWrite, ...] = ()
    """The output shards the commit wrote or kept (sharded output modes)."""
    host_limits: tuple[HostLimitFinding, ...] = ()
    """Folders and files the changes leave past what a Git host handles well (``output.hostLimits``)."""

    @property
    def source(self) -> str:
        """The commit the run is about."""
        if self.up_to_date is not None:
            return self.up_to_date.source
        assert self.state is not None and self.state.source is not None
        return self.state.source

    @property
    def refused(self) -> bool:
        return self.guard is not None and bool(self.guard.violations)

    @property
    def failover_due(self) -> str | None:
        """When the failover work this run left falls due (what its commit's ``Failover-Due`` says)."""
        if self.result is None or self.result.failover is None or self.state is None:
            return None
        return due_after(self.state.request.snapshot.now, self.result.failover.requeue_after_seconds)

    @property
    def rollout_due(self) -> str | None:
        """When time alone moves a rollout this run left in flight (its commit's ``Rollout-Due``)."""
        return rollout_due(self.result) if self.result is not None else None


def log_failover(outcome: FailoverOutcome) -> None:
    """One line per thing the failover controllers did, and when a later run would do more."""
    for event in outcome.events:
        log = logger.bind(logger="failover", cluster=event.cluster, action=event.what)
        where = f" {event.cluster}" if event.cluster else ""
        (log.warning if event.what == "failed" else log.info)(
            "{}: {}{}: {}", event.template, event.what, where, event.message
        )
    if outcome.queue.items:
        logger.bind(logger="failover", depth=len(outcome.queue.items)).info(
            "{} eviction(s) wait in the eviction queue; the next turn is at {}",
            len(outcome.queue.items),
            outcome.queue.next_free_at,
        )
    for pending in outcome.pending:
        logger.bind(logger="failover", cluster=pending.cluster, due=pending.due).warning(
            "{} will be evicted from {} at {} unless the cluster recovers: {}",
            pending.template,
            pending.cluster,
            pending.due,
            pending.reason,
        )
    if outcome.requeue_after_seconds is not None:
        logger.bind(logger="failover").info(
            "failover decides more in {:.0f} s: a reconcile then acts on it (the daemon runs one itself)",
            outcome.requeue_after_seconds,
        )


def reconcile_ref(
    store: GitStore,
    ref: str,
    *,
    dry_run: bool = False,
    message: str | None = None,
    reschedule: frozenset[tuple[str, str, str, str]] = frozenset(),
    allow: frozenset[str] = frozenset(),
    full: bool = False,
    progress: Callable[[int, int], None] | None = None,
    warm: WarmState | None = None,
    cancelled: Callable[[], bool] | None = None,
    rolled_back_to: str | None = None,
    clock: datetime | None = None,
    checked: Preflight | None = None,
) -> ReconcileOutcome:
    """Render the tip of ``ref`` and commit the result on it (unless ``dry_run`` or a guardrail refuses).

    ``reschedule`` names templates (by group, kind, namespace, name) whose replicas are divided afresh;
    ``allow`` lifts guardrails of the repository's configuration by name (``all``: every one); ``full``
    redoes every template instead of reusing those whose inputs did not change; ``warm``: what a long-lived
    caller keeps between runs (the daemon); ``cancelled``: asked during the render, True raises
    ``RunCancelled`` before anything is written; ``rolled_back_to``: the revision a rollback restored, whose
    removals are what the user asked for; ``clock``: the time now (the wall clock, or ``--now``): when the
    failover work the last reconcile left falls due by it, a run is made at that time although nothing was
    committed since (and records the time it ran at); ``checked``: the ``preflight`` of ``ref`` made
    already (by the CLI, before it imported the engine).
    """
    checked = checked or preflight(
        store, ref, dry_run=dry_run, judge_all=bool(reschedule or full), clock=clock
    )
    if checked.up_to_date is not None:
        return ReconcileOutcome(None, None, up_to_date=checked.up_to_date)
    since, due = checked.since, checked.due
    # the write path needs only what it redoes: reused templates' records are not read at all
    state = read_commit(
        store,
        ref,
        reschedule=reschedule,
        full=full,
        materialize=False,
        warm=warm,
        status=StatusChoice.TIP,
        clock=due,
        shard_tips=True,
    )
    if since is not None and not since.others and since.source == state.source:
        # only input files changed since the last reconcile: the templates they cannot touch stand unjudged
        changed = changed_inputs(store, since.inputs, state.request.config)
        state = replace(state, request=state.request.with_snapshot(changed=changed))
    # what changed since the tool's last commit names the cause of every file the run removes
    assert state.source is not None
    history = input_history(store, state.source, state.request.config)
    state = replace(
        state, request=state.request.with_snapshot(history=history).with_mode(rolled_back_to=rolled_back_to)
    )
    # a first run's tens of thousands of blobs are hashed once, and written while the run finishes
    hash_blob = store.remembered_blob_id()
    state = replace(state, request=state.request.with_ports(hash_blob=hash_blob))
    writer = None if dry_run else store.blob_writer(hash_blob)
    # the rendered files go into the object database as they are made, in whichever process makes them
    stream = None if dry_run else store.blob_stream()
    if stream is not None:
        pool = state.request.ports.fan_out
        state = replace(
            state,
            request=state.request.with_ports(
                store=stream,
                fan_out=replace(pool, finish=stream.seal) if isinstance(pool, ForkPool) else pool,
            ),
        )
    write = _Write(writer, stream, dry_run, message, allow, timed=due is not None)
    try:
        state = replace(state, request=state.request.with_ports(progress=progress, cancelled=cancelled))
        return _commit_result(store, ref, state, write)
    finally:
        if stream is not None:
            stream.close()
        if writer is not None:
            writer.close()


@dataclass(frozen=True, slots=True)
class _Write:
    """How a run's result is written: the blob writers, and what the commit says and may do."""

    writer: BlobWriter | None
    stream: BlobStream | None
    dry_run: bool
    message: str | None
    allow: frozenset[str]
    timed: bool
    """The run was made because failover work fell due: its commit records the time it ran at."""


def due_after(now: str, requeue_after_seconds: float | None) -> str | None:
    """The time ``requeue_after_seconds`` after ``now`` (RFC 3339), or None when nothing is waiting."""
    if requeue_after_seconds is None:
        return None
    return format_time(parse_time(now) + seconds(requeue_after_seconds))


def rollout_due(result: RenderResult) -> str | None:
    """The earliest time a rollout of ``result`` is moved on by time alone."""
    dues = [o.rollout.due for o in result.outcomes if o.rollout is not None and o.rollout.due]
    return min(dues, key=parse_time) if dues else None


def rollout_waiting(result: RenderResult) -> tuple[str, ...]:
    """What the rollouts of ``result`` wait for from outside the repository's files, each once."""
    return tuple(sorted({w for o in result.outcomes if o.rollout is not None for w in o.rollout.external}))


def rollout_events(result: RenderResult) -> tuple[str, ...]:
    """What the rollouts did this run, one line per template and event (the commit message's body)."""
    return tuple(
        f"{o.key}: {event}" for o in result.outcomes if o.rollout is not None for event in o.rollout.events
    )


def _commit_result(store: GitStore, ref: str, state: RepositoryState, write: _Write) -> ReconcileOutcome:
    result = reconcile(state.request.with_ports(emit=write.writer).with_mode(guard=write.allow))
    if not result.input_ok or result.guarded is None:
        return ReconcileOutcome(state, result)
    if result.failover is not None:
        log_failover(result.failover)
    changes, checked = result.guarded.changes, result.guarded.plan
    reverted = reverted_hand_edits(store, state, changes)
    if reverted:
        shown = ", ".join(reverted[:10]) + (f" and {len(reverted) - 10} more" if len(reverted) > 10 else "")
        logger.bind(logger="reconciler", files=len(reverted)).warning(
            "{} managed file(s) were edited by hand since the last reconcile; this run {} them to what the "
            "inputs render: {} (change the inputs instead, or use a hand-written file the tool does not own)",
            len(reverted),
            "would revert" if write.dry_run or checked.violations else "reverts",
            shown,
        )
    assert state.source is not None
    view = state.view or OutputView(state.source)
    # counted in the tree the run reads and writes (the shards' folders, in a sharded output mode)
    limits = check_host_limits(store, view.rev, changes, state.request.config, state.current_blobs)
    log_host_limits(limits)
    layout = RepoLayout.of(state.request.config)
    assert result.inputs is not None
    plan = shard_plan(state.request.config.output, result.inputs.clusters)
    if view.behind:
        logger.bind(logger="output", shards=len(view.behind)).warning(
            "output shard branch(es) {} are not where the last reconcile recorded them (a run interrupted "
            "between shards, or a commit made on the branch): this run {} them from the inputs",
            ", ".join(f"{name} ({view.branch_of(name)})" for name in view.behind),
            "would write" if write.dry_run or checked.violations else "writes",
        )
    pending = None if changes else layout_pending(store, state.source, view, plan, layout)
    if write.dry_run or not (changes or pending) or checked.violations:
        return ReconcileOutcome(state, result, changes, guard=checked, reverted=reverted, host_limits=limits)
    if pending:
        logger.bind(logger="output").info("writing the output although no file changed: {}", pending)
    if write.stream is not None:
        write.stream.seal()  # the stored files must all be in the object database before a commit names them
    now = state.request.snapshot.now
    written = write_output(
        store,
        source=state.source,
        ref=ref,
        view=view,
        plan=plan,
        layout=layout,
        changes=changes,
        message=commit_message(
            state.source,
            summarize(result, changes, reverted),
            write.message,
            status_commit=state.status_commit,
            run_time=now if write.timed else None,
            failover_due=due_after(now, result.failover.requeue_after_seconds) if result.failover else None,
            rollout=RolloutTrailers(
                rollout_due(result),
                rollout_waiting(result),
                rollout_events(result),
                statuses_trailer(state.request.snapshot.rollout_signals),
            ),
        ),
        written=write.writer.written() if write.writer is not None else None,
    )
    log_output_write(written, layout)
    if written.commit is not None:
        _remember_counts(store, written.commit, layout, state, checked)
    # no log line of its own: the CLI prints "committed" on stdout, the daemon logs the run with its commit
    return ReconcileOutcome(
        state,
        result,
        changes,
        written.commit,
        guard=checked,
        reverted=reverted,
        shards=written.shards,
        host_limits=limits,
    )


def _remember_counts(
    store: GitStore, commit: str, layout: RepoLayout, state: RepositoryState, plan: PlanDiff
) -> None:
    """The file count of each cluster folder after ``commit``, kept for the next run's guard: the counts the
    guard read before, with the plan's counts after for the folders it changed."""
    outputs = state.request.snapshot.output_blobs
    if not isinstance(outputs, CommittedOutputs) or outputs.counted is None:
        return  # never counted (a run without the guard): nothing known to keep
    after = {**outputs.counted, **{c.cluster: c.objects_after for c in plan.clusters}}
    try:
        view = output_view(store, commit, layout)
    except GitError as err:  # an optimisation only: the commit is made, the next run counts for itself
        logger.bind(logger="output").debug("the cluster folders' counts are not kept: {}", err)
        return
    outputs.remember_counts(view.rev, after)


def changed_inputs(
    store: GitStore, changes: Sequence[PathChange], config: ToolConfig, asked: Collection[str] | None = None
) -> ChangedInputs | None:
    """The input files ``changes`` names (since a reconcile commit, ``since_reconcile``), with their
    documents as that reconcile read them; None when there are none or those do not load (then a run judges
    every template). ``asked``: templates whose outcome the caller reads, judged whatever changed."""
    if not changes:
        return None
    before = store.read_blobs(sorted({c.old_oid for c in changes if c.old_oid is not None}))
    loaded = load({c.path: before[c.old_oid] for c in changes if c.old_oid is not None}, config)
    if not loaded.ok:
        return None
    return ChangedInputs(
        paths=frozenset(c.path for c in changes), before=loaded.inputs, asked=frozenset(asked or ())
    )


def input_history(store: GitStore, head: str, config: ToolConfig) -> InputHistory | None:
    """The input files changed between the tool's last commit on ``head``'s history (of any version) and
    ``head``, with their documents as that commit had them, and whether the configuration changed; None
    when the tool never committed there (no previous output, so nothing can be removed)."""
    anchor = latest_tool_commit(store, head)
    if anchor is None:
        return None
    if anchor.commit == head:
        return InputHistory(frozenset(), Inputs())
    is_input, own = input_path_filter(config), config_path(config.fleet_root)
    changes = [c for c in store.diff(anchor.commit, head) if is_input(c.path) or c.path == own]
    inputs = [c for c in changes if c.path != own]
    before = store.read_blobs(sorted({c.old_oid for c in inputs if c.old_oid is not None}))
    loaded = load({c.path: before[c.old_oid] for c in inputs if c.old_oid is not None}, config)
    return InputHistory(
        paths=frozenset(c.path for c in inputs),
        before=loaded.inputs,
        config_changed=len(inputs) != len(changes),
    )


def reverted_hand_edits(
    store: GitStore, state: RepositoryState, changes: Mapping[str, FileChange]
) -> tuple[str, ...]:
    """Managed paths changed by commits after the last tool commit that ``changes`` rewrites or deletes."""
    if state.source is None or not changes:
        return ()
    anchor = latest_tool_commit(store, state.source)
    if anchor is None or anchor.commit == state.source:
        return ()
    folders = RepoLayout.of(state.request.config).folders
    return tuple(
        sorted(c.path for c in store.diff(anchor.commit, state.source, folders) if c.path in changes)
    )


def _rebase_onto_remote(store: GitStore, ref: str, outcome: ReconcileOutcome, remote_sha: str) -> None:
    """Move ``ref`` to the remote tip, dropping only our own reconcile commit (never a user's commit)."""
    base = outcome.source
    local = store.resolve(ref)
    if local not in (base, outcome.commit) or not store.is_ancestor(base, remote_sha):
        raise GitError(
            "push",
            f"{ref} and its upstream have diverged (local {local[:12]}, remote {remote_sha[:12]}); "
            "integrate the remote changes (git pull --rebase) and run reconcile again",
        )
    store.move_ref(ref=ref, old=local, new=remote_sha)


def push_branch(
    store: GitStore, ref: str, remote: str, remote_branch: str, written: tuple[ShardWrite, ...] = ()
) -> None:
    """Push ``ref`` to ``remote_branch``: the output shards its tip records first (``written``: those a run
    just emptied too), those of ``remote`` in the same atomic push, so the remote's branch never names a
    shard commit the remote lacks."""
    layout = RepoLayout.of(read_config(store, ref)[0])
    push_shards(
        store, store.resolve(ref), layout, remote, written, source_branch=remote_branch, source_ref=ref
    )


def reconcile_and_push(
    store: GitStore,
    ref: str,
    *,
    message: str | None = None,
    allow: frozenset[str] = frozenset(),
    full: bool = False,
    progress: Callable[[int, int], None] | None = None,
    warm: WarmState | None = None,
    cancelled: Callable[[], bool] | None = None,
    clock: datetime | None = None,
) -> ReconcileOutcome:
    """Reconcile, then push to the branch's upstream; on a rejected push fetch, re-render and retry."""
    if not ref.startswith("refs/heads/"):
        raise GitError("push", "--push needs a branch checked out (HEAD is detached)")
    upstream = store.upstream(ref)
    if upstream is None:
        raise GitError("push", f"{ref} has no upstream; set one with git branch --set-upstream-to")
    remote, remote_branch = upstream
    render = partial(
        reconcile_ref,
        store,
        ref,
        message=message,
        allow=allow,
        full=full,
        progress=progress,
        warm=warm,
        cancelled=cancelled,
        clock=clock,
    )
    fetch_missing_shards(store, store.resolve(ref), RepoLayout.of(read_config(store, ref)[0]), remote)
    outcome = render()
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        if outcome.up_to_date is None and (outcome.result is None or not outcome.result.input_ok):
            return outcome
        if outcome.refused:
            return outcome
        try:
            push_branch(store, ref, remote, remote_branch, outcome.shards)
        except GitError as err:
            if not err.temporary or attempt == PUSH_ATTEMPTS:
                raise
            logger.bind(logger="reconciler", attempt=attempt).warning(
                "push rejected, re-rendering: {}", err.detail
            )
            remote_sha = store.fetch(remote, remote_branch)
            _rebase_onto_remote(store, ref, outcome, remote_sha)
            fetch_missing_shards(store, remote_sha, RepoLayout.of(read_config(store, ref)[0]), remote)
            outcome = render()
            continue
        logger.bind(logger="reconciler", remote=remote, branch=remote_branch).info("pushed {}", ref)
        return replace(outcome, pushed=True)
    return outcome


def reconcile_rev(
    store: GitStore,
    rev: str,
    *,
    dry_run: bool = False,
    push: bool = False,
    message: str | None = None,
    allow: frozenset[str] = frozenset(),
    full: bool = False,
    detached: bool = False,
    progress: Callable[[int, int], None] | None = None,
    clock: datetime | None = None,
    checked: Preflight | None = None,
) -> ReconcileOutcome:
    """What ``reconcile`` does with ``rev``: a dry run reads it as it is; otherwise the run commits on the
    branch ``rev`` names (``target_ref``; a detached HEAD only when ``detached``) and, with ``push``, pushes
    to its upstream. ``clock``: the time now (see ``reconcile_ref``); ``checked``: its ``preflight``."""
    if dry_run:
        return reconcile_ref(store, rev, dry_run=True, allow=allow, full=full, progress=progress, clock=clock)
    ref = target_ref(store, rev, detached=detached)
    if push:
        return reconcile_and_push(
            store, ref, message=message, allow=allow, full=full, progress=progress, clock=clock
        )
    return reconcile_ref(
        store, ref, message=message, allow=allow, full=full, progress=progress, clock=clock, checked=checked
    )
