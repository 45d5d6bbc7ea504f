"""Whether a run has anything to do: the checks a reconcile makes before it reads the fleet.

Light on purpose: a ``reconcile`` with nothing to do (nothing the pipeline reads changed since the last
reconcile commit, no failover or rollout work due) answers from a few git calls and the configuration, and
imports nothing of the engine (the CLI asks here first; ``usecases.reconcile`` asks here too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.fleet_config import read_config
from gitops_karmada.adapters.shard_store import shards_behind
from gitops_karmada.adapters.tool_commits import RENDERED_BY, latest_tool_commit
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.layout import RepoLayout, branch_ref, config_path
from gitops_karmada.model import wellknown
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from gitops_karmada.adapters.git_log import LogEntry, PathChange
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.config import ToolConfig


def target_ref(store: GitStore, rev: str, *, detached: bool = False) -> str:
    """The ref a reconcile of ``rev`` commits to: the checked-out branch, a named branch, or (``detached``
    only) a detached HEAD: a commit there belongs to no branch, so nothing syncs it and the next checkout
    leaves it behind."""
    if rev == "HEAD":
        branch = store.head_ref()
        if branch is not None:
            return branch
        if not detached:
            raise GitError(
                "reconcile",
                f"HEAD is detached (at {store.resolve('HEAD')[:12]}): a commit there belongs to no branch; "
                "check out the branch to reconcile, name it with --rev BRANCH, or pass --detached to commit "
                "on the detached HEAD anyway",
            )
        return "HEAD"
    branch = rev if rev.startswith("refs/heads/") else f"refs/heads/{rev}"
    try:
        store.resolve(branch)
    except GitError:
        pass
    else:
        return branch
    head = store.head_ref()
    if store.resolve(rev) == store.resolve(head or "HEAD"):
        return target_ref(store, "HEAD", detached=detached)
    raise GitError(
        "reconcile",
        f"{rev!r} is neither HEAD nor a branch; reconcile commits on top of the revision it reads "
        "(use --dry-run to inspect an older revision)",
    )


def failover_fell_due(
    store: GitStore, ref: str, since: SinceReconcile | None, clock: datetime | None
) -> datetime | None:
    """The time now (``clock``, else the time a commit made now would carry), when the failover or rollout
    work the last reconcile of ``ref`` left (its ``Failover-Due``/``Rollout-Due`` trailers) is due by it;
    None otherwise."""
    due = since.due if since is not None else next_due(store, ref)
    if due is None:
        return None
    now = clock if clock is not None else store.clock()
    try:
        return now if parse_time(due) <= now else None
    except ValueError:
        return None


def next_due(store: GitStore, ref: str) -> str | None:
    """When the failover or rollout work the last reconcile of ``ref`` left falls due (the earliest of its
    ``Failover-Due`` and ``Rollout-Due`` trailers)."""
    anchor = latest_tool_commit(store, store.resolve(ref))
    return earliest_due(anchor.trailers) if anchor is not None else None


def earliest_due(trailers: Mapping[str, str]) -> str | None:
    """The earliest time the due trailers of a commit name (``wellknown.DUE_TRAILERS``)."""
    found = [trailers[name] for name in wellknown.DUE_TRAILERS if trailers.get(name)]
    try:
        return min(found, key=parse_time) if found else None
    except ValueError:
        return found[0]


@dataclass(frozen=True, slots=True)
class UpToDate:
    source: str
    """The commit read."""
    reconciled: str
    """The tool commit whose output stands for it."""


@dataclass(frozen=True, slots=True)
class SinceReconcile:
    source: str
    """The commit read."""
    reconciled: str
    """Its last reconcile commit (made by this version of the tool, every template succeeded)."""
    inputs: tuple[PathChange, ...]
    """The input files changed since."""
    others: bool
    """Whether anything else the pipeline reads changed since: the configuration, the managed folders."""
    due: str | None = None
    """When the failover work that reconcile left falls due (its ``Failover-Due`` trailer)."""

    @property
    def unchanged(self) -> bool:
        """Nothing the pipeline reads changed: a run would make exactly the reconcile commit's output."""
        return not self.inputs and not self.others


def since_reconcile(store: GitStore, ref: str) -> SinceReconcile | None:
    """What changed since the last reconcile commit of ``ref``, when the output of that commit can stand
    for every template the changes do not touch: it was made by this version of the tool, every template
    succeeded in it, and the member clusters reported nothing since."""
    head = store.resolve(ref)
    anchor = latest_tool_commit(store, head)
    if anchor is None or anchor.trailers.get(wellknown.RENDERED_BY_TRAILER) != RENDERED_BY:
        return None
    if wellknown.FAILED_TEMPLATES_TRAILER in anchor.trailers:
        return None  # failures are retried, and reported, on every run
    config, _ = read_config(store, head)
    status_tip = store.try_resolve(branch_ref(config.status.branch))
    due = earliest_due(anchor.trailers)
    if anchor.trailers.get(wellknown.STATUS_COMMIT_TRAILER) != status_tip:
        if anchor.commit == head and heartbeats_only(store, config, anchor, status_tip):
            return SinceReconcile(head, head, (), others=False, due=due)
        return None  # the member clusters reported something the last reconcile did not see
    if shards_behind(store, head, RepoLayout.of(config)):
        return SinceReconcile(head, anchor.commit, (), others=True, due=due)  # a shard branch moved
    if anchor.trailers.get(wellknown.ROLLOUT_WAITING_TRAILER) and anchor.commit != head:
        # an approval is a commit of its own, a commit status comes with none: look again
        return SinceReconcile(head, anchor.commit, (), others=True, due=due)
    if anchor.commit == head:
        return SinceReconcile(head, head, (), others=False, due=due)
    from gitops_karmada.core.inputs.loading import input_path_filter  # inputs changed: a run will follow

    is_input = input_path_filter(config)
    own = config_path(config.fleet_root)
    watched = RepoLayout.of(config).watched_prefixes
    inputs = []
    for change in store.diff(anchor.commit, head):
        if change.path == own or change.path.startswith(watched):
            return SinceReconcile(head, anchor.commit, (), others=True, due=due)
        if is_input(change.path):
            inputs.append(change)
    return SinceReconcile(head, anchor.commit, tuple(inputs), others=False, due=due)


