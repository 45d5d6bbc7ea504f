"""Assemble: the outcomes merged into one result, with what belongs to no single template.

A whole run adds the run-wide outputs (deleted templates' removals or releases, quota records, the
released-manifests record, the eviction queue, ClusterTaintPolicy taints) and the new state index; a run
told what changed that keeps only the judged templates (``partial``) returns their files and the index with
their entries replaced; a focused run (``explain``) returns its outcomes and no files. A run whose inputs
or previous records cannot be read is refused: nothing is written, everything managed stays.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.failover.controllers import queue_document
from gitops_karmada.core.failover.taints import policy_taints_document
from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.incremental.state_index import StateIndex, shard_budget
from gitops_karmada.core.lint import unmatched_templates
from gitops_karmada.core.ownership import ownership
from gitops_karmada.reconcile.index_entries import index_entry, redone_files, state_index
from gitops_karmada.reconcile.result import RenderResult
from gitops_karmada.reconcile.run_outputs import deleted, quota_outputs, released_record

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.core.incremental.state_index import IndexEntry
    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.quotas import FederatedResourceQuota
    from gitops_karmada.reconcile.index_entries import MadeAhead
    from gitops_karmada.reconcile.outcome import TemplateOutcome
    from gitops_karmada.reconcile.prepare import Prepared
    from gitops_karmada.reconcile.previous import PreviousRun
    from gitops_karmada.reconcile.redo import Redone
    from gitops_karmada.reconcile.request import ReconcileRequest
    from gitops_karmada.reconcile.scope import Scope

Identity = tuple[str, str, str, str]


def assemble(prepared: Prepared, scoped: Scope, redone: Redone, request: ReconcileRequest) -> RenderResult:
    previous = prepared.previous
    diagnostics = [*prepared.diagnostics, *scoped.diagnostics]
    if scoped.by_change and request.mode.partial:
        return _scoped(prepared, scoped, redone, request, diagnostics)
    outcomes = list(redone.outcomes)
    if request.mode.focus is not None:
        # what the focused templates are: no files, no run-wide outputs (see ``RunMode.focus``)
        if any(d.is_error for d in previous.diagnostics):
            return refused(request, previous, diagnostics)
        return RenderResult(
            {},
            frozenset(),
            outcomes=tuple(outcomes),
            diagnostics=(*diagnostics, *(d for o in outcomes for d in o.diagnostics), *previous.diagnostics),
            inputs=prepared.ctx.inputs,
            incremental=previous.index is not None,
            failover=prepared.failover,
        )
    diagnostics.extend(_unmatched(scoped.templates, outcomes))
    # templates deleted from the repository: their bindings go, and with them the files they wrote
    for ident in sorted(prepared.had - prepared.current):
        gone = previous.binding(ident)
        if gone is not None:
            outcomes.append(deleted(prepared.ctx, gone))
    if request.mode.materialize:
        outcomes = _materialized(outcomes, previous)
    if any(d.is_error for d in previous.diagnostics):
        # a binding record that cannot be read: which files the tool owns is unknown, so nothing is written
        return refused(request, previous, diagnostics)
    return _whole(prepared, outcomes, redone.made, request, diagnostics)


def refused(
    request: ReconcileRequest, previous: PreviousRun, diagnostics: Sequence[Diagnostic]
) -> RenderResult:
    """The input has errors: nothing is written, and everything the tool manages stays as it is."""
    previous.read_all()
    layout = previous.previous_layout
    owned = ownership(previous.bindings(previous.identities()).values(), request.snapshot.state_files, layout)
    managed = frozenset(previous.blobs) | owned.paths
    return RenderResult({}, managed, keep=managed, diagnostics=(*diagnostics, *previous.diagnostics))


def _unmatched(templates: Sequence[Manifest], outcomes: Sequence[TemplateOutcome]) -> list[Diagnostic]:
    return list(
        unmatched_templates(
            t for t, o in zip(templates, outcomes, strict=True) if o.match.state is ClaimState.UNMATCHED
        )
    )


def _scoped(
    prepared: Prepared,
    scoped: Scope,
    redone: Redone,
    request: ReconcileRequest,
    diagnostics: list[Diagnostic],
) -> RenderResult:
    """What a run that judged only the templates a change touched makes: the files of those it redid
    (manifests and binding records) and the state index with their entries replaced; the index's other
    entries stand for the templates it did not judge."""
    previous = prepared.previous
    if any(d.is_error for d in previous.diagnostics):
        return refused(request, previous, diagnostics)
    assert previous.index is not None
    layout, outcomes = previous.layout, redone.outcomes
    changed = [o for o in outcomes if not o.reused]
    before = previous.bindings(o.key.identity for o in changed)
    managed = set(ownership(before.values(), {}, layout).paths)
    files, stored, keep = redone_files(changed, layout, redone.made)
    managed |= set(files) | set(stored)
    diagnostics.extend(_unmatched(scoped.templates, outcomes))
    judged = {o.key.identity for o in outcomes}
    entries: dict[Identity, IndexEntry] = {i: e for i, e in previous.index.entries.items() if i not in judged}
    entries.update(
        _index(prepared, request, outcomes, files, stored, previous.index.run, redone.made).entries
    )
    return RenderResult(
        files=files,
        stored=stored,
        managed=frozenset(managed),
        keep=frozenset(keep),
        bindings=tuple(o.binding for o in changed if o.binding is not None),
        outcomes=tuple(outcomes),
        diagnostics=(*diagnostics, *(d for o in outcomes for d in o.diagnostics), *previous.diagnostics),
        inputs=prepared.ctx.inputs,
        previous_bindings=tuple(before[i] for i in sorted(before)),
        incremental=True,
        index=StateIndex(ENGINE_VERSION, dict(sorted(entries.items())), previous.index.run),
        scoped=True,
    )


def _whole(
    prepared: Prepared,
    outcomes: list[TemplateOutcome],
    made: Mapping[Identity, MadeAhead],
    request: ReconcileRequest,
    diagnostics: list[Diagnostic],
) -> RenderResult:
    """The outcomes merged with the run-wide outputs: records, quota outputs, released manifests, the index,
    the eviction queue."""
    previous = prepared.previous
    layout = previous.layout
    changed = [o for o in outcomes if not o.reused]
    before = previous.bindings(o.key.identity for o in changed)
    # what this run answers for: every state file but the records of reused templates, the files the
    # redone and removed templates owned and own now, and everything written
    reused_records = {previous.record_path(o.key.identity) for o in outcomes if o.reused}
    owned_before = ownership(before.values(), {}, previous.previous_layout).paths
    files, stored, keep = redone_files(changed, layout, made)
    if request.ports.emit is not None:
        request.ports.emit(files)
    wide = _run_wide(prepared, outcomes, request)
    diagnostics.extend(wide.diagnostics)
    files.update(wide.files)
    index = _index(prepared, request, outcomes, files, stored, prepared.fingerprints.run_digest, made)
    # every shard, changed or not: an unchanged one hashes to the blob it has, and the commit leaves it be
    budget = shard_budget(request.snapshot.config.output.host_limits.max_file_bytes)
    for shard, raw in index.shards(request.caches.memo, previous.index, budget).items():
        files[layout.index_shard_path(shard)] = raw
    # made as a frozenset at once: a set copied into one would hold millions of paths twice for a moment
    managed = frozenset(
        chain((p for p in previous.blobs if p not in reused_records), owned_before, wide.owned, files, stored)
    )
    for outcome in outcomes:
        diagnostics.extend(outcome.diagnostics)
    # each outcome's files are in ``files`` and ``stored`` now, and only a run that explains reads the
    # overrides per cluster: not held through the guard and the commit (at fleet XL, 2.6 million paths, the
    # difference between fitting in 2 GiB or not)
    keep_overrides = request.mode.explain
    outcomes = [
        replace(o, files={}, stored={}, overrides=o.overrides if keep_overrides else {})
        if o.files or o.stored or (o.overrides and not keep_overrides)
        else o
        for o in outcomes
    ]
    return RenderResult(
        files=files,
        stored=stored,
        managed=managed,
        keep=frozenset(keep),
        bindings=tuple(o.binding for o in outcomes if o.binding is not None),
        outcomes=tuple(outcomes),
        diagnostics=(*diagnostics, *previous.diagnostics),
        inputs=prepared.ctx.inputs,
        quotas=wide.quotas,
        previous_bindings=tuple(before[i] for i in sorted(before)),
        incremental=previous.index is not None,
        owned=OwnedOutputs(
            tuple(outcomes), frozenset(wide.owned) | {p for p in wide.files if layout.is_output(p)}, layout
        ),
        index=index,
        failover=prepared.failover,
    )


class OwnedOutputs(Container[str]):
    """Every file of the cluster folders the tool owns after a run: every template's and the quota outputs
    (``others``). Only ``verify`` asks it; collected on first use, since at 4 million manifests the set
    costs a reconcile seconds and gigabytes it never reads."""

    def __init__(
        self, outcomes: tuple[TemplateOutcome, ...], others: frozenset[str], layout: RepoLayout
    ) -> None:
        self._outcomes, self._others, self._layout = outcomes, others, layout
        self._paths: frozenset[str] | None = None

    def __contains__(self, path: object) -> bool:
        if self._paths is None:
            self._paths = self._collect()
        return path in self._paths

    def _collect(self) -> frozenset[str]:
        owned = set(self._others)
        for outcome in self._outcomes:
            if outcome.reused:
                owned.update(outcome.paths.values())
            elif outcome.binding is not None:
                owned.update(
                    self._layout.manifest_path(c, outcome.key) for c in applied_clusters(outcome.binding)
                )
        return frozenset(owned)


@dataclass(frozen=True, slots=True)
class RunWide:
    """The outputs of a run that belong to no single template."""

    files: Mapping[str, bytes] = field(default_factory=dict)
    owned: frozenset[str] = frozenset()
    """Cluster-folder files the quota records own (static assignments)."""
    quotas: tuple[FederatedResourceQuota, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


def _run_wide(prepared: Prepared, outcomes: Sequence[TemplateOutcome], request: ReconcileRequest) -> RunWide:
    """Quota records and statuses, the released-manifests record, the eviction queue, the taints
    ClusterTaintPolicies keep."""
    previous, snapshot = prepared.previous, request.snapshot
    layout = previous.layout

    def in_namespace(namespace: str) -> list[ResourceBinding]:
        found = [o.binding for o in outcomes if o.key.namespace == namespace and o.binding is not None]
        reused = [
            o.key.identity
            for o in outcomes
            if o.key.namespace == namespace and o.reused and o.binding is None
        ]
        return [*found, *previous.bindings(reused).values()]

    quota = quota_outputs(prepared.ctx, snapshot.state_files, in_namespace, prepared.snapshots)
    files = dict(quota.files)
    released = released_record(
        snapshot.state_files.get(layout.released_path), outcomes, snapshot.output_blobs, snapshot.now
    )
    if released is not None:
        files[layout.released_path] = released
    failover = prepared.failover
    if failover is not None and failover.queue.pending(parse_time(snapshot.now)):
        files[layout.eviction_queue_path] = dump_yaml(queue_document(failover.queue)).encode()
    if prepared.policy_taints:
        files[layout.cluster_taints_path] = dump_yaml(policy_taints_document(prepared.policy_taints)).encode()
    return RunWide(files, frozenset(quota.owned), quota.quotas, tuple(quota.diagnostics))


def _index(
    prepared: Prepared,
    request: ReconcileRequest,
    outcomes: Sequence[TemplateOutcome],
    files: Mapping[str, bytes],
    stored: Mapping[str, str],
    run: str,
    made: Mapping[Identity, MadeAhead],
) -> StateIndex:
    layout = prepared.previous.layout
    output_blobs, hash_blob = request.snapshot.output_blobs, request.ports.hash_blob
    return state_index(
        prepared.previous.index,
        outcomes,
        run,
        lambda outcome: index_entry(outcome, layout, files, stored, output_blobs, hash_blob),
        made,
    )


def _materialized(outcomes: list[TemplateOutcome], previous: PreviousRun) -> list[TemplateOutcome]:
    """Every reused outcome with its binding (read from the records in one batch)."""
    reused = [o.key.identity for o in outcomes if o.reused and o.binding is None]
    if not reused:
        return outcomes
    found = previous.bindings(reused)
    return [replace(o, binding=found.get(o.key.identity)) if o.reused else o for o in outcomes]
