"""``history KIND/NS/NAME``: the commits that changed a template's binding record, and what moved.

Never renders: one ``git log --raw`` over the record's path gives every commit of the first-parent history
that touched it with the old and new blob, one ``cat-file --batch`` reads those blobs, and each row compares
the record before and after that commit (policy, replicas per cluster, conditions).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.git_log import PathChange
from gitops_karmada.adapters.repository import rfc3339
from gitops_karmada.adapters.tool_commits import is_tool_commit
from gitops_karmada.core.inputs.loading import load_bindings
from gitops_karmada.core.ownership import binding_key
from gitops_karmada.model import wellknown
from gitops_karmada.usecases.lifecycle import ROLLBACK_TO_TRAILER, LifecycleError, read_layout, source_commit

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Condition
    from gitops_karmada.usecases.lifecycle import TemplateReference

ABSENT = "-"
PLACED = "✓"
"""A cluster that holds the object, for objects without replicas (the placement table's mark)."""


class RecordChange(enum.StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"


@dataclass(frozen=True, slots=True)
class ReplicaMove:
    """One cluster's share before → after (``-`` absent, ``✓`` present without replicas)."""

    cluster: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.cluster} {self.before}→{self.after}"


@dataclass(frozen=True, slots=True)
class ConditionChange:
    type: str
    before: str | None
    after: str | None
    reason: str = ""
    message: str = ""

    def __str__(self) -> str:
        why = f" ({self.reason})" if self.reason and self.after != "True" else ""
        return f"{self.type} {self.before or ABSENT}→{self.after or ABSENT}{why}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "before": self.before,
            "after": self.after,
            "reason": self.reason,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryRow:
    commit: str
    committed_at: datetime
    subject: str
    by_tool: bool
    """False: a commit that is not the tool's changed the record (a hand edit)."""
    source_commit: str | None
    rollback_to: str | None
    change: RecordChange
    policy_before: str | None
    policy_after: str | None
    moves: tuple[ReplicaMove, ...] = ()
    conditions: tuple[ConditionChange, ...] = ()
    before: ResourceBinding | None = None
    """The record before the commit (None: created, or unreadable)."""
    after: ResourceBinding | None = None
    """The record after the commit (None: deleted, or unreadable)."""

    @property
    def origin(self) -> str:
        if not self.by_tool:
            return "hand edit"
        return "rollback" if self.rollback_to else "reconcile"

    @property
    def policy(self) -> str:
        if self.policy_before == self.policy_after or self.change is not RecordChange.UPDATED:
            return self.policy_after or self.policy_before or ABSENT
        return f"{self.policy_before or ABSENT}→{self.policy_after or ABSENT}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "date": rfc3339(self.committed_at),
            "subject": self.subject,
            "origin": self.origin,
            "sourceCommit": self.source_commit,
            "rollbackTo": self.rollback_to,
            "change": self.change.value,
            "policy": {"before": self.policy_before, "after": self.policy_after},
            "clusters": [{"name": m.cluster, "before": m.before, "after": m.after} for m in self.moves],
            "conditions": [c.to_dict() for c in self.conditions],
        }


@dataclass(frozen=True, slots=True)
class TemplateHistory:
    template: str
    record: str
    """The binding record's path (as of the newest row)."""
    rows: tuple[HistoryRow, ...]
    """Newest first, like ``git log``."""

    def to_dict(self) -> dict[str, Any]:
        return {"template": self.template, "record": self.record, "changes": [r.to_dict() for r in self.rows]}


def template_history(store: GitStore, rev: str, reference: TemplateReference) -> TemplateHistory:
    """Every first-parent commit of ``rev`` that changed the template's binding record, newest first."""
    layout = read_layout(store, rev)
    literals, globs = reference.record_pathspecs(layout)
    walk = store.log(rev, paths=literals, globs=globs, with_changes=True)
    paths = sorted({change.path for entry in walk for change in entry.changes})
    # one record in or out of bucket folders (``output.buckets`` switched) is the same template's
    records = sorted({layout.unbucketed(path) for path in paths})
    if not records:
        raise LifecycleError(
            f"no binding record of {reference} in the history of {rev} (looked for "
            f"{', '.join((*literals, *globs))}); check the kind, namespace and name"
        )
    if len(records) > 1:
        raise LifecycleError(
            f"{reference} matches the records of several kinds ({', '.join(paths)}); "
            "name the API group, e.g. Deployment.apps/shop/cart"
        )
    # the newest path it was written at (walks are newest first)
    record = next((c.path for entry in walk for c in entry.changes if not c.deleted), paths[0])
    oids = [oid for entry in walk for c in entry.changes for oid in (c.old_oid, c.new_oid) if oid]
    blobs = store.read_blobs(oids)
    rows = tuple(
        _row(entry, change, _record(blobs, change.old_oid, record), _record(blobs, change.new_oid, record))
        for entry in walk
        if (change := _one_change(entry.changes))
    )
    # the newest readable record names the template as the records spell it (kind, group, namespace)
    known = next((b for row in rows for b in (row.after, row.before) if b is not None), None)
    template = str(binding_key(known)) if known is not None else str(reference)
    return TemplateHistory(template, record, rows)


