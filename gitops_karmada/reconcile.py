"""The use case: one repository state in, the desired output tree and binding records out.

``reconcile(request)`` is pure: the adapters read the commit (input files, the state folder, the list of
files already in the cluster folders) and write the result. Per template it runs Karmada's chain:
detect the policy → interpret replicas/components → schedule (only when Karmada would) → per target
cluster revise replicas, apply overrides, stamp claim metadata → serialise. A template that fails keeps
its previous files and binding and is reported; it never empties a cluster folder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.binding import (
    SCHEDULE_SUCCESS_MESSAGE,
    TEMPLATE_HASH_ANNOTATION,
    BindingInputs,
    applied_clusters,
    binding_permanent_id,
    build_binding,
    carry_condition,
    scheduled_condition,
)
from gitops_karmada.core.detector import ClaimState, PolicyIndex, PolicyMatch, match_policy
from gitops_karmada.core.dispatch import merge_target_clusters, should_suspend_dispatching
from gitops_karmada.core.interpreter import Operation, ResourceInterpreter
from gitops_karmada.core.layout import BINDINGS_FOLDER, binding_name, binding_path, manifest_path
from gitops_karmada.core.lint import cross_object_warnings, unmatched_templates, untolerated_no_execute
from gitops_karmada.core.loading import Inputs, load, load_bindings
from gitops_karmada.core.overrides import OverrideResult, annotate_applied_overrides, apply_overrides
from gitops_karmada.core.overrides.errors import OverridePolicyError
from gitops_karmada.core.ownership import (
    QUOTAS_FOLDER,
    RELEASED_FILE,
    binding_key,
    ownership,
    quota_paths,
    quota_records,
    released_entries,
)
from gitops_karmada.core.quota import (
    QuotaLedger,
    federated_quota_status,
    member_quota_statuses,
)
from gitops_karmada.core.render import (
    RELEASED_HEADER,
    claim_metadata,
    deep_copy,
    needs_replica_revision,
    provenance_header,
    prune,
    release,
    stamp,
    template_hash,
    work_conflict_resolution,
)
from gitops_karmada.core.scheduler import (
    AccurateEstimator,
    ClusterIndex,
    ScheduleRequest,
    ScheduleResult,
    divide_job_completions,
    schedule,
)
from gitops_karmada.core.scheduler.snapshot import load_cluster_snapshots
from gitops_karmada.core.selectors import cluster_matches, labels_match
from gitops_karmada.core.serialize import dump_yaml, load_yaml_documents
from gitops_karmada.core.triggers import scheduling_reason
from gitops_karmada.model.bindings import BindingSnapshot, ResourceBinding, TargetCluster
from gitops_karmada.model.config import FeatureGate, ToolConfig
from gitops_karmada.model.diagnostics import Diagnostic, error, warning
from gitops_karmada.model.errors import GitopsKarmadaError, InputError, InterpretError, OverrideError
from gitops_karmada.model.keys import ObjectKey, group_of
from gitops_karmada.model.policies import ActivationPreference, ConflictResolution

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.bindings import Component, ReplicaRequirements
    from gitops_karmada.model.clusters import Cluster, Condition
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.overrides import AnyOverridePolicy
    from gitops_karmada.model.policies import Placement
    from gitops_karmada.model.quotas import FederatedResourceQuota

Identity = tuple[str, str, str, str]
OverrideSignature = frozenset[tuple[str, str, str, int]]
RenderKey = tuple[int | None, int | None, OverrideSignature]
"""What a rendered manifest depends on besides the template: replicas, completions, override rules."""


def blob_sha(data: bytes) -> str:
    """Git's blob object id of ``data`` (so unchanged files are never rewritten)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class ReconcileRequest:
    input_files: Mapping[str, bytes]
    """Input documents by repository path (already restricted to input paths)."""
    config: ToolConfig
    config_diagnostics: tuple[Diagnostic, ...] = ()
    state_files: Mapping[str, bytes] = field(default_factory=dict)
    """Current files of the state folder (the previous binding records)."""
    snapshot_files: Mapping[str, bytes] = field(default_factory=dict)
    """Cluster snapshots (nodes, pods, ResourceQuotas) for the accurate estimator."""
    output_blobs: Mapping[str, str] = field(default_factory=dict)
    """Current files of the clusters folder: path → blob sha (to find hand-written files)."""
    now: str
    """RFC 3339 time of the source commit: the only clock the core knows."""
    reschedule: frozenset[Identity] = frozenset()
    """Templates whose replicas are divided afresh (Karmada's WorkloadRebalancer)."""
    read_output: Callable[[str], bytes | None] | None = None
    """Reads a file of the source commit; needed only to release preserved manifests."""
    explain: bool = False
    """Also evaluate the scheduler where Karmada keeps the previous result, so it can be explained."""


