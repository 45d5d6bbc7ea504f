"""Prepare: everything later steps read, made once and read-only: the inputs loaded and folded with what the
clusters report, the run's context, the policies indexed, the previous state, and what Karmada's failover
controllers change in it before anything is scheduled."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.serialize import load_yaml_documents
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.detector import PolicyIndex
from gitops_karmada.core.failover.controllers import FailoverSettings, parse_queue, run_failover
from gitops_karmada.core.failover.taints import apply_taint_policies, parse_policy_taints
from gitops_karmada.core.failover.what_if import scenario_taints
from gitops_karmada.core.incremental.fingerprint import FingerprintContext
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.core.layout import config_path
from gitops_karmada.core.observed.fold import with_observed_clusters
from gitops_karmada.core.run_memo import RunMemo
from gitops_karmada.core.scheduler.snapshot import load_cluster_snapshots
from gitops_karmada.core.selectors import ZoneMatching
from gitops_karmada.core.shards import shard_plan
from gitops_karmada.model.base import TaintEffect
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import SourceRef, error, warning
from gitops_karmada.reconcile.context import RunContext
from gitops_karmada.reconcile.previous import PreviousRun

if TYPE_CHECKING:
    from gitops_karmada.core.failover.controllers import FailoverOutcome
    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.base import Taint
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.request import ReconcileRequest

Identity = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class Prepared:
    """The run's read-only ground: nothing after this step reads the request's data again but through it."""

    ctx: RunContext
    previous: PreviousRun
    """The previous state, the failover controllers' changes overlaid."""
    policies: PolicyIndex
    override_names: frozenset[tuple[str, str]]
    """(namespace, name) of every (Cluster)OverridePolicy: ``dependentOverrides`` wait on names."""
    templates: tuple[Manifest, ...]
    """Every template, by identity."""
    had: frozenset[Identity]
    """Every template the previous run had a binding for."""
    failover: FailoverOutcome | None
    """What the failover controllers did (feature gate Failover); None with the gate off."""
    policy_taints: Mapping[str, tuple[Taint, ...]]
    """The taints ClusterTaintPolicies keep on each cluster (recorded in the state folder)."""
    snapshots: Mapping[str, ClusterSnapshot]
    fingerprints: FingerprintContext
    memo: RunMemo
    diagnostics: tuple[Diagnostic, ...]

    @property
    def current(self) -> frozenset[Identity]:
        return frozenset(t.key.identity for t in self.templates)


@dataclass(frozen=True, slots=True)
class Refused:
    """The input has errors: nothing may be written (``assemble.refused``)."""

    previous: PreviousRun
    diagnostics: tuple[Diagnostic, ...]


def prepare(request: ReconcileRequest) -> Prepared | Refused:
    snapshot, caches = request.snapshot, request.caches
    if any(d.is_error for d in snapshot.config_diagnostics):
        # which files are inputs, and how they read, depend on the configuration: with it broken (a
        # misspelt ``exclude:`` lets Flux wiring in), every input error would be a guess
        note = warning(
            f"the inputs were not checked: which files are inputs, and how they are read, depend on "
            f"{config_path(snapshot.config.fleet_root)}; fix it first"
        )
        return Refused(PreviousRun.open(request), (*snapshot.config_diagnostics, note))
    memo = RunMemo() if caches.memo is None else caches.memo
    memo.begin_run()
    loaded = load(
        snapshot.input_files, snapshot.config, snapshot.decoded, snapshot.generated, caches.classified, memo
    )
    request.ports.checkpoint()
    previous = PreviousRun.open(request)
    snapshots = load_cluster_snapshots(snapshot.snapshot_files, root=previous.layout.snapshots_dir)
    diagnostics = [*snapshot.config_diagnostics, *loaded.diagnostics, *snapshots.diagnostics]
    if any(d.is_error for d in diagnostics):
        return Refused(previous, tuple(diagnostics))
    diagnostics.extend(output_shard_problems(snapshot.config, loaded.inputs))
    if any(d.is_error for d in diagnostics):
        return Refused(previous, tuple(diagnostics))
    inputs, observed_diagnostics, policy_taints = _inventory(request, loaded.inputs, previous)
    diagnostics.extend(observed_diagnostics)
    ctx = RunContext.build(
        inputs,
        now=snapshot.now,
        snapshots=snapshots.snapshots,
        output_blobs=snapshot.output_blobs,
        shallow_outputs=snapshot.shallow_outputs,
        read_output=request.ports.read_output,
        reschedule=request.mode.reschedule,
        explain=request.mode.explain,
        native_schemas=snapshot.native_schemas,
        observed=snapshot.observed,
        commit=snapshot.commit,
        read_output_at=request.ports.read_output_at,
        hash_blob=request.ports.hash_blob,
        rollout_signals=snapshot.rollout_signals,
    )
    policies = memo.recall(
        "policy_index",
        (*inputs.propagation_policies, *inputs.cluster_propagation_policies),
        len(inputs.propagation_policies),
        lambda: PolicyIndex.build(
            inputs.propagation_policies, inputs.cluster_propagation_policies, caches.memo
        ),
    )
    had = frozenset(previous.identities())
    failover = _fail_over(request, ctx, previous, had)
    return Prepared(
        ctx=ctx,
        previous=previous.with_overlay(failover.bindings) if failover is not None else previous,
        policies=policies,
        override_names=frozenset(
            {(p.namespace, p.name) for p in inputs.override_policies}
            | {("", p.name) for p in inputs.cluster_override_policies}
        ),
        templates=tuple(sorted(inputs.templates, key=lambda t: t.key.identity)),
        had=had,
        failover=failover,
        policy_taints=policy_taints,
        snapshots=snapshots.snapshots,
        fingerprints=FingerprintContext(
            inputs, snapshot.snapshot_files, snapshot.observed, memo, inventory=loaded.inputs.clusters
        ),
        memo=memo,
        diagnostics=tuple(diagnostics),
    )