def _one_change(changes: Sequence[PathChange]) -> PathChange | None:
    """What a commit did to the record: its one change, or a move into or out of bucket folders as one
    update (the record deleted at one path, written at the other)."""
    if len(changes) < 2:
        return changes[0] if changes else None
    old = next((c.old_oid for c in changes if c.deleted), None)
    written = next((c for c in changes if not c.deleted), changes[0])
    return PathChange(written.path, old, written.new_oid, new_mode=written.new_mode)


def _record(blobs: dict[str, bytes], oid: str | None, path: str) -> ResourceBinding | None:
    if oid is None:
        return None
    bindings, _ = load_bindings({path: blobs[oid]})
    # an unreadable record (edited by hand into something invalid) reads as no record
    return next(iter(bindings.values()), None)


def _row(
    entry: LogEntry, change: PathChange, before: ResourceBinding | None, after: ResourceBinding | None
) -> HistoryRow:
    if change.added:
        kind = RecordChange.CREATED
    elif change.deleted:
        kind = RecordChange.DELETED
    else:
        kind = RecordChange.UPDATED
    by_tool = is_tool_commit(entry)
    return HistoryRow(
        commit=entry.commit,
        committed_at=entry.committed_at,
        subject=entry.subject,
        by_tool=by_tool,
        source_commit=source_commit(entry) if by_tool else None,
        rollback_to=entry.trailers.get(ROLLBACK_TO_TRAILER) if by_tool else None,
        change=kind,
        policy_before=policy_of(before),
        policy_after=policy_of(after),
        moves=replica_moves(before, after),
        conditions=condition_changes(before, after),
        before=before,
        after=after,
    )


def policy_of(binding: ResourceBinding | None) -> str | None:
    """The claiming policy in kubectl's short form (``pp/name``, ``cpp/name``), from the claim metadata."""
    if binding is None:
        return None
    annotations = binding.metadata.annotations
    if wellknown.PP_NAME_ANNOTATION in annotations:
        return f"pp/{annotations[wellknown.PP_NAME_ANNOTATION]}"
    if wellknown.CPP_NAME_ANNOTATION in annotations:
        return f"cpp/{annotations[wellknown.CPP_NAME_ANNOTATION]}"
    return None


def placement_of(binding: ResourceBinding | None) -> dict[str, str]:
    """Cluster → replicas (``✓`` for objects without replicas) of the binding's scheduling result."""
    if binding is None:
        return {}
    counted = binding.spec.replicas > 0 or any(t.replicas for t in binding.spec.clusters)
    return {t.name: str(t.replicas) if counted else PLACED for t in binding.spec.clusters}


def replica_moves(before: ResourceBinding | None, after: ResourceBinding | None) -> tuple[ReplicaMove, ...]:
    old, new = placement_of(before), placement_of(after)
    return tuple(
        ReplicaMove(cluster, old.get(cluster, ABSENT), new.get(cluster, ABSENT))
        for cluster in sorted(old.keys() | new.keys())
        if old.get(cluster) != new.get(cluster)
    )


def condition_changes(
    before: ResourceBinding | None, after: ResourceBinding | None
) -> tuple[ConditionChange, ...]:
    """Conditions whose status or reason changed; a new record's successful conditions are not news."""
    old = {c.type: c for c in (before.status.conditions if before else ())}
    new = {c.type: c for c in (after.status.conditions if after else ())}
    changes = []
    for kind in sorted(old.keys() | new.keys()):
        was, now = old.get(kind), new.get(kind)
        if _state(was) == _state(now) or now is None:
            continue
        if was is None and now.status == "True":
            continue
        changes.append(
            ConditionChange(
                kind, was.status if was else None, now.status, now.reason or "", now.message or ""
            )
        )
    return tuple(changes)


def _state(condition: Condition | None) -> tuple[str, str] | None:
    return (condition.status, condition.reason) if condition is not None else None
