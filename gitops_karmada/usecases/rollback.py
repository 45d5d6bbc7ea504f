"""``rollback REV``: one new commit restoring REV's inputs and the output REV produced, then a reconcile.

History is never rewritten. The output restored is the one a reconcile commit recorded (binding records
included), not a fresh rendering, because a fresh rendering with today's records can differ (Steady
division, sticky claims). Hand-written files in the cluster folders are never deleted or rewritten.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada import __version__
from gitops_karmada.adapters.git_log import PathChange
from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.adapters.tool_commits import is_tool_commit
from gitops_karmada.core.diff.bound import binding_key
from gitops_karmada.core.diff.model import ChangeKind
from gitops_karmada.core.diff.removals import RemovalFacts, attribute_removals, group_removals
from gitops_karmada.core.diff.writeguard import guard, write_plan
from gitops_karmada.core.inputs.loading import Decoded, decode, input_path_filter, reads_path
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model import wellknown
from gitops_karmada.model.inputs import Inputs
from gitops_karmada.reconcile import reconcile
from gitops_karmada.reconcile.guard import guardrails_for
from gitops_karmada.usecases.lifecycle import (
    ROLLBACK_TO_TRAILER,
    LifecycleError,
    is_regular_mode,
    owned_paths,
    parse_records,
    read_config,
    read_ownership,
    read_state,
    source_commit,
)
from gitops_karmada.usecases.reconcile import ReconcileOutcome, reconcile_ref

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.adapters.git_tree import TreeEntry
    from gitops_karmada.core.diff.model import PlanDiff
    from gitops_karmada.model.config import ToolConfig


class FileRole(enum.StrEnum):
    """Why a rollback changes a path."""

    INPUT = "input"
    STATE = "state"
    OUTPUT = "output"


@dataclass(frozen=True, slots=True)
class OutputSource:
    """The reconcile commit whose output (records and rendered files) a rollback restores."""

    commit: str
    source: str
    """The commit whose inputs it rendered (its Source-Commit)."""
    reason: str
    """How it was found, for the report."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackPlan:
    ref: str
    tip: str
    target: str
    """The full id of REV."""
    output: OutputSource | None
    """None: no reconcile commit of REV's inputs exists; only the inputs are restored."""
    changes: Mapping[str, bytes | None] = field(default_factory=dict)
    roles: Mapping[str, FileRole] = field(default_factory=dict)
    hand_written: tuple[str, ...] = ()
    """Hand-written files in the cluster folders at the tip: all of them are kept as they are."""
    released: tuple[str, ...] = ()
    """Manifests released from management at the tip (kept, like hand-written files)."""
    guard: PlanDiff | None = None
    """What the rollback commit does to the fleet, checked against the repository's guardrails."""

    @property
    def refused(self) -> bool:
        return self.guard is not None and bool(self.guard.violations)

    def message(self, title: str | None = None) -> str:
        """The rollback commit's message. With an output restored it is a tool commit (Rendered-By), so
        ``verify`` and ``history`` read its files as the tool's; Source-Commit names the rendered inputs."""
        counts = {role: sum(1 for r in self.roles.values() if r is role) for role in FileRole}
        summary = (
            f"{counts[FileRole.INPUT]} input file(s), {counts[FileRole.STATE]} binding record(s) and "
            f"{counts[FileRole.OUTPUT]} rendered file(s) changed; hand-written files kept."
        )
        if self.output is None:
            body = (
                f"No reconcile commit of these inputs was found: only the inputs of {self.target[:12]} are "
                f"restored; the next reconcile renders them afresh.\n{summary}"
            )
            heading = title or f"gitops-karmada: rollback inputs to {self.target[:12]}"
            return f"{heading}\n\n{body}\n\n{ROLLBACK_TO_TRAILER}: {self.target}\n"
        body = (
            f"Restores the inputs of {self.target[:12]} and the output of reconcile commit "
            f"{self.output.commit[:12]} ({self.output.reason}).\n{summary}"
        )
        heading = title or f"gitops-karmada: rollback to {self.target[:12]}"
        return (
            f"{heading}\n\n{body}\n\n"
            f"{ROLLBACK_TO_TRAILER}: {self.target}\n"
            f"{wellknown.SOURCE_COMMIT_TRAILER}: {self.output.source}\n"
            f"{wellknown.RENDERED_BY_TRAILER}: gitops-karmada {__version__}\n"
        )