def output_shard_problems(config: ToolConfig, inputs: Inputs) -> tuple[Diagnostic, ...]:
    """The clusters ``output.groups`` does not give exactly one group (``repo-per-group``), as errors at the
    configuration file: the run would not know where to write their folders."""
    plan = shard_plan(config.output, inputs.clusters)
    return tuple(
        error(p, SourceRef(config_path(config.fleet_root), 0), field="output.groups") for p in plan.problems
    )


def _inventory(
    request: ReconcileRequest, inputs: Inputs, previous: PreviousRun
) -> tuple[Inputs, tuple[Diagnostic, ...], Mapping[str, tuple[Taint, ...]]]:
    """The inventory as the scheduler sees it: what the clusters report folded in, a ``simulate`` scenario's
    taints, and the ClusterTaintPolicies' taints (with those the state folder recorded)."""
    snapshot = request.snapshot
    diagnostics: tuple[Diagnostic, ...] = ()
    if snapshot.observed is not None:
        inputs, observed = with_observed_clusters(inputs, snapshot.observed, snapshot.now)
        diagnostics = tuple(observed)
    if request.mode.what_if is not None:
        inputs = scenario_taints(inputs, request.mode.what_if)
    recorded = snapshot.state_files.get(previous.layout.cluster_taints_path)
    policy_taints = parse_policy_taints(first_document(recorded))
    if inputs.taint_policies or policy_taints:
        clusters, policy_taints = apply_taint_policies(
            inputs.clusters,
            inputs.taint_policies,
            policy_taints,
            parse_time(snapshot.now),
            ZoneMatching.of(inputs.config.karmada_version),
        )
        inputs = replace(inputs, clusters=clusters)
    return inputs, diagnostics, policy_taints


def first_document(raw: bytes | None) -> Mapping[str, object] | None:
    if not raw:
        return None
    documents = [d.body for d in load_yaml_documents(raw) if isinstance(d.body, Mapping)]
    return documents[0] if documents else None


def _fail_over(
    request: ReconcileRequest, ctx: RunContext, previous: PreviousRun, had: frozenset[Identity]
) -> FailoverOutcome | None:
    """Karmada's failover controllers over the previous bindings (feature gate Failover): the bindings they
    change stand in for their records from here on; None when the gate is off."""
    if not ctx.gate(FeatureGate.FAILOVER):
        return None
    config = ctx.config.failover
    raw_queue = request.snapshot.state_files.get(previous.layout.eviction_queue_path)
    return run_failover(
        previous.bindings(_failover_candidates(ctx, previous, had)),
        ctx.clusters,
        request.snapshot.observed,
        ctx.interpreter,
        parse_queue(first_document(raw_queue)),
        FailoverSettings(
            now=parse_time(request.snapshot.now),
            config=config,
            taint_eviction=config.enable_taint_manager and config.enable_no_execute_taint_eviction,
            application=True,
            graceful_eviction_gate=ctx.gate(FeatureGate.GRACEFUL_EVICTION),
            injection_gate=ctx.gate(FeatureGate.STATEFUL_FAILOVER_INJECTION),
        ),
    )


def _failover_candidates(ctx: RunContext, previous: PreviousRun, had: frozenset[Identity]) -> list[Identity]:
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
