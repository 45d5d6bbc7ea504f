"""Guard: what committing a run's result does to the fleet, checked before anything is written.

The write paths (``reconcile``, ``reschedule``, ``rollback``) ask for it (``RunMode.guard``). The changes a
commit would make are computed from the result and the files the snapshot holds, and turned into a plan
(``core.diff.writeguard``: removed manifests, per-cluster counts and replicas, new template problems). Every
file that leaves a cluster folder gets its cause and the input change behind it (``core.diff.removals``):
a deliberate cause passes, named; any other refuses the commit unless ``--allow <cause>`` or the
configuration's ``removals.allow`` names it. The repository's guardrails (``guardrails:``) are checked too;
``--allow`` lifts one by name. An eviction by the failover controllers is Karmada acting on what the clusters
reported, not a mistake in the inputs: it passes, and the guardrails excuse it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.diff.bound import binding_key
from gitops_karmada.core.diff.compare import RELEASED_NOTE
from gitops_karmada.core.diff.model import ChangeKind, GuardrailViolation
from gitops_karmada.core.diff.removals import (
    RemovalFacts,
    attribute_removals,
    group_removals,
    inputs_before,
    kept_on_changed_clusters,
)
from gitops_karmada.core.diff.writeguard import guard as check_plan
from gitops_karmada.core.diff.writeguard import write_plan
from gitops_karmada.core.failover.controllers import excuse_failover
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.ownership import quota_paths, quota_records
from gitops_karmada.model.guardrails import REFUSED, RemovalCause, parse_guardrails
from gitops_karmada.reconcile.request import ManagedBlobs
from gitops_karmada.reconcile.result import Guarded

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.core.diff.removals import RemovalGroup
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.guardrails import Guardrail
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.reconcile.request import ReconcileRequest
    from gitops_karmada.reconcile.result import RenderResult

ALLOW_ALL = "all"
Identity = tuple[str, str, str, str]


def guardrails_for(config: ToolConfig, allow: frozenset[str]) -> tuple[Guardrail, ...]:
    """The repository's guardrails minus those ``--allow`` lifts (``all`` lifts every one)."""
    if ALLOW_ALL in allow:
        return ()
    return tuple(g for g in parse_guardrails(config.guardrails) if g.kind.value not in allow)


def refused_causes(config: ToolConfig, allow: frozenset[str]) -> frozenset[RemovalCause]:
    """The causes of removal that refuse a commit: every one a change does not say itself, but those the
    configuration's ``removals.allow`` or ``--allow`` names (``all``: none)."""
    if ALLOW_ALL in allow:
        return frozenset()
    return frozenset(c for c in REFUSED if c.value not in allow and c not in config.removals.allow)


def guard(result: RenderResult, request: ReconcileRequest, allow: frozenset[str]) -> Guarded:
    """``result``'s changes against the snapshot's files, every removal with its cause, checked."""
    snapshot, ports = request.snapshot, request.ports
    current = ManagedBlobs(snapshot.blobs_of_state(ports.hash_blob), snapshot.output_blobs)
    changes = result.commit_changes(current, ports.hash_blob)
    plan = write_plan(
        previous=result.previous_bindings,
        current=result.bindings,
        existing=current,
        changes=changes,
        layout=RepoLayout.of(snapshot.config),
        # counted from the names alone: the ids of a large tree are never listed for a small change
        objects_before=ports.count_outputs() if ports.count_outputs is not None else None,
        released={path: str(o.key) for o in result.outcomes for path in o.released},
        diagnostics=result.diagnostics,
    )
    checked = check_plan(plan, guardrails_for(snapshot.config, allow))
    if result.failover is not None:
        checked = replace(checked, violations=excuse_failover(checked.violations, result.failover))
    removed = [o.path for o in plan.objects if o.change is ChangeKind.REMOVED and o.note != RELEASED_NOTE]
    held = _kept(result)
    # both sides' inputs are indexed only when there is something to explain (most runs remove nothing)
    facts = removal_facts(result, request) if removed or held else None
    groups = group_removals(attribute_removals(removed, facts)) if facts is not None else ()
    kept = kept_on_changed_clusters(facts, held) if facts is not None else ()
    refusing = refused_causes(snapshot.config, allow)
    return Guarded(
        changes,
        replace(
            checked,
            removals=groups,
            notes=kept,
            violations=(*checked.violations, *removal_violations(groups, refusing)),
        ),
    )