@dataclass(frozen=True, slots=True)
class RollbackOutcome:
    plan: RollbackPlan
    commit: str | None
    """The rollback commit (None when the branch already held exactly that state)."""
    reconcile: ReconcileOutcome


def plan_rollback(
    store: GitStore,
    ref: str,
    rev: str,
    *,
    allow_unrelated: bool = False,
    allow: frozenset[str] = frozenset(),
) -> RollbackPlan:
    """What ``rollback`` would commit on ``ref`` to return to ``rev``; nothing is written.

    The plan carries the guardrails' verdict (``allow`` lifts some by name, as for reconcile).
    """
    tip, target = store.resolve(ref), store.resolve(rev)
    if not allow_unrelated and not store.is_ancestor(target, tip):
        raise LifecycleError(
            f"{rev} ({target[:12]}) is not in the history of {ref}: rolling back to it would bring in "
            "unrelated changes; pass --force-unrelated if that is what you want"
        )
    layout = RepoLayout.of(read_config(store, tip)[0])
    target_config, _ = read_config(store, target)
    target_layout = RepoLayout.of(target_config)
    if target_layout.buckets != layout.buckets and target_layout.folders == layout.folders:
        raise LifecycleError(
            f"output.buckets differs between {rev} ({target_layout.buckets}) and {ref} ({layout.buckets}): "
            "rollback across a change of the bucket folders is not supported; set output.buckets back "
            "and reconcile (the files move), then roll back"
        )
    if target_layout != layout:
        raise LifecycleError(
            f"the output folders differ between {rev} ({RepoLayout.of(target_config).folders}) and {ref} "
            f"({layout.folders}); rollback across a change of clustersDir/stateDir is not supported"
        )
    output = find_output(store, tip, target, reads_path(target_config))
    changes: dict[str, bytes | None] = {}
    roles: dict[str, FileRole] = {}
    _restore_inputs(store, tip, target, layout, changes, roles)
    if output is not None:
        _restore_output(store, tip, output.commit, layout, changes, roles)
    tip_ownership = read_ownership(store, tip, layout)
    entries = store.list_entries(tip, [layout.clusters_dir])
    unowned = [e.path for e in entries if e.path not in tip_ownership.owners and e.path not in changes]
    hand_written = tuple(sorted(p for p in unowned if p not in tip_ownership.released))
    released = tuple(sorted(p for p in unowned if p in tip_ownership.released))
    guarded = (
        _guard(store, tip, output.commit, layout, changes, allow, rev)
        if output is not None
        else _guard_rerender(store, tip, changes, target_config, allow, rev)
    )
    return RollbackPlan(
        ref=ref,
        tip=tip,
        target=target,
        output=output,
        changes=dict(sorted(changes.items())),
        roles=roles,
        hand_written=hand_written,
        released=released,
        guard=guarded,
    )


def roll_back(
    store: GitStore, plan: RollbackPlan, *, title: str | None = None, allow: frozenset[str] = frozenset()
) -> RollbackOutcome:
    """Commit ``plan`` on its ref (compare-and-swap; uncommitted edits in the way are refused), then
    reconcile so that anything inconsistent converges (normally nothing changes). A plan the guardrails
    refuse is never committed."""
    if plan.refused:
        raise LifecycleError("the guardrails refuse this rollback (see the plan's violations)")
    commit = store.commit(parent=plan.tip, ref=plan.ref, changes=plan.changes, message=plan.message(title))
    reconciled = reconcile_ref(store, plan.ref, allow=allow, rolled_back_to=plan.target[:12])
    return RollbackOutcome(plan, commit, reconciled)