def heartbeats_only(store: GitStore, config: ToolConfig, anchor: LogEntry, status_tip: str | None) -> bool:
    """Whether the status commits after the one ``anchor`` (the last reconcile) recorded only refresh the
    clusters' heartbeats (``core.observed.heartbeat``): then its output stands, and nothing is rendered. Not
    with a rollout in flight: its gates read how fresh each report is."""
    recorded = anchor.trailers.get(wellknown.STATUS_COMMIT_TRAILER)
    if recorded is None or status_tip is None or anchor.trailers.get(wellknown.ROLLOUT_WAITING_TRAILER):
        return False
    if anchor.trailers.get(wellknown.ROLLOUT_DUE_TRAILER):
        return False
    # only when the status branch moved: the snapshots' models are the engine's
    from gitops_karmada.adapters.status_store import read_status
    from gitops_karmada.core.observed.heartbeat import heartbeat_only

    before = read_status(store, config.status.branch, recorded)
    after = read_status(store, config.status.branch, status_tip)
    assert after.committed_at is not None
    return heartbeat_only(
        before.snapshots,
        after.snapshots,
        judged_at=store.commit_time(anchor.commit),
        now=max(store.clock(), after.committed_at),
        grace_seconds=config.failover.cluster_monitor_grace_period_seconds,
    )


def unchanged_since_reconcile(store: GitStore, ref: str) -> UpToDate | None:
    """The last reconcile commit of ``ref``, when nothing the pipeline reads (inputs, configuration,
    snapshots, the managed folders) changed after it (see ``since_reconcile``): then a run would make
    exactly that output again."""
    since = since_reconcile(store, ref)
    if since is None or not since.unchanged:
        return None
    return UpToDate(since.source, since.reconciled)


def uncommitted_inputs(store: GitStore, config: ToolConfig) -> tuple[str, ...]:
    """Input files (and the configuration) with edits in the work tree that a run reading a commit misses."""
    layout = RepoLayout.of(config)
    changed = store.uncommitted(exclude=(layout.output_prefix, layout.state_prefix))
    if not changed:
        return ()
    from gitops_karmada.core.inputs.loading import input_path_filter  # the engine's rule, asked only now

    is_input = input_path_filter(config)
    return tuple(p for p in changed if is_input(p) or p == config_path(config.fleet_root))


def warn_uncommitted_inputs(store: GitStore, rev: str, config: ToolConfig) -> tuple[str, ...]:
    """Log a warning naming the uncommitted input edits when ``rev`` is the checked-out commit."""
    commit = store.try_resolve(rev)
    if store.work_tree is None or commit is None or commit != store.try_resolve("HEAD"):
        return ()
    pending = uncommitted_inputs(store, config)
    if pending:
        shown = ", ".join(pending[:10]) + (f" and {len(pending) - 10} more" if len(pending) > 10 else "")
        logger.bind(logger="repository", files=len(pending)).warning(
            "{} input file(s) have uncommitted edits that this run does not read (it reads commit {}): "
            "{}; commit them first (validate and render can read them with --worktree)",
            len(pending),
            commit[:12],
            shown,
        )
    return pending


@dataclass(frozen=True, slots=True)
class Preflight:
    """What a run checks before it reads the fleet."""

    since: SinceReconcile | None
    """What changed since the last reconcile commit (None: unknown, every template is judged)."""
    due: datetime | None
    """The time now, when failover or rollout work the last reconcile left is due by it."""

    @property
    def up_to_date(self) -> UpToDate | None:
        """Nothing to do: the last reconcile commit's output stands."""
        since = self.since
        if since is None or not since.unchanged or self.due is not None:
            return None
        return UpToDate(since.source, since.reconciled)


def preflight(
    store: GitStore,
    ref: str,
    *,
    dry_run: bool = False,
    judge_all: bool = False,
    clock: datetime | None = None,
) -> Preflight:
    """Finish a work-tree update a killed run left (not for a dry run), warn of uncommitted input edits,
    and find what changed since the last reconcile (``judge_all``: nothing is taken as unchanged) and
    whether failover or rollout work fell due by ``clock``."""
    if not dry_run:
        store.recover(ref)  # a killed earlier run may have left the work tree behind the branch
    config, _ = read_config(store, ref)
    warn_uncommitted_inputs(store, ref, config)
    since = None if judge_all else since_reconcile(store, ref)
    return Preflight(since, failover_fell_due(store, ref, since, clock))