def removal_violations(
    groups: Iterable[RemovalGroup], refusing: frozenset[RemovalCause]
) -> tuple[GuardrailViolation, ...]:
    """One violation per group of removals whose cause refuses the commit; its name is the ``--allow``."""
    return tuple(
        GuardrailViolation(
            guardrail=group.cause.value,
            subject=", ".join(group.owners),
            detail=f"{group.change}: {_owners(group.owners)} would leave {', '.join(group.clusters)}",
        )
        for group in groups
        if group.cause in refusing
    )


def _owners(owners: tuple[str, ...]) -> str:
    shown = ", ".join(owners[:5])
    return shown + (f" and {len(owners) - 5} more" if len(owners) > 5 else "")


def removal_facts(result: RenderResult, request: ReconcileRequest) -> RemovalFacts | None:
    """What naming the causes of ``result``'s removals reads: both sides' inputs, the records before and
    after, what stays rendered where, the failover controllers' evictions, the quota files."""
    after = result.inputs
    if after is None:
        return None
    snapshot = request.snapshot
    history = snapshot.history
    before: Inputs = inputs_before(after, history.paths, history.before) if history is not None else after
    layout = RepoLayout.of(snapshot.config)
    quota_owners: dict[str, tuple[str, str]] = {}
    for frq in quota_records(snapshot.state_files, layout).values():
        for path in quota_paths(frq, layout):
            quota_owners.setdefault(path, (frq.namespace, frq.name))
    evictions: dict[tuple[Identity, str], str] = {}
    if result.failover is not None:
        for event in result.failover.events:
            if event.what in ("evicted", "purged"):
                evictions[(event.identity, event.cluster)] = event.message
    previous = {binding_key(b).identity: b for b in result.previous_bindings}
    return RemovalFacts(
        before=before,
        after=after,
        previous=previous,
        had=frozenset(previous) | {o.key.identity for o in result.outcomes if o.reused},
        current={
            o.key.identity: o.binding
            for o in result.outcomes
            if o.binding is not None and not o.removed and o.match.state is not ClaimState.UNMATCHED
        },
        rendered=_Rendered(result),
        evictions=evictions,
        quota_owners=quota_owners,
        config_changed=history.config_changed if history is not None else False,
        rescheduled=request.mode.reschedule,
        rolled_back_to=request.mode.rolled_back_to,
        layout=layout,
    )


class _Rendered(Mapping[str, Mapping[tuple[str, str], tuple[str, ...]]]):
    """``_rendered`` of a result, made on first use: only a CRD's removal asks it, and at 4 million
    manifests it costs seconds that a run removing nothing never needs."""

    def __init__(self, result: RenderResult) -> None:
        self._result = result
        self._made: Mapping[str, Mapping[tuple[str, str], tuple[str, ...]]] | None = None

    def _found(self) -> Mapping[str, Mapping[tuple[str, str], tuple[str, ...]]]:
        if self._made is None:
            self._made = _rendered(self._result)
        return self._made

    def __getitem__(self, cluster: str) -> Mapping[tuple[str, str], tuple[str, ...]]:
        return self._found()[cluster]

    def __iter__(self) -> Iterator[str]:
        return iter(self._found())

    def __len__(self) -> int:
        return len(self._found())


def _rendered(result: RenderResult) -> Mapping[str, Mapping[tuple[str, str], tuple[str, ...]]]:
    """Cluster → (group, kind) → the objects of that kind rendered there after the run."""
    found: dict[str, dict[tuple[str, str], list[str]]] = {}
    for outcome in result.outcomes:
        if outcome.removed:
            continue
        if outcome.reused:
            clusters: Iterable[str] = outcome.paths.keys()
        elif outcome.binding is not None:
            clusters = applied_clusters(outcome.binding)
        else:
            continue
        kind = (outcome.key.group, outcome.key.kind)
        for cluster in clusters:
            found.setdefault(cluster, {}).setdefault(kind, []).append(str(outcome.key))
    return {c: {k: tuple(sorted(v)) for k, v in kinds.items()} for c, kinds in found.items()}


def _kept(result: RenderResult) -> dict[Identity, tuple[str, ...]]:
    """The templates whose previous scheduling result was kept this run, with their clusters."""
    return {
        o.key.identity: applied_clusters(o.binding)
        for o in result.outcomes
        if o.binding is not None and not o.reused and o.scheduling_reason is None and o.schedule is None
    }