def _guard(
    store: GitStore,
    tip: str,
    output: str,
    layout: RepoLayout,
    changes: Mapping[str, bytes | None],
    allow: frozenset[str],
    rev: str,
) -> PlanDiff:
    """The rollback commit checked as a reconcile commit is: the tip's records against the restored ones;
    every file it removes is the rollback the user asked for."""
    before, _ = parse_records(read_state(store, tip, layout), layout)
    after, _ = parse_records(read_state(store, output, layout), layout)
    plan = write_plan(
        previous=before,
        current=after,
        existing=[e.path for e in store.list_entries(tip, [layout.clusters_dir])],
        changes=changes,
        layout=layout,
    )
    facts = RemovalFacts(
        before=Inputs(),
        after=Inputs(),
        previous={binding_key(b).identity: b for b in before},
        current={binding_key(b).identity: b for b in after},
        rolled_back_to=rev,
        had=frozenset(binding_key(b).identity for b in before),
        layout=layout,
    )
    removed = [o.path for o in plan.objects if o.change is ChangeKind.REMOVED]
    plan = replace(plan, removals=group_removals(attribute_removals(removed, facts)))
    return guard(plan, guardrails_for(read_config(store, tip)[0], allow))


def _guard_rerender(
    store: GitStore,
    tip: str,
    changes: Mapping[str, bytes | None],
    config: ToolConfig,
    allow: frozenset[str],
    rev: str,
) -> PlanDiff | None:
    """Only inputs are restored: the reconcile that follows decides the output, so check that one now,
    before anything is committed (None when the restored inputs do not load: reconcile will refuse them)."""
    state = read_commit(store, tip)
    is_input = input_path_filter(config)
    snapshot = state.request.snapshot
    current = snapshot.decoded if snapshot.decoded is not None else snapshot.input_files
    inputs: dict[str, Decoded | bytes] = {p: c for p, c in current.items() if is_input(p)}
    for path, content in changes.items():
        if is_input(path):
            if content is None:
                inputs.pop(path, None)
            else:
                inputs[path] = decode(content)
    documents = {p: decode(c) if isinstance(c, bytes) else c for p, c in inputs.items()}
    request = state.request.with_snapshot(input_files={}, decoded=documents, config=config)
    result = reconcile(request.with_mode(guard=allow, rolled_back_to=rev))
    if not result.input_ok or result.guarded is None:
        return None
    return result.guarded.plan


# -- finding the output REV produced -------------------------------------------------------------------


def find_output(store: GitStore, tip: str, target: str, reads: Callable[[str], bool]) -> OutputSource | None:
    """The reconcile commit whose output belongs to ``target``'s inputs, or None.

    ``target`` itself if it is a tool commit; else the reconcile commit on the branch whose Source-Commit
    is ``target``; else the newest tool commit at or before ``target`` whose source had equal inputs.
    """
    own = store.log(target, max_count=1)[0]
    if is_tool_commit(own):
        rendered_from = source_commit(own) or (own.parents[0] if own.parents else target)
        return OutputSource(target, rendered_from, "the revision is a reconcile commit")
    if store.is_ancestor(target, tip):
        pattern = f"^{wellknown.SOURCE_COMMIT_TRAILER}: {target}"
        rendered = [
            e
            for e in store.log(tip, since=target, grep=pattern)
            if is_tool_commit(e) and source_commit(e) == target
        ]
        # a plain reconcile is preferred to a rollback that restored the same output
        rendered.sort(key=lambda e: ROLLBACK_TO_TRAILER in e.trailers)
        if rendered:
            return OutputSource(rendered[0].commit, target, f"it rendered {target[:12]}")
    for entry in _tool_commits(store, target):
        source = source_commit(entry)
        if source is not None and _same_inputs(store, source, target, reads):
            reason = f"the newest reconcile before {target[:12]} of equal inputs, rendered from {source[:12]}"
            return OutputSource(entry.commit, source, reason)
    return None


def _tool_commits(store: GitStore, rev: str) -> tuple[LogEntry, ...]:
    pattern = f"^{wellknown.RENDERED_BY_TRAILER}: gitops-karmada"
    return tuple(e for e in store.log(rev, grep=pattern) if is_tool_commit(e))


def _same_inputs(store: GitStore, one: str, other: str, reads: Callable[[str], bool]) -> bool:
    return not any(reads(change.path) for change in store.diff(one, other, [""]))


