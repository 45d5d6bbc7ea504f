"""The use case: one repository state in, the desired output tree and binding records out — incrementally.

``reconcile(request)`` is pure: the adapters read the commit (input files, the state folder, the list of
files already in the cluster folders) and write the result. Per template it runs Karmada's chain in phases
that meet where Karmada's controllers meet, each returning a frozen value:

    claim (core.detector, core.claims) → place (core.placing) → admit (core.admit, an ordered fold over the
    FederatedResourceQuota ledger) → render targets (core.render, ensureWork) → record (core.binding)

and the template's ``TemplateOutcome`` owns its files. A template whose inputs' fingerprint
(core.fingerprint) equals the one the state index (core.state_index) recorded for its binding, whose
record and rendered files are as the tool wrote them, and whose result was settled, is not redone: its
previous binding and files stand. A template that fails keeps its previous files and binding and is
reported; it never empties a cluster folder.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from gitops_karmada.core.binding import applied_clusters, render_notes
from gitops_karmada.core.codecs.serialize import dump_yaml, load_yaml_documents
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.detector import (
    ClaimState,
    PolicyIndex,
    PolicyMatch,
    PolicyRef,
    PriorClaim,
    match_policy,
    previous_claim,
)
from gitops_karmada.core.diff.bound import bound_placement
from gitops_karmada.core.failover.controllers import (
    FailoverOutcome,
    FailoverSettings,
    failover_digest,
    has_failover_business,
    parse_queue,
    queue_document,
    run_failover,
)
from gitops_karmada.core.failover.taints import (
    apply_taint_policies,
    parse_policy_taints,
    policy_taints_document,
)
from gitops_karmada.core.failover.what_if import WhatIf, scenario_taints
from gitops_karmada.core.file_changes import StoredBlob
from gitops_karmada.core.incremental.change_scope import ChangedInputs, touched_templates
from gitops_karmada.core.incremental.fingerprint import ENGINE_VERSION, FingerprintContext
from gitops_karmada.core.incremental.state_index import (
    IndexEntry,
    IndexLines,
    StateIndex,
    files_digest,
    read_index,
)
from gitops_karmada.core.inputs.external_sources import source_plan
from gitops_karmada.core.inputs.loading import ClassifiedFiles, Decoded, load, load_bindings
from gitops_karmada.core.layout import RepoLayout, identity_path, object_path
from gitops_karmada.core.lint import cross_object_warnings, unmatched_templates, untolerated_no_execute
from gitops_karmada.core.observed.fold import (
    ObservedStatus,
    aggregated_status,
    fully_applied_condition,
    template_status,
    with_observed_clusters,
)
from gitops_karmada.core.ownership import binding_key, ownership
from gitops_karmada.core.quota import QuotaLedger
from gitops_karmada.core.run_memo import RunMemo
from gitops_karmada.core.scheduler.snapshot import load_cluster_snapshots
from gitops_karmada.core.views.status_summary import binding_ready, cluster_health
from gitops_karmada.model.base import TaintEffect
from gitops_karmada.model.config import FeatureGate, ToolConfig
from gitops_karmada.model.errors import RunCancelled
from gitops_karmada.reconcile.admit import admit
from gitops_karmada.reconcile.claims import (
    Claim,
    Requirement,
    attached_conflict_resolution,
    attached_preserve,
    claim,
    dependency_requirements,
    requirements,
)
from gitops_karmada.reconcile.context import RunContext
from gitops_karmada.reconcile.outcome import TemplateOutcome
from gitops_karmada.reconcile.placing import Placement, interpreted_by, place
from gitops_karmada.reconcile.record import BindingInputs, build_binding
from gitops_karmada.reconcile.render import render_targets
from gitops_karmada.reconcile.run_outputs import deleted, quota_outputs, released_record

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence

    from gitops_karmada.core.inputs.external_sources import GeneratedSource
    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.core.schema_check import NativeSchemas
    from gitops_karmada.model.base import Taint
    from gitops_karmada.model.bindings import AggregatedStatusItem, ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.keys import ObjectKey
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.quotas import FederatedResourceQuota
    from gitops_karmada.reconcile.fan_out import FanOut

Identity = tuple[str, str, str, str]

__all__ = ["ReconcileRequest", "RenderResult", "TemplateOutcome", "blob_sha", "reconcile"]


def blob_sha(data: bytes) -> str:
    """Git's blob object id of ``data`` (so unchanged files are never rewritten)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class ReconcileRequest:
    input_files: Mapping[str, bytes]
    """Input documents by repository path (already restricted to input paths)."""
    decoded: Mapping[str, Decoded] | None = None
    """The input files already decoded (path → documents), e.g. from a cache by content; replaces
    ``input_files`` when given."""
    config: ToolConfig
    config_diagnostics: tuple[Diagnostic, ...] = ()
    state_files: Mapping[str, bytes] = field(default_factory=dict)
    """Files of the state folder read up front: at least everything but the binding records."""
    state_blobs: Mapping[str, str] = field(default_factory=dict)
    """Every file of the state folder: path → blob id (records included); derived from ``state_files`` when
    empty."""
    read_state: Callable[[Sequence[str]], Mapping[str, bytes]] | None = None
    """Reads state files (binding records) on demand, many at a time, when they are not in ``state_files``."""
    snapshot_files: Mapping[str, bytes] = field(default_factory=dict)
    """Cluster snapshots (nodes, pods, ResourceQuotas) for the accurate estimator."""
    output_blobs: Mapping[str, str] = field(default_factory=dict)
    """Current files of the clusters folder: path → blob id (hand-written files, what the tool wrote). May
    be lazy: an incremental run only looks paths up, a full one iterates."""
    output_edits: frozenset[str] | None = None
    """Cluster-folder paths changed since the tool commit that wrote the state index being read (hand
    edits): a reused template's files are then vouched for by not being among them, without reading every
    file's id. None: unknown, every reused template's files are compared with the index's digest."""
    shallow_outputs: frozenset[str] | None = None
    """``RunContext.shallow_outputs``, when an adapter can list them more cheaply than by iterating
    ``output_blobs``."""
    now: str
    """RFC 3339 time of the source commit (or of the status commit, when later): the only clock the core
    knows."""
    observed: ObservedStatus | None = None
    """Member clusters' status snapshots (the status branch); None: nothing observed is used."""
    what_if: WhatIf | None = None
    """A ``simulate`` scenario's taints, put on the clusters before anything else reads them."""
    reschedule: frozenset[Identity] = frozenset()
    """Templates whose replicas are divided afresh (Karmada's WorkloadRebalancer)."""
    read_output: Callable[[str], bytes | None] | None = None
    """Reads a file of the source commit; needed only to release preserved manifests."""
    explain: bool = False
    """Also evaluate the scheduler where Karmada keeps the previous result, and keep each rendered cluster's
    overridden object in the outcome (``OverrideResult.object``), so they can be explained."""
    full: bool = False
    """Redo every template, whatever the state index says."""
    lint: bool = True
    """Run the whole-input lint (``core.lint``: cross-object warnings, never errors). False for callers that
    show no warnings, as ``diff``, which reports errors only."""
    focus: Callable[[ObjectKey], bool] | None = None
    """Templates to explain: always redone, and the run computes only what their outcomes depend on (the
    templates of their namespaces and those requiring them, ``_focus_scope``). The result holds those
    outcomes and no files: it is not to be committed."""
    changed: ChangedInputs | None = None
    """The input files changed since the previous run and what they held then, when the caller knows: if
    they let ``core.change_scope`` tell which templates they touch, the run judges only those (with what
    their outcomes depend on, as for ``focus``, and those that cannot stand unjudged: ``_not_standing``),
    and every other template stands as the state index records it, without its fingerprint being computed.
    The result is the one a run judging every template makes."""
    partial: bool = False
    """With ``changed``: return only what the judged templates make, their files and the state index, and
    none of the run-wide outputs (``RenderResult.scoped``): enough to compare (``diff``), not to commit."""
    materialize: bool = True
    """Load the binding of every reused template into the result (False: only what the run needed)."""
    hash_blob: Callable[[bytes], str] = blob_sha
    """The repository's blob id function (SHA-1 or SHA-256 repositories)."""
    progress: Callable[[int, int], None] | None = None
    """Told (templates done, templates in all) after each template; an entry point draws it."""
    store: Callable[[Mapping[str, bytes]], Mapping[str, str] | None] | None = None
    """Takes a redone template's rendered files as soon as they are made, in whichever process makes them,
    and writes them into the object database: it returns their blob ids (path → id; the outcome then names
    them in ``stored`` and drops their contents, so a run does not hold the whole fleet), or None to leave
    them held. Being stored does not mean being committed."""
    emit: Callable[[Mapping[str, bytes]], None] | None = None
    """Told once, as soon as they are known, the files the redone templates write that ``store`` did not take
    (manifests and binding records, path → content), before the run-wide outputs and the index: an adapter
    can start writing their blobs while the run finishes. Being told a file does not mean it is committed."""
    cancelled: Callable[[], bool] | None = None
    """Asked between phases and templates; True stops the run with ``RunCancelled`` (nothing is returned,
    so nothing is written). The daemon gives a status-only run way to a user commit this way."""
    generated: Mapping[str, GeneratedSource] = field(default_factory=dict)
    """What ``kubectl kustomize``/``helm template`` gave for the Kustomize and Helm sources (an adapter ran
    them), by their kustomization.yaml/Chart.yaml path."""
    native_schemas: NativeSchemas | None = None
    """Kubernetes' schemas for checking rendered manifests (an adapter supplies them); None: only CRDs in
    the repository are checked."""
    index_lines: IndexLines | None = None
    """State index entries parsed by an earlier run of the same process, by line (refreshed by this run)."""
    classified: ClassifiedFiles | None = None
    """Input files classified by an earlier run of the same process (refreshed by this run)."""
    memo: RunMemo | None = None
    """What earlier runs of the same process computed of the same inputs (templates checked, policies
    defaulted and indexed, matches, fingerprints, reused outcomes, index lines), recalled by this run."""
    fan_out: FanOut | None = None
    """Runs the templates to redo that are independent of one another (``_redo_independent``), as an
    adapter decides (across processes); None: one by one in the run's loop."""