@dataclass(frozen=True, slots=True)
class TemplateOutcome:
    """What happened to one template, for reports and ``explain``."""

    key: ObjectKey
    match: PolicyMatch
    binding: ResourceBinding | None = None
    schedule: ScheduleResult | None = None
    scheduling_reason: str | None = None
    """Why scheduling ran; None when the previous result was kept."""
    overrides: Mapping[str, OverrideResult] = field(default_factory=dict)
    paths: Mapping[str, str] = field(default_factory=dict)
    """Cluster → rendered path."""
    diagnostics: tuple[Diagnostic, ...] = ()
    released: tuple[str, ...] = ()
    """Paths released from management (template deleted, preserveResourcesOnDeletion)."""
    lazy_hold: bool = False
    """A Lazy policy changed but the template did not: the previous placement was kept."""
    interpreted_by: str = ""
    """Who answered for replicas or components: customization/<name>, thirdparty or native."""
    removed: bool = False
    """Its binding is gone (template deleted, or a dependency nothing requires any more)."""

    @property
    def failed(self) -> bool:
        return any(d.is_error for d in self.diagnostics)


@dataclass(frozen=True, slots=True)
class RenderResult:
    files: Mapping[str, bytes]
    """Desired content of every path this run writes."""
    managed: frozenset[str]
    """Every path this run is responsible for (written now, written before, or in the state folder)."""
    keep: frozenset[str] = frozenset()
    """Managed paths whose current content must stay as it is (failed templates)."""
    bindings: tuple[ResourceBinding, ...] = ()
    outcomes: tuple[TemplateOutcome, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    inputs: Inputs | None = None
    quotas: tuple[FederatedResourceQuota, ...] = ()
    """Every FederatedResourceQuota with its settled status."""
    previous_bindings: tuple[ResourceBinding, ...] = ()
    """The binding records the run started from (for the write paths' deletion guard)."""

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

    def changes(
        self, current_blobs: Mapping[str, str], hash_blob: Callable[[bytes], str] = blob_sha
    ) -> dict[str, bytes | None]:
        """What to write (bytes) or delete (None) to go from ``current_blobs`` to this result.

        ``hash_blob`` must be the repository's object id function (SHA-1 or SHA-256 repositories).
        """
        changes: dict[str, bytes | None] = {}
        for path in sorted(self.managed - self.keep):
            new = self.files.get(path)
            old = current_blobs.get(path)
            if new is None:
                if old is not None:
                    changes[path] = None
            elif old != hash_blob(new):
                changes[path] = new
        return changes


def identity(key: ObjectKey) -> Identity:
    return key.identity


def tie_break_uid(template: Manifest) -> str:
    """The template's UID, or a stable stand-in: Karmada breaks Webster ties by FNV-1a of the UID."""
    key = template.key
    return template.uid or f"{key.api_version}/{key.kind}/{key.namespace}/{key.name}"


@dataclass(slots=True)
class _Run:
    """Per-run context shared by the per-template steps."""

    inputs: Inputs
    request: ReconcileRequest
    previous: Mapping[Identity, ResourceBinding]
    interpreter: ResourceInterpreter
    clusters: Mapping[str, Cluster]
    cluster_index: ClusterIndex
    override_signatures: Mapping[str, OverrideSignature]
    accurate: AccurateEstimator | None
    """The accurate estimator, when the repository carries cluster snapshots."""
    ledger: QuotaLedger
    """Per cluster, the override rules that target it: clusters with equal signatures render alike."""
    files: dict[str, bytes] = field(default_factory=dict)
    keep: set[str] = field(default_factory=set)

    @property
    def config(self) -> ToolConfig:
        return self.inputs.config

    def gate(self, gate: FeatureGate) -> bool:
        return self.config.gate(gate)


def reconcile(request: ReconcileRequest) -> RenderResult:
    """Compute the desired cluster folders and binding records for one repository state."""
    loaded = load(request.input_files, request.config)
    bindings_prefix = f"{request.config.output.state_dir}/{BINDINGS_FOLDER}/"
    previous, state_diagnostics = load_bindings(
        {path: content for path, content in request.state_files.items() if path.startswith(bindings_prefix)}
    )
    snapshots = load_cluster_snapshots(request.snapshot_files, root=request.config.output.snapshots_dir)
    diagnostics = [
        *request.config_diagnostics,
        *loaded.diagnostics,
        *state_diagnostics,
        *snapshots.diagnostics,
    ]
    state_prefix = request.config.output.state_dir + "/"
    managed = {path for path in request.state_files if path.startswith(state_prefix)}
    owned = ownership(
        previous.values(),
        request.state_files,
        clusters_dir=request.config.output.clusters_dir,
        state_dir=request.config.output.state_dir,
    )
    managed |= owned.paths
    if any(d.is_error for d in diagnostics):
        return RenderResult({}, frozenset(managed), keep=frozenset(managed), diagnostics=tuple(diagnostics))

    inputs = loaded.inputs
    run = _Run(
        inputs=inputs,
        request=request,
        previous=previous,
        interpreter=ResourceInterpreter(
            inputs.customizations,
            resource_quota_estimate=inputs.config.gate(FeatureGate.RESOURCE_QUOTA_ESTIMATE),
        ),
        clusters={cluster.name: cluster for cluster in inputs.clusters},
        cluster_index=ClusterIndex(inputs.clusters),
        override_signatures=_override_signatures(inputs),
        accurate=AccurateEstimator.from_snapshots(
            snapshots.snapshots,
            resource_quota_estimate=inputs.config.gate(FeatureGate.RESOURCE_QUOTA_ESTIMATE),
        )
        if snapshots.snapshots
        else None,
        ledger=QuotaLedger(enforcement=False),
    )
    index = PolicyIndex.build(inputs.propagation_policies, inputs.cluster_propagation_policies)
    override_names = frozenset(
        {(p.namespace, p.name) for p in inputs.override_policies}
        | {("", p.name) for p in inputs.cluster_override_policies}
    )
    preemption = inputs.config.gate(FeatureGate.POLICY_PREEMPTION)
    templates = sorted(inputs.templates, key=lambda t: t.key.identity)
    current = {t.key.identity for t in templates}
    matches = {
        t.key.identity: match_policy(
            t,
            index,
            previous.get(t.key.identity),
            preemption_enabled=preemption,
            existing_override_policies=override_names,
        )
        for t in templates
    }
    # bindings of deleted templates free their quota first; the rest are admitted in processing order
    run.ledger = QuotaLedger.open(
        inputs.quotas,
        [b for ident, b in previous.items() if ident in current],
        enforcement=inputs.config.gate(FeatureGate.FEDERATED_QUOTA_ENFORCEMENT),
    )
    diagnostics.extend(cross_object_warnings(inputs, index))
    requirers, dependency_diagnostics = _dependency_requirements(run, templates, matches)
    diagnostics.extend(dependency_diagnostics)
    # workloads first, then the objects they depend on, which follow them to their clusters
    done: dict[Identity, TemplateOutcome] = {}
    for template in templates:
        ident = template.key.identity
        if ident not in requirers:
            done[ident] = _process(run, template, matches[ident], previous.get(ident))
    for template in templates:
        ident = template.key.identity
        if ident in requirers:
            required = _requirements(requirers[ident], done)
            done[ident] = _process(run, template, matches[ident], previous.get(ident), required)
    outcomes = [done[t.key.identity] for t in templates]
    diagnostics.extend(
        unmatched_templates(
            t for t, o in zip(templates, outcomes, strict=True) if o.match.state is ClaimState.UNMATCHED
        )
    )
    # templates deleted from the repository: their bindings go, and with them the files they wrote
    for ident, binding in sorted(previous.items()):
        if ident not in current:
            outcomes.append(_deleted(run, binding))
    bindings = tuple(o.binding for o in outcomes if o.binding is not None)
    diagnostics.extend(
        untolerated_no_execute(
            bindings,
            run.clusters,
            {t.key.identity: t.source for t in templates},
            failover=run.gate(FeatureGate.FAILOVER),
        )
    )
    for binding in bindings:
        run.files[binding_path(request.config.output.state_dir, binding_key(binding))] = dump_yaml(
            binding.to_api()
        ).encode()
    bindings_now = tuple(o.binding for o in outcomes if o.binding is not None)
    quota_diagnostics, quotas = _quota_outputs(run, bindings_now, snapshots.snapshots, managed)
    diagnostics.extend(quota_diagnostics)
    released = released_record(request, outcomes, managed)
    if released is not None:
        run.files[f"{request.config.output.state_dir}/{RELEASED_FILE}"] = released
    managed |= set(run.files)
    for outcome in outcomes:
        diagnostics.extend(outcome.diagnostics)
    return RenderResult(
        files=run.files,
        managed=frozenset(managed),
        keep=frozenset(run.keep),
        bindings=bindings,
        outcomes=tuple(outcomes),
        diagnostics=tuple(diagnostics),
        inputs=inputs,
        quotas=quotas,
        previous_bindings=tuple(previous[identity] for identity in sorted(previous)),
    )


def blocking_entry(path: str, existing: Mapping[str, str]) -> str | None:
    """An existing file or symbolic link at a parent of ``path`` (writing ``path`` would replace it)."""
    parent = path.rpartition("/")[0]
    while parent:
        if parent in existing:
            return parent
        parent = parent.rpartition("/")[0]
    return None


def _deleted(run: _Run, binding: ResourceBinding) -> TemplateOutcome:
    """A template gone from the repository: its files go too, unless its policy preserves them."""
    key = binding_key(binding)
    if not binding.spec.preserve_resources_on_deletion:
        reason = "the template was deleted; its manifests are removed"
        return TemplateOutcome(key=key, match=PolicyMatch(ClaimState.UNMATCHED, reason=reason), removed=True)
    released: list[str] = []
    for cluster in applied_clusters(binding):
        path = manifest_path(run.config.output.clusters_dir, cluster, key)
        raw = run.request.read_output(path) if run.request.read_output is not None else None
        if raw is None:
            continue
        try:
            documents = [d.body for d in load_yaml_documents(raw) if isinstance(d.body, Mapping)]
        except InputError:
            documents = []
        if len(documents) == 1:
            run.files[path] = (RELEASED_HEADER + dump_yaml(release(documents[0]))).encode()
        else:  # edited by hand into something else: leave the bytes alone
            run.keep.add(path)
        released.append(path)
    reason = (
        "the template was deleted; preserveResourcesOnDeletion keeps its manifests, released from management"
    )
    return TemplateOutcome(
        key=key,
        match=PolicyMatch(ClaimState.UNMATCHED, reason=reason),
        released=tuple(released),
        removed=True,
    )


def released_record(
    request: ReconcileRequest, outcomes: Iterable[TemplateOutcome], managed: set[str]
) -> bytes | None:
    """The state file listing released manifests: earlier entries whose file still exists, plus new ones."""
    path = f"{request.config.output.state_dir}/{RELEASED_FILE}"
    entries = released_entries(request.state_files.get(path))
    owned_now = {p for o in outcomes for p in o.paths.values()}
    entries = {p: e for p, e in entries.items() if p in request.output_blobs and p not in owned_now}
    for outcome in outcomes:
        for released in outcome.released:
            entries[released] = {"path": released, "template": str(outcome.key), "releasedAt": request.now}
    if not entries:
        return None
    managed.add(path)
    record = {
        "apiVersion": "gitops-karmada.io/v1alpha1",
        "kind": "ReleasedManifests",
        "items": [entries[p] for p in sorted(entries)],
    }
    header = (
        "# Manifests gitops-karmada released from management (their template was deleted and its policy\n"
        "# had preserveResourcesOnDeletion: true). No run deletes or rewrites them; they are yours now.\n"
    )
    return (header + dump_yaml(record)).encode()


def _keep_previous(
    run: _Run,
    template: Manifest,
    match: PolicyMatch,
    prev: ResourceBinding | None,
    diagnostics: tuple[Diagnostic, ...] = (),
) -> TemplateOutcome:
    """Leave the template's previous binding and files exactly as they are."""
    if prev is not None:
        key = template.key
        run.keep.update(manifest_path(run.config.output.clusters_dir, c, key) for c in applied_clusters(prev))
    return TemplateOutcome(key=template.key, match=match, binding=prev, diagnostics=diagnostics)


def _process(
    run: _Run,
    template: Manifest,
    match: PolicyMatch,
    prev: ResourceBinding | None,
    required: tuple[Requirement, ...] = (),
) -> TemplateOutcome:
    key = template.key
    subject = str(key)
    was_attached = prev is not None and prev.spec.placement is None and bool(prev.spec.required_by)
    attached = bool(required) and match.policy is None and match.state is not ClaimState.NAMESPACE_SYNC
    if match.state is ClaimState.ORPHANED and was_attached and not required:
        # a dependency nothing requires any more: its attached binding goes, and its files with it
        gone = "no workload requires it any more (propagateDeps); its manifests are removed"
        return TemplateOutcome(key=key, match=PolicyMatch(ClaimState.UNMATCHED, reason=gone), removed=True)
    if attached:
        match = PolicyMatch(
            ClaimState.ATTACHED,
            reason="required by " + ", ".join(f"{r.snapshot.namespace}/{r.snapshot.name}" for r in required),
        )
    elif match.state in (ClaimState.UNMATCHED, ClaimState.IGNORED, ClaimState.WAITING):
        waiting = (warning(match.reason, template.source),) if match.state is ClaimState.WAITING else ()
        return _keep_previous(run, template, match, prev, waiting)

    # -- interpret ----------------------------------------------------------------------------------
    try:
        replicas, requirements, components = _interpret(run, template)
    except InterpretError as err:
        problem = error(f"cannot interpret: {err}", template.source, subject=subject)
        return _keep_previous(run, template, match, prev, (problem,))

    # -- a Lazy policy's changes wait for the template to change ---------------------------------------
    current_hash = template_hash(template.body)
    lazy_hold = (
        match.policy is not None
        and match.policy.spec.activation_preference is ActivationPreference.LAZY
        and prev is not None
        and prev.metadata.annotations.get(TEMPLATE_HASH_ANNOTATION) == current_hash
    )

    # -- schedule ------------------------------------------------------------------------------------
    schedule_result: ScheduleResult | None = None
    reason: str | None = None
    observed = prev.status.scheduler_observed_affinity_name if prev is not None else ""
    diagnostics: list[Diagnostic] = []
    targets: tuple[TargetCluster, ...]
    condition: Condition | None
    if attached:
        targets = ()
        condition = None
        changed = False
    elif match.state is ClaimState.NAMESPACE_SYNC:
        targets = tuple(TargetCluster(name=name) for name in sorted(run.clusters))
        condition = scheduled_condition(True, "Success", SCHEDULE_SUCCESS_MESSAGE)
        changed = prev is None or prev.spec.clusters != targets
    elif match.state is ClaimState.ORPHANED or lazy_hold:
        assert prev is not None
        targets = prev.spec.clusters
        condition = prev.condition("Scheduled") or scheduled_condition(
            True, "Success", SCHEDULE_SUCCESS_MESSAGE
        )
        changed = False
    else:
        assert match.policy is not None
        placement = match.policy.spec.placement
        reschedule = key.identity in run.request.reschedule
        reason = scheduling_reason(
            prev, placement, replicas, components, run.clusters.keys(), reschedule=reschedule
        )
        if reason is None:
            assert prev is not None
            targets = prev.spec.clusters
            condition = prev.condition("Scheduled") or scheduled_condition(
                True, "Success", SCHEDULE_SUCCESS_MESSAGE
            )
            changed = False
            if run.request.explain:
                # re-evaluated only to be explained: the kept result stays the binding's
                schedule_result = _schedule(
                    run, template, placement, replicas, requirements, components, prev, observed, reschedule
                )
        else:
            schedule_result = _schedule(
                run, template, placement, replicas, requirements, components, prev, observed, reschedule
            )
            targets = schedule_result.clusters
            observed = schedule_result.observed_affinity_name
            condition = scheduled_condition(
                schedule_result.success, schedule_result.condition_reason, schedule_result.condition_message
            )
            changed = prev is None or prev.spec.clusters != targets
            if not schedule_result.success:
                diagnostics.append(
                    error(
                        f"cannot be scheduled: {schedule_result.condition_message}",
                        template.source,
                        subject=subject,
                    )
                )

    # -- FederatedResourceQuota admission (what Karmada's binding webhook does to these writes) ----------
    if not attached and condition is not None:
        provisional = build_binding(
            BindingInputs(
                template=template,
                match=match,
                replicas=replicas,
                replica_requirements=requirements,
                components=components,
                clusters=targets,
                scheduled=condition,
                hold_previous_spec=lazy_hold,
            ),
            prev,
            run.request.now,
        )
        run.ledger, verdict = run.ledger.admit_binding(prev, provisional)
        if not verdict.allowed:
            diagnostics.append(
                error(f"{verdict.reason}: {verdict.message}", template.source, subject=subject)
            )
            exceeded = scheduled_condition(False, verdict.reason, verdict.message)
            # The change is not applied, whichever of Karmada's two writes was refused: the binding and
            # its manifests stay as they were. (Karmada keeps a refused placement's new demand, so a
            # Duplicated workload would still ship its new replica count; the issue asks for none.)
            if prev is not None:
                kept = _keep_previous(run, template, match, prev, tuple(diagnostics))
                held = build_binding_status_override(prev, exceeded, run.request.now)
                return replace(kept, binding=held)
            targets = ()
            condition = exceeded
            changed = False

    # -- render per target cluster ------------------------------------------------------------------
    binding_resolution: ConflictResolution | None
    if attached:
        placement_for_render = None
        binding_resolution = _attached_conflict_resolution(required)
        suspension = None
    elif lazy_hold or match.policy is None:
        effective = prev.spec if prev is not None else None
        placement_for_render = effective.placement if effective is not None else None
        binding_resolution = effective.conflict_resolution if effective is not None else None
        suspension = effective.suspension if effective is not None else None
    else:
        placement_for_render = match.policy.spec.placement
        binding_resolution = match.policy.spec.conflict_resolution
        suspension = match.policy.spec.suspension
    strategy = placement_for_render.replica_scheduling if placement_for_render is not None else None
    revise = needs_replica_revision(
        replicas, strategy.replica_scheduling_type if strategy is not None else None
    )
    previously_applied = set(applied_clusters(prev)) if prev is not None else set()
    conflict_resolution = work_conflict_resolution(template.annotations, binding_resolution)
    header = provenance_header(str(template.source), _origin(match))
    completions = _job_completions(template, targets) if revise else {}
    own = {t.name for t in targets}
    render_targets = (
        *targets,
        *(TargetCluster(name=t.name) for t in _required_clusters(required) if t.name not in own),
    )
    overrides: dict[str, OverrideResult] = {}
    paths: dict[str, str] = {}
    applied: dict[str, tuple[bool, str]] = {}
    # clusters that get the same replicas, completions and override rules get the same bytes: render once
    rendered: dict[RenderKey, tuple[bytes, OverrideResult] | GitopsKarmadaError] = {}
    sharing: dict[RenderKey, list[str]] = {}
    for target in render_targets:
        path = manifest_path(run.config.output.clusters_dir, target.name, key)
        paths[target.name] = path
        ours = target.name in previously_applied
        cluster = run.clusters.get(target.name)
        if cluster is None or should_suspend_dispatching(suspension, target.name):
            # a target that left the inventory (and could not be rescheduled) or whose dispatching is
            # suspended: what is in its folder stays exactly as it is
            if ours:
                run.keep.add(path)
            why = "the cluster left the inventory" if cluster is None else "dispatching is suspended"
            applied[target.name] = (ours, f"{why}: the folder was left as it was")
            continue
        blocker = blocking_entry(path, run.request.output_blobs)
        if blocker is not None:
            message = (
                f"{blocker} is a file or symbolic link gitops-karmada did not write, where {path} needs a "
                "folder: nothing was written there (move it away to let the tool write)"
            )
            applied[target.name] = (False, message)
            diagnostics.append(warning(message, template.source, subject=subject))
            continue
        hand_written = path in run.request.output_blobs and not ours
        if hand_written and conflict_resolution != "overwrite":
            message = (
                f"{path} exists and was not written by gitops-karmada; conflictResolution is Abort, "
                "so it was left untouched (set the policy's conflictResolution: Overwrite, or annotate the "
                "template work.karmada.io/conflict-resolution: overwrite, to take it over)"
            )
            applied[target.name] = (False, message)
            diagnostics.append(warning(message, template.source, subject=subject))
            continue
        signature: RenderKey = (
            target.replicas if revise else None,
            completions.get(target.name),
            run.override_signatures.get(target.name, frozenset()),
        )
        sharing.setdefault(signature, []).append(target.name)
        if signature not in rendered:
            try:
                body, result = _render_one(
                    run,
                    template,
                    match,
                    target,
                    cluster,
                    revise,
                    completions.get(target.name),
                    conflict_resolution,
                )
                rendered[signature] = ((header + dump_yaml(body)).encode(), result)
            except (OverrideError, InterpretError) as err:
                rendered[signature] = err
        done = rendered[signature]
        if isinstance(done, GitopsKarmadaError):
            # reported once per render key below, naming every cluster it fails on
            if ours:
                run.keep.add(path)
            applied[target.name] = (ours, f"cannot render: {done}" if not ours else "")
            continue
        content, result = done
        overrides[target.name] = result  # shared by every cluster with the same render key
        run.files[path] = content
        applied[target.name] = (True, "")
    failures: dict[object, tuple[GitopsKarmadaError, list[str]]] = {}
    for signature, names in sharing.items():
        done = rendered[signature]
        if isinstance(done, GitopsKarmadaError):
            # one report per distinct failure, naming every cluster it stops
            failures.setdefault(_failure_key(done), (done, []))[1].extend(names)
        elif isinstance(done, tuple):
            also = f" (the same on {', '.join(names[1:])})" if len(names) > 1 else ""
            diagnostics.extend(warning(w + also, template.source, subject=subject) for w in done[1].warnings)
    diagnostics.extend(_render_error(run, template, sorted(names), err) for err, names in failures.values())
    binding = build_binding(
        BindingInputs(
            template=template,
            match=match,
            replicas=replicas,
            replica_requirements=requirements,
            components=components,
            clusters=targets,
            scheduled=condition,
            observed_affinity_name=observed,
            rendered=applied,
            scheduled_changed=changed,
            reschedule_triggered_at=run.request.now if key.identity in run.request.reschedule else None,
            template_hash=current_hash,
            hold_previous_spec=lazy_hold,
            required_by=tuple(r.snapshot for r in required),
            attached_conflict_resolution=binding_resolution if attached else None,
            attached_preserve=_attached_preserve(required) if attached else None,
        ),
        prev,
        run.request.now,
    )
    return TemplateOutcome(
        key=key,
        match=match,
        binding=binding,
        schedule=schedule_result,
        scheduling_reason=reason,
        overrides=overrides,
        paths=paths,
        diagnostics=tuple(diagnostics),
        lazy_hold=lazy_hold,
        interpreted_by=_interpreted_by(run, template, components),
    )


@dataclass(frozen=True, slots=True)
class Requirement:
    """A binding that requires a dependency (propagateDeps), with the policy fields that carry over."""

    snapshot: BindingSnapshot
    conflict_resolution: ConflictResolution | None
    preserve: bool | None


def _dependency_requirements(
    run: _Run, templates: list[Manifest], matches: Mapping[Identity, PolicyMatch]
) -> tuple[dict[Identity, list[Identity]], list[Diagnostic]]:
    """Which templates are dependencies of propagateDeps workloads: dependency → its requirers."""
    requirers: dict[Identity, list[Identity]] = {}
    diagnostics: list[Diagnostic] = []
    if not run.gate(FeatureGate.PROPAGATE_DEPS):
        return requirers, diagnostics
    by_identity = {t.key.identity: t for t in templates}
    for template in templates:
        key = template.key
        match = matches[key.identity]
        policy = match.policy
        if policy is None or not policy.spec.propagate_deps:
            continue
        if not run.interpreter.hook_enabled(key.api_version, key.kind, Operation.INTERPRET_DEPENDENCY):
            continue
        try:
            dependencies = run.interpreter.get_dependencies(template.body)
        except InterpretError as err:
            diagnostics.append(
                error(f"cannot read its dependencies: {err}", template.source, subject=str(key))
            )
            continue
        for dependency in dependencies:
            group = group_of(dependency.api_version)
            if dependency.name:
                found = [(group, dependency.kind, dependency.namespace, dependency.name)]
            else:
                selector = dependency.label_selector
                found = [
                    ident
                    for ident, candidate in by_identity.items()
                    if ident[:3] == (group, dependency.kind, dependency.namespace)
                    and selector is not None
                    and labels_match(selector, candidate.labels)
                ]
            for ident in found:
                if ident in by_identity:
                    requirers.setdefault(ident, []).append(key.identity)
                else:
                    missing = f"{dependency.kind}/{dependency.namespace}/{dependency.name}"
                    message = (
                        f"depends on {missing}, which is not in the repository (propagateDeps cannot send it)"
                    )
                    diagnostics.append(warning(message, template.source, subject=str(key)))
    return requirers, diagnostics


def _requirements(
    parents: list[Identity], done: Mapping[Identity, TemplateOutcome]
) -> tuple[Requirement, ...]:
    required = []
    for parent in sorted(set(parents)):
        outcome = done.get(parent)
        binding = outcome.binding if outcome is not None else None
        if binding is None:
            continue
        snapshot = BindingSnapshot(
            namespace=binding.metadata.namespace or "",
            name=binding.metadata.name,
            clusters=binding.spec.clusters,
        )
        required.append(
            Requirement(
                snapshot, binding.spec.conflict_resolution, binding.spec.preserve_resources_on_deletion
            )
        )
    return tuple(required)


def _required_clusters(required: tuple[Requirement, ...]) -> tuple[TargetCluster, ...]:
    return merge_target_clusters((), [r.snapshot for r in required])


def _attached_conflict_resolution(required: tuple[Requirement, ...]) -> ConflictResolution:
    """Overwrite if any requiring binding overwrites, else Abort (``policy_utils.go``)."""
    if any(r.conflict_resolution is ConflictResolution.OVERWRITE for r in required):
        return ConflictResolution.OVERWRITE
    return ConflictResolution.ABORT


def _attached_preserve(required: tuple[Requirement, ...]) -> bool:
    return any(r.preserve for r in required)


def _schedule(
    run: _Run,
    template: Manifest,
    placement: Placement,
    replicas: int,
    requirements: ReplicaRequirements | None,
    components: tuple[Component, ...],
    prev: ResourceBinding | None,
    observed: str,
    reschedule: bool,
) -> ScheduleResult:
    return schedule(
        ScheduleRequest(
            key=template.key,
            tie_break_uid=tie_break_uid(template),
            placement=placement,
            replicas=replicas,
            replica_requirements=requirements,
            components=components,
            previous_clusters=prev.spec.clusters if prev is not None else (),
            observed_affinity_name=observed,
            reschedule=reschedule,
            evicted_clusters=frozenset(
                task.from_cluster for task in (prev.spec.graceful_eviction_tasks if prev else ())
            ),
        ),
        run.cluster_index,
        gates={gate: run.gate(gate) for gate in FeatureGate},
        estimators=(run.accurate.for_namespace(template.key.namespace),) if run.accurate is not None else (),
        enable_empty_workload_propagation=run.config.enable_empty_workload_propagation,
    )


def build_binding_status_override(
    binding: ResourceBinding, condition: Condition, now: str
) -> ResourceBinding:
    """``binding`` with its Scheduled condition replaced (a quota denial that keeps everything else)."""
    kept = [c for c in binding.status.conditions if c.type != condition.type]
    carried = carry_condition(condition, binding, now)
    status = binding.status.model_copy(update={"conditions": (carried, *kept)})
    return binding.model_copy(update={"status": status})


def _quota_outputs(
    run: _Run,
    bindings: tuple[ResourceBinding, ...],
    snapshots: Mapping[str, ClusterSnapshot],
    managed: set[str],
) -> tuple[list[Diagnostic], tuple[FederatedResourceQuota, ...]]:
    """Each FRQ's settled status into the state folder; its static assignments into the cluster folders."""
    diagnostics: list[Diagnostic] = []
    settled: list[FederatedResourceQuota] = []
    config = run.config
    quotas_prefix = f"{config.output.state_dir}/{QUOTAS_FOLDER}/"
    enforcement = config.gate(FeatureGate.FEDERATED_QUOTA_ENFORCEMENT)
    # static-assignment quotas the previous run wrote (their records list them) are ours to rewrite or delete
    owned: set[str] = set()
    for previous in quota_records(run.request.state_files, config.output.state_dir).values():
        owned.update(quota_paths(previous, config.output.clusters_dir))
    managed |= owned
    for frq in run.inputs.quotas:
        status = federated_quota_status(
            frq, bindings, enforcement=enforcement, members=member_quota_statuses(frq, snapshots)
        )
        settled.append(frq.model_copy(update={"status": status}))
        record = settled[-1].to_api()
        record["status"] = status.to_api()
        path = f"{quotas_prefix}{frq.namespace}/{frq.name}.yaml"
        run.files[path] = dump_yaml(record).encode()
        source = run.inputs.sources.get((frq.kind, frq.namespace, frq.name))
        for rendered_path, (cluster, manifest) in quota_paths(frq, config.output.clusters_dir).items():
            if cluster not in run.clusters:
                message = f"staticAssignments names cluster {cluster!r}, which is not in the inventory"
                diagnostics.append(warning(message, source))
                continue
            blocker = blocking_entry(rendered_path, run.request.output_blobs)
            if blocker is not None:
                message = (
                    f"{blocker} is a file or symbolic link gitops-karmada did not write; "
                    f"{rendered_path} was not written"
                )
                diagnostics.append(warning(message, source))
                continue
            if rendered_path in run.request.output_blobs and rendered_path not in owned:
                message = f"{rendered_path} exists and was not written by gitops-karmada; left untouched"
                diagnostics.append(warning(message, source))
                continue
            origin = f"FederatedResourceQuota {frq.namespace}/{frq.name}"
            header = provenance_header(str(source) if source else "?", origin)
            run.files[rendered_path] = (header + dump_yaml(manifest)).encode()
    return diagnostics, tuple(settled)


def _failure_key(err: GitopsKarmadaError) -> object:
    if isinstance(err, OverridePolicyError):
        return (
            err.policy,
            err.rule_index,
            err.overrider,
            err.overrider_index,
            err.path,
            err.sub_path,
            err.detail,
        )
    return str(err)


def _render_error(run: _Run, template: Manifest, clusters: list[str], err: GitopsKarmadaError) -> Diagnostic:
    """A render failure at the document to fix: the failing override policy's rule, else the template."""
    where = ", ".join(repr(name) for name in clusters)
    plural = "s" if len(clusters) > 1 else ""
    subject = str(template.key)
    if isinstance(err, OverridePolicyError):
        policy = err.policy
        source = run.inputs.sources.get((policy.kind.value, policy.namespace, policy.name))
        candidates: list[AnyOverridePolicy] = [
            *run.inputs.override_policies,
            *run.inputs.cluster_override_policies,
        ]
        wanted = (policy.kind.value, policy.namespace, policy.name)
        spec = next((p.spec for p in candidates if (p.kind, p.namespace, p.name) == wanted), None)
        rule = (
            f"spec.overrideRules[{err.rule_index}]." if spec is not None and spec.override_rules else "spec."
        )
        field = f"{rule}overriders.{err.overrider}[{err.overrider_index}]"
        at = f"{err.path}#{err.sub_path}" if err.sub_path else err.path
        message = (
            f"cannot override {subject} (from {template.source}) for cluster{plural} {where}"
            + (f" at {at}" if at else "")
            + f": {err.detail}"
        )
        return error(message, source, field, subject=subject)
    return error(f"cannot render for cluster{plural} {where}: {err}", template.source, subject=subject)


def _interpreted_by(run: _Run, template: Manifest, components: tuple[Component, ...]) -> str:
    operation = Operation.INTERPRET_COMPONENT if components else Operation.INTERPRET_REPLICA
    return run.interpreter.answered_by(template.key.api_version, template.key.kind, operation) or ""


def _origin(match: PolicyMatch) -> str:
    """How a template came to be propagated, for the provenance header."""
    if match.policy is not None:
        policy = match.policy
        return f"{policy.kind} {policy.namespace + '/' if policy.namespace else ''}{policy.name}"
    if match.state is ClaimState.NAMESPACE_SYNC:
        return "namespace sync"
    return "a deleted policy (placement kept)"


def _interpret(
    run: _Run, template: Manifest
) -> tuple[int, ReplicaRequirements | None, tuple[Component, ...]]:
    """Replicas and requirements, or components (multi-template workloads behind their feature gate)."""
    key = template.key
    interpreter = run.interpreter
    if run.gate(FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING) and interpreter.hook_enabled(
        key.api_version, key.kind, Operation.INTERPRET_COMPONENT
    ):
        return 0, None, interpreter.get_components(template.body)
    if interpreter.hook_enabled(key.api_version, key.kind, Operation.INTERPRET_REPLICA):
        replicas, requirements = interpreter.get_replicas(template.body)
        if replicas < 0:
            # the API server would refuse the object; never render a negative count into a manifest
            raise InterpretError(f"replicas must be greater than or equal to 0, got {replicas}")
        if (
            requirements is not None
            and not requirements.namespace
            and run.gate(FeatureGate.RESOURCE_QUOTA_ESTIMATE)
        ):
            # the detector, not the interpreter, records the namespace (applyReplicaInterpretation)
            requirements = requirements.model_copy(update={"namespace": key.namespace})
        return replicas, requirements, ()
    return 0, None, ()


def _render_one(
    run: _Run,
    template: Manifest,
    match: PolicyMatch,
    target: TargetCluster,
    cluster: Cluster,
    revise: bool,
    completions: int | None,
    conflict_resolution: str,
) -> tuple[dict[str, Any], OverrideResult]:
    key = template.key
    body = deep_copy(template.body)
    prune(body)
    if revise and run.interpreter.hook_enabled(key.api_version, key.kind, Operation.REVISE_REPLICA):
        body = run.interpreter.revise_replica(body, target.replicas)
    if completions is not None:
        body["spec"] = {**body["spec"], "completions": completions}
    result = apply_overrides(
        body, cluster, run.inputs.cluster_override_policies, run.inputs.override_policies
    )
    body = annotate_applied_overrides(result.object, result)
    policy = match.policy
    stamp(
        body,
        claim_metadata(
            policy_kind=policy.kind if policy is not None else None,
            policy_namespace=policy.namespace if policy is not None else "",
            policy_name=policy.name if policy is not None else "",
            policy_id=match.permanent_id,
            binding_name=binding_name(key),
            binding_namespace=key.namespace,
            binding_id=binding_permanent_id(template),
            conflict_resolution=ConflictResolution.OVERWRITE
            if conflict_resolution == "overwrite"
            else ConflictResolution.ABORT,
        ),
    )
    return body, result


def _job_completions(template: Manifest, targets: tuple[TargetCluster, ...]) -> dict[str, int]:
    """A Divided Job's completions split over its clusters in proportion to their replicas (Webster)."""
    key = template.key
    spec = template.body.get("spec")
    if key.kind != "Job" or group_of(key.api_version) != "batch" or not isinstance(spec, Mapping):
        return {}
    total = spec.get("completions")
    if not isinstance(total, int) or isinstance(total, bool):
        return {}
    return {t.name: t.replicas for t in divide_job_completions(total, targets, tie_break_uid(template))}


def _override_signatures(inputs: Inputs) -> dict[str, OverrideSignature]:
    policies: tuple[AnyOverridePolicy, ...] = (*inputs.cluster_override_policies, *inputs.override_policies)
    return {
        cluster.name: frozenset(
            (policy.kind, policy.namespace, policy.name, index)
            for policy in policies
            for index, rule in enumerate(policy.spec.effective_rules())
            if rule.target_cluster is not None and cluster_matches(cluster, rule.target_cluster)
        )
        for cluster in inputs.clusters
    }