# -- the change set --------------------------------------------------------------------------------------


def is_rollback_input(path: str, layout: RepoLayout) -> bool:
    """Everything outside the managed folders is rolled back, except dot-folders and dot-files
    (``.github/``, ``.gitignore``: the repository's tooling, not the fleet)."""
    return not layout.is_managed(path) and not any(part.startswith(".") for part in path.split("/"))


def _restore_inputs(
    store: GitStore,
    tip: str,
    target: str,
    layout: RepoLayout,
    changes: dict[str, bytes | None],
    roles: dict[str, FileRole],
) -> None:
    wanted = [c for c in store.diff(tip, target, [""]) if is_rollback_input(c.path, layout)]
    _apply(store, wanted, FileRole.INPUT, changes, roles)


def _restore_output(
    store: GitStore,
    tip: str,
    output: str,
    layout: RepoLayout,
    changes: dict[str, bytes | None],
    roles: dict[str, FileRole],
) -> None:
    """Records and tool-written files as ``output`` had them (files nobody owns at the tip are kept)."""
    records = [c for c in store.diff(tip, output, [layout.state_dir]) if layout.is_state_record(c.path)]
    _apply(store, records, FileRole.STATE, changes, roles)

    tip_owned, output_owned = owned_paths(store, tip, layout), owned_paths(store, output, layout)
    at_tip = {e.path: e for e in store.list_entries(tip, [layout.clusters_dir])}
    at_output = {e.path: e for e in store.list_entries(output, [layout.clusters_dir])}
    wanted: list[PathChange] = []
    conflicts: list[str] = []
    for path in sorted(tip_owned | output_owned):
        current, restored = at_tip.get(path), at_output.get(path)
        if current is not None and path not in tip_owned:
            # hand-written now: kept; if the restored records would claim it, it must already be equal
            if path in output_owned and not _same_entry(current, restored):
                if not _written_by_tool(store, tip, path, current.oid):
                    conflicts.append(path)
                    continue
            else:
                continue
        if not _same_entry(current, restored):
            wanted.append(_change(path, current, restored))
    if conflicts:
        raise LifecycleError(
            f"{len(conflicts)} hand-written file(s) are where {output[:12]}'s output wrote: "
            f"{', '.join(conflicts)}; move or delete them (they are yours, rollback never overwrites "
            "them) and rerun"
        )
    _apply(store, wanted, FileRole.OUTPUT, changes, roles)


def _same_entry(one: TreeEntry | None, other: TreeEntry | None) -> bool:
    if one is None or other is None:
        return one is other
    return one.oid == other.oid and one.mode == other.mode


def _change(path: str, current: TreeEntry | None, restored: TreeEntry | None) -> PathChange:
    return PathChange(
        path=path,
        old_oid=current.oid if current else None,
        new_oid=restored.oid if restored else None,
        old_mode=current.mode if current else None,
        new_mode=restored.mode if restored else None,
    )


def _written_by_tool(store: GitStore, tip: str, path: str, oid: str) -> bool:
    """Whether the file's current content came from a tool commit (e.g. a manifest the tool released when
    its template was deleted): then nobody wrote it by hand and the restored output may take it back."""
    last = store.log(tip, paths=[path], first_parent=False, with_changes=True, max_count=1)
    if not last or not is_tool_commit(last[0]):
        return False
    change = last[0].change_of(path)
    return change is not None and change.new_oid == oid


def _apply(
    store: GitStore,
    wanted: list[PathChange],
    role: FileRole,
    changes: dict[str, bytes | None],
    roles: dict[str, FileRole],
) -> None:
    unsupported = [c.path for c in wanted if c.new_oid is not None and not is_regular_mode(c.new_mode)]
    if unsupported:
        raise LifecycleError(
            f"cannot restore {', '.join(unsupported)}: symbolic links, executables and submodules are not "
            "restored by rollback (restore them with git checkout <rev> -- <path>, commit, and rerun)"
        )
    blobs = store.read_blobs([c.new_oid for c in wanted if c.new_oid is not None])
    for c in wanted:
        changes[c.path] = blobs[c.new_oid] if c.new_oid is not None else None
        roles[c.path] = role