@dataclass(frozen=True, slots=True)
class RenderResult:
    files: Mapping[str, bytes]
    """Desired content of every path this run writes, but those in ``stored``."""
    managed: frozenset[str]
    """Every path this run is responsible for (written now, written before, or in the state folder)."""
    keep: frozenset[str] = frozenset()
    """Managed paths whose current content must stay as it is (failed templates)."""
    bindings: tuple[ResourceBinding, ...] = ()
    """The binding of every template after the run (reused ones only when the request materialised them)."""
    outcomes: tuple[TemplateOutcome, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    inputs: Inputs | None = None
    quotas: tuple[FederatedResourceQuota, ...] = ()
    """Every FederatedResourceQuota with its settled status."""
    previous_bindings: tuple[ResourceBinding, ...] = ()
    """The previous records of the templates this run redid or removed (for the deletion guard)."""
    incremental: bool = False
    """The state index was trusted: templates with unchanged inputs were reused, not redone."""
    owned: frozenset[str] = frozenset()
    """Every file of the cluster folders the tool owns after the run (all templates' and quotas')."""
    index: StateIndex | None = None
    """The state index after the run: every binding's fingerprint, claim and placement, in one value."""
    failover: FailoverOutcome | None = None
    """What the failover controllers did before scheduling (feature gate Failover)."""
    stored: Mapping[str, str] = field(default_factory=dict)
    """Paths this run writes whose contents were written into the object database as they were made
    (``ReconcileRequest.store``): path → blob id; not in ``files``."""
    scoped: bool = False
    """Only the templates a change touched were judged and are in the result (``ReconcileRequest.partial``):
    ``index`` stands for the others, and the run-wide outputs were not made. Not to be committed."""

    @property
    def input_ok(self) -> bool:
        """False when the input itself has errors: nothing may be written then.

        Per-template failures (cannot schedule, cannot render) do not count: they are recorded on the
        template's binding, which keeps its previous placement, and the run goes on.
        """
        return self.inputs is not None

    @property
    def failed_templates(self) -> tuple[TemplateOutcome, ...]:
        return tuple(o for o in self.outcomes if o.failed)

    @property
    def redone(self) -> tuple[TemplateOutcome, ...]:
        """The outcomes of templates this run computed (not reused) or removed."""
        return tuple(o for o in self.outcomes if not o.reused)

    def changes(
        self, current_blobs: Mapping[str, str], hash_blob: Callable[[bytes], str] = blob_sha
    ) -> dict[str, bytes | None]:
        """What to write (bytes) or delete (None) to go from ``current_blobs`` to this result.

        ``hash_blob`` must be the repository's object id function (SHA-1 or SHA-256 repositories). Every
        content must be held: a result with ``stored`` files has ``commit_changes``.
        """
        if self.stored:
            raise ValueError("the result's files were stored as they were made: ask commit_changes")
        changes: dict[str, bytes | None] = {}
        for path, change in self.commit_changes(current_blobs, hash_blob).items():
            assert not isinstance(change, StoredBlob)  # nothing was stored
            changes[path] = change
        return changes

    def commit_changes(
        self, current_blobs: Mapping[str, str], hash_blob: Callable[[bytes], str] = blob_sha
    ) -> dict[str, bytes | StoredBlob | None]:
        """``changes``, the files in ``stored`` named by their blob ids."""
        changes: dict[str, bytes | StoredBlob | None] = {}
        for path in sorted(self.managed - self.keep):
            old = current_blobs.get(path)
            oid = self.stored.get(path)
            if oid is not None:
                if old != oid:
                    changes[path] = StoredBlob(oid)
                continue
            new = self.files.get(path)
            if new is None:
                if old is not None:
                    changes[path] = None
            elif old != hash_blob(new):
                changes[path] = new
        return changes


def next_request(
    request: ReconcileRequest, result: RenderResult, *, now: str, observed: ObservedStatus | None
) -> ReconcileRequest:
    """The request of a run that starts where ``result`` left off (as if it had been committed), at
    ``now`` with ``observed``: ``simulate`` runs time forward this way without touching the repository."""
    layout = RepoLayout.of(request.config)
    # as PreviousRun does: a request built from files alone names its state by their content
    state_before = request.state_blobs or {p: request.hash_blob(c) for p, c in request.state_files.items()}
    before: dict[str, str] = {**state_before, **request.output_blobs}
    changes = result.changes(before, request.hash_blob)
    written = {path: content for path, content in changes.items() if content is not None}
    state_blobs = dict(state_before)
    outputs = dict(request.output_blobs)
    for path, content in changes.items():
        target = outputs if layout.is_output(path) else state_blobs
        if content is None:
            target.pop(path, None)
        else:
            target[path] = request.hash_blob(content)
    state_files = {
        path: written.get(path, raw)
        for path, raw in request.state_files.items()
        if changes.get(path, raw) is not None
    }
    state_files.update(
        {p: c for p, c in written.items() if layout.is_state(p) and not layout.is_binding_record(p)}
    )
    read_state, read_output = request.read_state, request.read_output

    def read_new_state(paths: Sequence[str]) -> Mapping[str, bytes]:
        found = {p: written[p] for p in paths if p in written}
        rest = [p for p in paths if p not in found and p in state_blobs]
        if rest and read_state is not None:
            found.update(read_state(rest))
        return found

    def read_new_output(path: str) -> bytes | None:
        if path in written:
            return written[path]
        return read_output(path) if read_output is not None and path in outputs else None

    return replace(
        request,
        state_files=state_files,
        state_blobs=state_blobs,
        read_state=read_new_state,
        output_blobs=outputs,
        output_edits=frozenset(),
        shallow_outputs=None,
        read_output=read_new_output,
        now=now,
        observed=observed,
        index_lines=None,
    )


# -- the previous run: state index and binding records -------------------------------------------------


class PreviousRun:
    """The previous binding records, read only when needed (many at a time), and the state index."""

    def __init__(self, request: ReconcileRequest) -> None:
        self.layout = RepoLayout.of(request.config)
        self._files = request.state_files
        self._read = request.read_state
        self.blobs: Mapping[str, str] = request.state_blobs or {
            path: request.hash_blob(raw) for path, raw in request.state_files.items()
        }
        index = read_index(request.state_files, self.layout, request.index_lines)
        if index is None and not any(self.layout.is_binding_record(p) for p in self.blobs):
            index = StateIndex(engine=ENGINE_VERSION)  # no record at all: an empty index says all there is
        self.index = (
            index if index is not None and index.engine == ENGINE_VERSION and not request.full else None
        )
        self.edits = request.output_edits
        self._bindings: dict[Identity, ResourceBinding | None] = {}
        self._read_paths: set[str] = set()
        self.diagnostics: list[Diagnostic] = []

    def record_path(self, identity: Identity) -> str:
        return self.layout.record_path(identity)

    @property
    def record_paths(self) -> list[str]:
        return sorted(p for p in self.blobs if self.layout.is_binding_record(p))

    def read(self, paths: Iterable[str]) -> None:
        """Parse the records at ``paths`` (those not parsed yet), in one batch."""
        wanted = [p for p in paths if p not in self._read_paths and p in self.blobs]
        if not wanted:
            return
        self._read_paths.update(wanted)
        raw = {p: self._files[p] for p in wanted if p in self._files}
        missing = [p for p in wanted if p not in raw]
        if missing and self._read is not None:
            raw.update(self._read(missing))
        found, problems = load_bindings(raw)
        self.diagnostics.extend(problems)
        self._bindings.update(found)

    def read_all(self) -> None:
        self.read(self.record_paths)

    def identities(self) -> set[Identity]:
        """Every template that had a binding: the index's, plus any record the index does not describe."""
        if self.index is None:
            self.read_all()
            return {i for i, b in self._bindings.items() if b is not None}
        known = {self.record_path(i) for i in self.index.entries}
        self.read(p for p in self.record_paths if p not in known)  # records added outside the tool
        return set(self.index.entries) | {i for i, b in self._bindings.items() if b is not None}

    def substitute(self, bindings: Mapping[Identity, ResourceBinding]) -> None:
        """Stand ``bindings`` in for their records: the failover controllers edited them before scheduling."""
        self._bindings.update(bindings)

    def binding(self, identity: Identity) -> ResourceBinding | None:
        if identity not in self._bindings:
            self.read([self.record_path(identity)])
        return self._bindings.get(identity)

    def bindings(self, identities: Iterable[Identity]) -> dict[Identity, ResourceBinding]:
        wanted = list(identities)
        self.read(self.record_path(i) for i in wanted if i not in self._bindings)
        return {i: b for i in wanted if (b := self._bindings.get(i)) is not None}

    def prior(self, identity: Identity) -> ResourceBinding | PriorClaim | None:
        """What matching needs of the previous binding: the record when read, else the index's claim."""
        if identity in self._bindings or self.index is None or identity not in self.index.entries:
            return self.binding(identity)
        claim = self.index.entries[identity].claim
        return PriorClaim((PolicyRef(claim[0], claim[1], claim[2]), claim[3]) if claim else None)

    def reusable(
        self, identity: Identity, fingerprint: str, output_blobs: Mapping[str, str], clusters_dir: str
    ) -> IndexEntry | None:
        """The index entry of a template whose recorded output still stands for ``fingerprint``."""
        if self.index is None:
            return None
        entry = self.index.entries.get(identity)
        if entry is None or not entry.settled or entry.fingerprint != fingerprint:
            return None
        if self.blobs.get(self.record_path(identity)) != entry.record:
            return None  # the record was edited or removed by hand
        if self.edits is not None and not self.edits:
            return entry  # nothing was edited since the tool commit that wrote the index
        inside = identity_path(identity)
        key_paths = [f"{clusters_dir}/{cluster}/{inside}" for cluster in entry.rendered]
        if self.edits is not None:
            # the index was written with the files of a tool commit; only a later change can spoil them
            return None if self.edits.intersection(key_paths) else entry
        if files_digest(key_paths, output_blobs) != entry.files:
            return None  # a rendered file was edited or removed by hand
        return entry


# -- one run -------------------------------------------------------------------------------------------------


def _checkpoint(cancelled: Callable[[], bool] | None) -> Callable[[], None]:
    def check() -> None:
        if cancelled is not None and cancelled():
            raise RunCancelled("the run was cancelled by its caller")

    return check


def reconcile(request: ReconcileRequest) -> RenderResult:
    """Compute the desired cluster folders and binding records for one repository state."""
    config = request.config
    memo = RunMemo() if request.memo is None else request.memo
    memo.begin_run()
    loaded = load(request.input_files, config, request.decoded, request.generated, request.classified, memo)
    checkpoint = _checkpoint(request.cancelled)
    checkpoint()
    previous = PreviousRun(request)
    layout = RepoLayout.of(config)
    snapshots = load_cluster_snapshots(request.snapshot_files, root=layout.snapshots_dir)
    diagnostics = [*request.config_diagnostics, *loaded.diagnostics, *snapshots.diagnostics]
    if any(d.is_error for d in diagnostics):
        return _refused(request, previous, diagnostics)

    inputs = loaded.inputs
    if request.observed is not None:
        inputs, observed_diagnostics = with_observed_clusters(inputs, request.observed, request.now)
        diagnostics.extend(observed_diagnostics)
    if request.what_if is not None:
        inputs = scenario_taints(inputs, request.what_if)
    policy_taints = parse_policy_taints(_first_document(request.state_files.get(layout.cluster_taints_path)))
    if inputs.taint_policies or policy_taints:
        clusters, policy_taints = apply_taint_policies(
            inputs.clusters, inputs.taint_policies, policy_taints, parse_time(request.now)
        )
        inputs = replace(inputs, clusters=clusters)
    ctx = RunContext.build(
        inputs,
        now=request.now,
        snapshots=snapshots.snapshots,
        output_blobs=request.output_blobs,
        shallow_outputs=request.shallow_outputs,
        read_output=request.read_output,
        reschedule=request.reschedule,
        explain=request.explain,
        native_schemas=request.native_schemas,
        observed=request.observed,
    )
    policies = memo.recall(
        "policy_index",
        (*inputs.propagation_policies, *inputs.cluster_propagation_policies),
        len(inputs.propagation_policies),
        lambda: PolicyIndex.build(
            inputs.propagation_policies, inputs.cluster_propagation_policies, request.memo
        ),
    )
    override_names = frozenset(
        {(p.namespace, p.name) for p in inputs.override_policies}
        | {("", p.name) for p in inputs.cluster_override_policies}
    )
    preemption = ctx.gate(FeatureGate.POLICY_PREEMPTION)
    templates = sorted(inputs.templates, key=lambda t: t.key.identity)
    current = {t.key.identity for t in templates}
    had = previous.identities()
    # Karmada's failover controllers edit the bindings before the scheduler and the quota see them
    failover = _fail_over(request, ctx, previous, had)

    def matched(template: Manifest) -> PolicyMatch:
        prior = previous.prior(template.key.identity)

        def compute() -> PolicyMatch:
            return match_policy(
                template,
                policies,
                prior,
                preemption_enabled=preemption,
                existing_override_policies=override_names,
            )

        if prior is not None and not isinstance(prior, PriorClaim):
            return compute()  # a record read in full: its claim is all matching reads of it
        claim = prior.claim if prior is not None else None
        # held: the policies matching can read for this template, not the whole index (which another
        # policy's change replaces)
        read = policies.read_for(template, claim[0] if claim is not None else None)
        return memo.recall("match", read, (prior, preemption, override_names), compute)

    # who requires whom needs every template's match; when no policy propagates dependencies there is
    # nobody, and a run that keeps only part of the templates (focus, partial) matches only those
    propagating = ctx.gate(FeatureGate.PROPAGATE_DEPS) and any(
        p.spec.propagate_deps for p in policies.by_ref.values()
    )
    matches: dict[Identity, PolicyMatch] = {}
    requirers: dict[Identity, list[Identity]] = {}
    if propagating or (request.focus is None and not request.partial):
        matches = {t.key.identity: matched(t) for t in templates}
        checkpoint()
        requirers, dependency_diagnostics = dependency_requirements(ctx, templates, matches)
        diagnostics.extend(dependency_diagnostics)
    fingerprints = FingerprintContext(inputs, request.snapshot_files, request.observed, memo)
    focus = request.focus
    touched = (
        _touched(request, inputs, previous, failover, had - current, fingerprints.run_digest)
        if focus is None
        else None
    )
    quota_namespaces = {q.namespace for q in inputs.quotas}
    if focus is not None:
        scope = _focus_scope(templates, requirers, focus)
    elif touched is not None:
        seeds = touched | set(requirers) | _not_standing(request, templates, previous, quota_namespaces)
        scope = _requirers_closure(requirers, seeds)
    else:
        scope = None
    # the templates outside a change's scope stand as the index records them, unjudged (``changed``)
    standing_entries = previous.index.entries if touched is not None and previous.index is not None else {}
    partial = focus is not None or (touched is not None and request.partial)
    if scope is not None and partial:
        templates = [t for t in templates if t.key.identity in scope]
    elif request.lint:
        diagnostics.extend(cross_object_warnings(inputs, policies, request.memo))
    if not matches:
        matches = {t.key.identity: matched(t) for t in templates}
        checkpoint()
    # bindings of deleted templates free their quota first; the changes are admitted in processing order
    standing = previous.bindings(
        i for i in sorted(current) if i[2] in quota_namespaces and (scope is None or i in scope)
    )
    ledger = QuotaLedger.open(
        inputs.quotas, standing.values(), enforcement=ctx.gate(FeatureGate.FEDERATED_QUOTA_ENFORCEMENT)
    )

    def fingerprint_of(template: Manifest, required: tuple[Requirement, ...]) -> str:
        ident = template.key.identity
        return fingerprints.template(
            template,
            matches[ident],
            [r.fingerprint_part() for r in required],
            failover_digest(previous.binding(ident))
            if failover is not None and ident in failover.seen
            else (),
        )

    def reusable(template: Manifest, fingerprint: str) -> IndexEntry | None:
        if template.key.identity in request.reschedule or (focus is not None and focus(template.key)):
            return None
        return previous.reusable(
            template.key.identity, fingerprint, request.output_blobs, layout.clusters_dir
        )

    # Templates no other template requires can be judged now; the records of those to redo are read in one
    # batch (one git process, not one per record: a status or inventory change redoes the whole fleet).
    judged: dict[Identity, tuple[str, IndexEntry | None]] = {}
    for count, template in enumerate(templates):
        if count % 256 == 0:
            checkpoint()
        ident = template.key.identity
        if scope is not None and ident not in scope and ident in standing_entries:
            judged[ident] = (standing_entries[ident].fingerprint, standing_entries[ident])
        elif ident not in requirers:
            if previous.index is None or ident not in previous.index.entries:
                # nothing recorded to reuse, whatever the fingerprint: it is made where the template is
                # redone (across processes, for a first run)
                judged[ident] = (_UNMADE, None)
                continue
            fingerprint = fingerprint_of(template, ())
            judged[ident] = (fingerprint, reusable(template, fingerprint))
    previous.bindings(ident for ident, (_, entry) in judged.items() if entry is None)
    progress = request.progress or (lambda _done, _total: None)
    ahead, made = _redo_independent(
        request,
        ctx,
        ledger,
        templates,
        matches,
        judged,
        fingerprint_of,
        previous,
        quota_namespaces,
        (lambda count: progress(count, len(templates))) if request.progress is not None else None,
        checkpoint,
    )
    done: dict[Identity, TemplateOutcome] = {}
    finished = len(ahead)
    # workloads first, then the objects they depend on, which follow them to their clusters
    for template in sorted(templates, key=lambda t: t.key.identity in requirers):
        checkpoint()
        ident = template.key.identity
        if ident in ahead:
            done[ident] = ahead[ident]
            continue
        progress(finished, len(templates))
        finished += 1
        match = matches[ident]
        required = requirements(
            [_binding_of(done[p], previous) for p in sorted(set(requirers.get(ident, ()))) if p in done]
        )
        if ident in judged:
            fingerprint, entry = judged[ident]
            if fingerprint is _UNMADE:
                fingerprint = fingerprint_of(template, required)
        else:
            fingerprint = fingerprint_of(template, required)
            entry = reusable(template, fingerprint)
        if entry is not None:
            done[ident] = memo.recall(
                "reused",
                (template, match, entry),
                (fingerprint, ctx.clusters_dir),
                functools.partial(_reused, ctx, template, match, entry, fingerprint),
            )
            continue
        ledger, outcome = _process(
            ctx, ledger, template, match, previous.binding(ident), required, fingerprint
        )
        done[ident] = _stored(request, outcome)
    progress(len(templates), len(templates))
    outcomes = [done[t.key.identity] for t in templates]
    if touched is not None and request.partial:
        return _scoped_result(request, ctx, previous, templates, outcomes, diagnostics, made)
    if focus is not None:
        # what the focused templates are: no files, no run-wide outputs (see ``ReconcileRequest.focus``)
        if any(d.is_error for d in previous.diagnostics):
            return _refused(request, previous, diagnostics)
        return RenderResult(
            {},
            frozenset(),
            outcomes=tuple(outcomes),
            diagnostics=(*diagnostics, *(d for o in outcomes for d in o.diagnostics), *previous.diagnostics),
            inputs=ctx.inputs,
            incremental=previous.index is not None,
            failover=failover,
        )
    diagnostics.extend(
        unmatched_templates(
            t for t, o in zip(templates, outcomes, strict=True) if o.match.state is ClaimState.UNMATCHED
        )
    )
    # templates deleted from the repository: their bindings go, and with them the files they wrote
    for ident in sorted(had - current):
        gone = previous.binding(ident)
        if gone is not None:
            outcomes.append(deleted(ctx, gone))
    if request.materialize:
        outcomes = _materialized(outcomes, previous)
    if any(d.is_error for d in previous.diagnostics):
        # a binding record that cannot be read: which files the tool owns is unknown, so nothing is written
        return _refused(request, previous, diagnostics)
    return _result(
        request,
        ctx,
        previous,
        outcomes,
        diagnostics,
        snapshots.snapshots,
        fingerprints.run_digest,
        failover,
        policy_taints,
        made,
    )


class MadeAhead(NamedTuple):
    """What a template redone ahead of the run's loop (possibly in another process) brings besides its
    outcome: its binding record, serialised, and its index entry."""

    record: bytes
    entry: IndexEntry | None


_UNMADE = "(fingerprint not made yet)"
"""Stands in for the fingerprint of a template that has no index entry (nothing to reuse): it is made where
the template is redone, across processes when there are many (a first run)."""

_STRIPPED = PolicyMatch(ClaimState.UNMATCHED)
"""Stands in for a match while an outcome travels between processes: the policies it holds cost more to
send than the rest of the outcome, and the receiver has the very object."""


def _redo_independent(
    request: ReconcileRequest,
    ctx: RunContext,
    ledger: QuotaLedger,
    templates: Sequence[Manifest],
    matches: Mapping[Identity, PolicyMatch],
    judged: Mapping[Identity, tuple[str, IndexEntry | None]],
    fingerprint_of: Callable[[Manifest, tuple[Requirement, ...]], str],
    previous: PreviousRun,
    quota_namespaces: set[str],
    progress: Callable[[int], None] | None,
    checkpoint: Callable[[], None],
) -> tuple[dict[Identity, TemplateOutcome], dict[Identity, MadeAhead]]:
    """The outcomes of the templates to redo whose outcomes nothing else in the run reads, with their binding
    records and index entries: no other template requires them and no quota counts their namespace, so the
    order they are redone in cannot matter. They go through ``request.fan_out``; each is exactly what the
    run's loop makes of it (the ledger is left as it was, as the loop would leave it for a namespace without
    quota)."""
    if request.fan_out is None:
        return {}, {}
    independent = [
        t
        for t in templates
        if (judgement := judged.get(t.key.identity)) is not None
        and judgement[1] is None
        and t.key.namespace not in quota_namespaces
    ]
    if not independent:
        return {}, {}
    unrequired = requirements([])

    layout = previous.layout

    def redo(chunk: Sequence[Manifest]) -> list[tuple[TemplateOutcome, MadeAhead | None, bool]]:
        found = []
        for template in chunk:
            checkpoint()  # a daemon's status run gives way to a user commit here too (it never forks)
            ident = template.key.identity
            match = matches[ident]
            fingerprint = judged[ident][0]
            if fingerprint is _UNMADE:
                fingerprint = fingerprint_of(template, unrequired)
            _, outcome = _process(
                ctx, ledger, template, match, previous.binding(ident), unrequired, fingerprint
            )
            outcome = _stored(request, outcome)
            ahead = None
            if outcome.binding is not None:
                record = dump_yaml(outcome.binding.to_api()).encode()
                own = {**outcome.files, layout.binding_path(binding_key(outcome.binding)): record}
                ahead = MadeAhead(record, _index_entry(request, layout, outcome, own, outcome.stored))
            same = outcome.match is match
            found.append((replace(outcome, match=_STRIPPED) if same else outcome, ahead, same))
        return found

    outcomes: dict[Identity, TemplateOutcome] = {}
    made: dict[Identity, MadeAhead] = {}
    redone = request.fan_out(redo, independent, progress)
    for template, (outcome, ahead, same) in zip(independent, redone, strict=True):
        ident = template.key.identity
        outcomes[ident] = replace(outcome, match=matches[ident]) if same else outcome
        if ahead is not None:
            made[ident] = ahead
    return outcomes, made


def _stored(request: ReconcileRequest, outcome: TemplateOutcome) -> TemplateOutcome:
    """``outcome`` with its rendered files handed to ``request.store`` when it takes them: their blob ids
    kept, their contents dropped."""
    if request.store is None or not outcome.files:
        return outcome
    ids = request.store(outcome.files)
    if ids is None:
        return outcome
    return replace(outcome, files={}, stored={**outcome.stored, **ids})


def _touched(
    request: ReconcileRequest,
    inputs: Inputs,
    previous: PreviousRun,
    failover: FailoverOutcome | None,
    deleted: set[Identity],
    run_digest: str,
) -> frozenset[Identity] | None:
    """The templates ``request.changed`` touches (``core.change_scope``), when the run may judge only
    them: the index is trusted and was written under the same run-wide fingerprint part, and no template is
    rescheduled or taken away. The templates the failover controllers read (they act as time passes) are
    judged too."""
    if (
        request.changed is None
        or previous.index is None
        or previous.index.run != run_digest
        or request.reschedule
        or deleted
    ):
        return None
    sources = source_plan(request.decoded if request.decoded is not None else request.input_files)
    touched = touched_templates(request.changed, inputs, previous.index, sources)
    if touched is None or failover is None:
        return touched
    return touched | failover.seen


def _not_standing(
    request: ReconcileRequest,
    templates: Sequence[Manifest],
    previous: PreviousRun,
    quota_namespaces: set[str],
) -> set[Identity]:
    """The templates a change's scope must hold whatever changed: those the index has no entry for (it knows
    nothing of an unmatched one), those of a namespace with a quota (the quota fold admits a namespace's
    changes in order, and its status counts every binding there), those other templates required when the
    index was written (a dependency follows its requirers), and those whose recorded output no longer
    stands (a record or file edited since, a held-back result)."""
    index = previous.index
    assert index is not None
    found: set[Identity] = set()
    for template in templates:
        ident = template.key.identity
        entry = index.entries.get(ident)
        if (
            entry is None
            or entry.required
            or ident[2] in quota_namespaces
            or previous.reusable(ident, entry.fingerprint, request.output_blobs, previous.layout.clusters_dir)
            is None
        ):
            found.add(ident)
    return found


def _scoped_result(
    request: ReconcileRequest,
    ctx: RunContext,
    previous: PreviousRun,
    templates: Sequence[Manifest],
    outcomes: list[TemplateOutcome],
    diagnostics: list[Diagnostic],
    made: Mapping[Identity, MadeAhead],
) -> RenderResult:
    """What a run that judged only the templates a change touched makes: the files of those it redid
    (manifests and binding records) and the state index with their entries replaced; the index's other
    entries stand for the templates it did not judge."""
    if any(d.is_error for d in previous.diagnostics):
        return _refused(request, previous, diagnostics)
    assert previous.index is not None
    layout = previous.layout
    redone = [o for o in outcomes if not o.reused]
    before = previous.bindings(o.key.identity for o in redone)
    managed = set(
        ownership(before.values(), {}, clusters_dir=layout.clusters_dir, state_dir=layout.state_dir).paths
    )
    files, stored, keep = _redone_files(redone, layout, made)
    managed |= set(files) | set(stored)
    diagnostics.extend(
        unmatched_templates(
            t for t, o in zip(templates, outcomes, strict=True) if o.match.state is ClaimState.UNMATCHED
        )
    )
    judged = {o.key.identity for o in outcomes}
    entries = {i: e for i, e in previous.index.entries.items() if i not in judged}
    entries.update(_index(request, previous, outcomes, files, stored, previous.index.run, made).entries)
    return RenderResult(
        files=files,
        stored=stored,
        managed=frozenset(managed),
        keep=frozenset(keep),
        bindings=tuple(o.binding for o in redone if o.binding is not None),
        outcomes=tuple(outcomes),
        diagnostics=(*diagnostics, *(d for o in outcomes for d in o.diagnostics), *previous.diagnostics),
        inputs=ctx.inputs,
        previous_bindings=tuple(before[i] for i in sorted(before)),
        incremental=True,
        index=StateIndex(ENGINE_VERSION, dict(sorted(entries.items())), previous.index.run),
        scoped=True,
    )


def _redone_files(
    redone: Iterable[TemplateOutcome], layout: RepoLayout, made: Mapping[Identity, MadeAhead]
) -> tuple[dict[str, bytes], dict[str, str], set[str]]:
    """The files the redone templates write (their manifests and binding records; ``made``: records already
    serialised, by template), those of them already stored (path → blob id), and the managed paths they
    keep as they are."""
    files: dict[str, bytes] = {}
    stored: dict[str, str] = {}
    keep: set[str] = set()
    for outcome in redone:
        files.update(outcome.files)
        stored.update(outcome.stored)
        keep.update(outcome.keep)
        if outcome.binding is not None:
            ahead = made.get(outcome.key.identity)
            files[layout.binding_path(binding_key(outcome.binding))] = (
                ahead.record if ahead is not None else dump_yaml(outcome.binding.to_api()).encode()
            )
    return files, stored, keep


def _requirers_closure(
    requirers: Mapping[Identity, Sequence[Identity]], seeds: Collection[Identity]
) -> set[Identity]:
    """``seeds`` and every template requiring one of them (``propagateDeps``: a dependency's outcome is made
    from its requirers' bindings), until nothing is added."""
    scope: set[Identity] = set()
    pending = list(seeds)
    while pending:
        identity = pending.pop()
        if identity not in scope:
            scope.add(identity)
            pending.extend(requirers.get(identity, ()))
    return scope


def _focus_scope(
    templates: Sequence[Manifest],
    requirers: Mapping[Identity, Sequence[Identity]],
    focus: Callable[[ObjectKey], bool],
) -> set[Identity]:
    """The templates whose outcomes the focused ones depend on: every template of a namespace in scope (the
    quota fold admits a namespace's changes in order) and every template requiring one in scope
    (``propagateDeps``), until nothing is added."""
    by_namespace: dict[str, list[Identity]] = {}
    for template in templates:
        by_namespace.setdefault(template.key.namespace, []).append(template.key.identity)
    scope: set[Identity] = set()
    pending = [t.key.identity for t in templates if focus(t.key)]
    while pending:
        identity = pending.pop()
        if identity in scope:
            continue
        scope.add(identity)
        pending.extend(by_namespace.pop(identity[2], ()))
        pending.extend(requirers.get(identity, ()))
    return scope


def _failover_candidates(ctx: RunContext, previous: PreviousRun, had: set[Identity]) -> list[Identity]:
    """The templates whose records the failover controllers must see; the others have no business with
    them (no task, no memory, no application failover, not on a NoExecute-tainted cluster), so a run reads
    only these records, and decides exactly what a run reading all of them would."""
    index = previous.index
    if index is None:
        return sorted(had)
    tainted = {
        name
        for name, c in ctx.clusters.items()
        if any(t.effect is TaintEffect.NO_EXECUTE for t in c.spec.taints)
    }
    found = []
    for identity in sorted(had):
        entry = index.entries.get(identity)
        if (
            entry is None
            or entry.failover
            or previous.blobs.get(previous.record_path(identity)) != entry.record  # edited since
            or not tainted.isdisjoint(entry.placement)
        ):
            found.append(identity)
    return found


def _first_document(raw: bytes | None) -> Mapping[str, object] | None:
    if not raw:
        return None
    documents = [d.body for d in load_yaml_documents(raw) if isinstance(d.body, Mapping)]
    return documents[0] if documents else None


def _fail_over(
    request: ReconcileRequest, ctx: RunContext, previous: PreviousRun, had: set[Identity]
) -> FailoverOutcome | None:
    """Karmada's failover controllers over the previous bindings (feature gate Failover), which they
    edit before scheduling; None when the gate is off."""
    if not ctx.gate(FeatureGate.FAILOVER):
        return None
    config = ctx.config.failover
    raw_queue = request.state_files.get(previous.layout.eviction_queue_path)
    outcome = run_failover(
        previous.bindings(_failover_candidates(ctx, previous, had)),
        ctx.clusters,
        request.observed,
        ctx.interpreter,
        parse_queue(_first_document(raw_queue)),
        FailoverSettings(
            now=parse_time(request.now),
            config=config,
            taint_eviction=config.enable_taint_manager and config.enable_no_execute_taint_eviction,
            application=True,
            graceful_eviction_gate=ctx.gate(FeatureGate.GRACEFUL_EVICTION),
            injection_gate=ctx.gate(FeatureGate.STATEFUL_FAILOVER_INJECTION),
        ),
    )
    previous.substitute(outcome.bindings)
    return outcome


def _binding_of(outcome: TemplateOutcome, previous: PreviousRun) -> ResourceBinding | None:
    if outcome.reused and outcome.binding is None:
        return previous.binding(outcome.key.identity)
    return outcome.binding


def _reused(
    ctx: RunContext, template: Manifest, match: PolicyMatch, entry: IndexEntry, fingerprint: str
) -> TemplateOutcome:
    key = template.key
    folder = f"{ctx.clusters_dir}/"
    inside = f"/{object_path(key)}"
    return TemplateOutcome(
        key=key,
        match=match,
        paths={cluster: folder + cluster + inside for cluster in entry.rendered},
        diagnostics=entry.warnings,
        fingerprint=fingerprint,
        reused=True,
    )


def _materialized(outcomes: list[TemplateOutcome], previous: PreviousRun) -> list[TemplateOutcome]:
    """Every reused outcome with its binding (read from the records in one batch)."""
    reused = [o.key.identity for o in outcomes if o.reused and o.binding is None]
    if not reused:
        return outcomes
    found = previous.bindings(reused)
    return [replace(o, binding=found.get(o.key.identity)) if o.reused else o for o in outcomes]


def _process(
    ctx: RunContext,
    ledger: QuotaLedger,
    template: Manifest,
    match: PolicyMatch,
    previous: ResourceBinding | None,
    required: tuple[Requirement, ...],
    fingerprint: str,
) -> tuple[QuotaLedger, TemplateOutcome]:
    """claim → place → admit → render targets → record, for one template."""
    claimed = claim(ctx, template, match, previous, required)
    if isinstance(claimed, TemplateOutcome):
        return ledger, replace(claimed, fingerprint=fingerprint)
    placed = place(ctx, claimed)
    if isinstance(placed, TemplateOutcome):
        return ledger, replace(placed, fingerprint=fingerprint)
    ledger, admitted = admit(ctx, ledger, placed)
    if isinstance(admitted, TemplateOutcome):
        return ledger, replace(admitted, fingerprint=fingerprint)
    targets = render_targets(ctx, admitted)
    binding, observed_diagnostics = _record(ctx, admitted, targets.rendered, fingerprint)
    lint = untolerated_no_execute(
        [binding],
        ctx.clusters,
        {template.key.identity: template.source},
        failover=ctx.gate(FeatureGate.FAILOVER)
        and ctx.config.failover.enable_taint_manager
        and ctx.config.failover.enable_no_execute_taint_eviction,
    )
    return ledger, TemplateOutcome(
        key=template.key,
        match=admitted.claim.match,
        binding=binding,
        schedule=admitted.schedule,
        scheduling_reason=admitted.reason,
        overrides=targets.overrides,
        paths=targets.paths,
        diagnostics=(*admitted.diagnostics, *targets.diagnostics, *observed_diagnostics, *lint),
        lazy_hold=admitted.lazy_hold,
        interpreted_by=interpreted_by(ctx, template, admitted.components),
        files=targets.files,
        keep=targets.keep,
        fingerprint=fingerprint,
    )


def _record(
    ctx: RunContext, placed: Placement, rendered: Mapping[str, tuple[bool, str]], fingerprint: str
) -> tuple[ResourceBinding, tuple[Diagnostic, ...]]:
    """The binding record of a placed and rendered template, and warnings about its observed status."""
    claimed: Claim = placed.claim
    template = claimed.template
    required = claimed.required
    items: tuple[AggregatedStatusItem, ...] = ()
    fully = None
    folded: dict[str, Any] | None = None
    problem: Diagnostic | None = None
    if ctx.observed is not None:
        holding = [name for name, (ok, _) in rendered.items() if ok]
        items = aggregated_status(template.key.identity, holding, ctx.observed, ctx.interpreter)
        fully = fully_applied_condition(items, [target.name for target in placed.targets])
        before = claimed.previous.status.template_status if claimed.previous is not None else None
        folded, problem = template_status(template, items, ctx.observed, ctx.interpreter, before)
    binding = build_binding(
        BindingInputs(
            template=template,
            match=claimed.match,
            replicas=placed.replicas,
            replica_requirements=placed.requirements,
            components=placed.components,
            clusters=placed.targets,
            scheduled=placed.condition,
            observed_affinity_name=placed.observed_affinity,
            rendered=dict(rendered),
            scheduled_changed=placed.changed,
            reschedule_triggered_at=ctx.now if template.key.identity in ctx.reschedule else None,
            template_hash=placed.template_hash,
            hold_previous_spec=placed.lazy_hold,
            required_by=tuple(r.snapshot for r in required),
            attached_conflict_resolution=attached_conflict_resolution(required) if claimed.attached else None,
            attached_preserve=attached_preserve(required) if claimed.attached else None,
            fingerprint=fingerprint,
            aggregated_status=items,
            template_status=folded,
            fully_applied=fully,
        ),
        claimed.previous,
        ctx.now,
    )
    return binding, (problem,) if problem is not None else ()


def _refused(request: ReconcileRequest, previous: PreviousRun, diagnostics: list[Diagnostic]) -> RenderResult:
    """The input has errors: nothing is written, and everything the tool manages stays as it is."""
    previous.read_all()
    layout = previous.layout
    owned = ownership(
        previous.bindings(previous.identities()).values(),
        request.state_files,
        clusters_dir=layout.clusters_dir,
        state_dir=layout.state_dir,
    )
    managed = frozenset(previous.blobs) | owned.paths
    return RenderResult({}, managed, keep=managed, diagnostics=(*diagnostics, *previous.diagnostics))


def _result(
    request: ReconcileRequest,
    ctx: RunContext,
    previous: PreviousRun,
    outcomes: list[TemplateOutcome],
    diagnostics: list[Diagnostic],
    snapshots: Mapping[str, ClusterSnapshot],
    run_digest: str,
    failover: FailoverOutcome | None = None,
    policy_taints: Mapping[str, tuple[Taint, ...]] | None = None,
    made: Mapping[Identity, MadeAhead] | None = None,
) -> RenderResult:
    """Merge the outcomes with the run-wide outputs: records, quota outputs, released manifests, the index,
    the eviction queue. ``made``: binding records and index entries made where their templates were redone;
    ``run_digest``: the run-wide part of every fingerprint, which the index records."""
    layout = previous.layout
    redone = [o for o in outcomes if not o.reused]
    before = previous.bindings(o.key.identity for o in redone)
    # what this run answers for: every state file but the records of reused templates, the files the
    # redone and removed templates owned and own now, and everything written
    reused_records = {previous.record_path(o.key.identity) for o in outcomes if o.reused}
    managed = {p for p in previous.blobs if p not in reused_records}
    managed |= ownership(
        before.values(), {}, clusters_dir=layout.clusters_dir, state_dir=layout.state_dir
    ).paths
    files, stored, keep = _redone_files(redone, layout, made or {})
    if request.emit is not None:
        request.emit(files)

    def in_namespace(namespace: str) -> list[ResourceBinding]:
        found = [o.binding for o in outcomes if o.key.namespace == namespace and o.binding is not None]
        reused = [
            o.key.identity
            for o in outcomes
            if o.key.namespace == namespace and o.reused and o.binding is None
        ]
        return [*found, *previous.bindings(reused).values()]

    quota = quota_outputs(ctx, request.state_files, in_namespace, snapshots)
    diagnostics.extend(quota.diagnostics)
    managed |= quota.owned
    files.update(quota.files)
    released_path = layout.released_path
    released = released_record(
        request.state_files.get(released_path), outcomes, request.output_blobs, request.now
    )
    if released is not None:
        files[released_path] = released
    if failover is not None and failover.queue.pending(parse_time(request.now)):
        files[layout.eviction_queue_path] = dump_yaml(queue_document(failover.queue)).encode()
    if policy_taints:
        files[layout.cluster_taints_path] = dump_yaml(policy_taints_document(policy_taints)).encode()
    index = _index(request, previous, outcomes, files, stored, run_digest, made or {})
    # every shard, changed or not: an unchanged one hashes to the blob it has, and the commit leaves it be
    for shard, raw in index.shards(request.memo).items():
        files[layout.index_shard_path(shard)] = raw
    managed |= set(files) | set(stored)
    owned = set(quota.owned) | {p for p in quota.files if layout.is_output(p)}
    for outcome in outcomes:
        diagnostics.extend(outcome.diagnostics)
        if outcome.reused:
            owned.update(outcome.paths.values())
        elif outcome.binding is not None:
            owned.update(layout.manifest_path(c, outcome.key) for c in applied_clusters(outcome.binding))
    return RenderResult(
        files=files,
        stored=stored,
        managed=frozenset(managed),
        keep=frozenset(keep),
        bindings=tuple(o.binding for o in outcomes if o.binding is not None),
        outcomes=tuple(outcomes),
        diagnostics=(*diagnostics, *previous.diagnostics),
        inputs=ctx.inputs,
        quotas=quota.quotas,
        previous_bindings=tuple(before[i] for i in sorted(before)),
        incremental=previous.index is not None,
        owned=frozenset(owned),
        index=index,
        failover=failover,
    )


def _index(
    request: ReconcileRequest,
    previous: PreviousRun,
    outcomes: Iterable[TemplateOutcome],
    files: Mapping[str, bytes],
    stored: Mapping[str, str],
    run: str,
    made: Mapping[Identity, MadeAhead],
) -> StateIndex:
    """The state index after this run (``run``: its run-wide fingerprint part): reused entries as they
    were, redone templates described anew (``made``: entries made where they were redone)."""
    layout = previous.layout
    entries: dict[Identity, IndexEntry] = {}
    for outcome in outcomes:
        ident = outcome.key.identity
        if outcome.reused:
            assert previous.index is not None
            entries[ident] = previous.index.entries[ident]
            continue
        ahead = made.get(ident)
        entry = ahead.entry if ahead is not None else _index_entry(request, layout, outcome, files, stored)
        if entry is not None:
            entries[ident] = entry
    return StateIndex(engine=ENGINE_VERSION, entries=entries, run=run)


def _index_entry(
    request: ReconcileRequest,
    layout: RepoLayout,
    outcome: TemplateOutcome,
    files: Mapping[str, bytes],
    stored: Mapping[str, str],
) -> IndexEntry | None:
    """The index entry of a redone template (``files``: the files the run writes, its own among them, but
    those already ``stored``, path → blob id); None when it has no binding."""
    binding = outcome.binding
    if binding is None or outcome.removed:
        return None
    record = files.get(layout.binding_path(binding_key(binding)))
    rendered = applied_clusters(binding)
    paths = [layout.manifest_path(c, outcome.key) for c in rendered]
    blobs = {
        p: stored[p]
        if p in stored
        else request.hash_blob(files[p])
        if p in files
        else request.output_blobs.get(p, "-")
        for p in paths
    }
    claim = previous_claim(binding)
    placed = bound_placement(binding)
    return IndexEntry(
        fingerprint=outcome.fingerprint,
        record=request.hash_blob(record) if record is not None else "",
        files=files_digest(paths, blobs),
        rendered=rendered,
        settled=_settled(outcome, binding),
        claim=(claim[0].kind, claim[0].namespace, claim[0].name, claim[1]) if claim else None,
        warnings=tuple(d for d in outcome.diagnostics if not d.is_error),
        placement=placed.replicas,
        workload=placed.has_replicas,
        failover=has_failover_business(binding),
        health=cluster_health(binding),
        ready="" if (ready := binding_ready(binding)) == "-" else ready,
        required=bool(binding.spec.required_by),
    )


def _settled(outcome: TemplateOutcome, binding: ResourceBinding) -> bool:
    """Whether the same inputs would give the same result again: nothing failed, was refused or held back."""
    scheduled = binding.condition("Scheduled")
    return (
        not outcome.failed and (scheduled is None or scheduled.status == "True") and not render_notes(binding)
    )
