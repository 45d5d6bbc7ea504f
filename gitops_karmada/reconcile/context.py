"""The read-only context every phase of one run shares: inputs, inventory, interpreter, estimators, clock."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.interpreter import LuaLimits, ResourceInterpreter
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.scheduler import AccurateEstimator, ClusterIndex
from gitops_karmada.core.schema_check import NativeSchemas, SchemaChecker, schema_checker
from gitops_karmada.core.selectors import ZoneMatching, cluster_matches
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.reconcile.request import blob_sha

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.core.rollout.gates import Signals
    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.overrides import AnyOverridePolicy

Identity = tuple[str, str, str, str]
OverrideSignature = frozenset[tuple[str, str, str, int]]
"""The override rules (policy kind, namespace, name, rule index) that target one cluster."""


@dataclass(frozen=True, kw_only=True)
class RunContext:
    inputs: Inputs
    now: str
    """RFC 3339 time of the source commit: the only clock the core knows."""
    output_blobs: Mapping[str, str] = field(default_factory=dict)
    """Files of the clusters folder now: path → blob id (to find hand-written files)."""
    read_output: Callable[[str], bytes | None] | None = None
    reschedule: frozenset[Identity] = frozenset()
    explain: bool = False
    """The run is explained (``RunMode.explain``): the scheduler is also evaluated where Karmada
    keeps the previous result, and each outcome keeps its overridden objects (``OverrideResult.object``)."""
    interpreter: ResourceInterpreter
    clusters: Mapping[str, Cluster]
    cluster_index: ClusterIndex
    override_signatures: Mapping[str, OverrideSignature]
    """Per cluster, the override rules that target it: clusters with equal signatures render alike."""
    known_shallow_outputs: frozenset[str] | None = None
    """``shallow_outputs`` as an adapter listed them (None: found by iterating ``output_blobs``)."""
    accurate: AccurateEstimator | None = None
    """The accurate estimator, when the repository carries cluster snapshots."""
    schema_check: SchemaChecker | None = None
    """Checks every rendered manifest (None when the configuration turns the check off)."""
    observed: ObservedStatus | None = None
    """What member clusters reported (the status branch), when a run reads it."""
    commit: str = ""
    """The source commit read (empty when the run reads no commit): where a rollout's files come from."""
    read_output_at: Callable[[str, str], bytes | None] | None = None
    """Reads a file of another commit (commit, path): the files a rollout rolls back to."""
    hash_blob: Callable[[bytes], str] = blob_sha
    rollout_signals: Signals | None = None
    """Approvals and commit statuses of the rollouts in flight (``core.rollout.gates.Signals``)."""

    @classmethod
    def build(
        cls,
        inputs: Inputs,
        *,
        now: str,
        snapshots: Mapping[str, ClusterSnapshot],
        output_blobs: Mapping[str, str],
        shallow_outputs: frozenset[str] | None = None,
        read_output: Callable[[str], bytes | None] | None,
        reschedule: frozenset[Identity],
        explain: bool,
        native_schemas: NativeSchemas | None = None,
        observed: ObservedStatus | None = None,
        commit: str = "",
        read_output_at: Callable[[str, str], bytes | None] | None = None,
        hash_blob: Callable[[bytes], str] = blob_sha,
        rollout_signals: Signals | None = None,
    ) -> RunContext:
        quota_estimate = inputs.config.gate(FeatureGate.RESOURCE_QUOTA_ESTIMATE)
        schema_check = schema_checker(inputs.config.schema_check, inputs.templates, native_schemas)
        return cls(
            inputs=inputs,
            now=now,
            output_blobs=output_blobs,
            known_shallow_outputs=shallow_outputs,
            read_output=read_output,
            reschedule=reschedule,
            explain=explain,
            interpreter=ResourceInterpreter(
                inputs.customizations,
                resource_quota_estimate=quota_estimate,
                limits=LuaLimits(
                    call_seconds=inputs.config.lua.call_timeout_seconds,
                    run_seconds=inputs.config.lua.run_timeout_seconds,
                ),
                karmada_version=inputs.config.karmada_version,
            ),
            clusters={cluster.name: cluster for cluster in inputs.clusters},
            cluster_index=ClusterIndex(inputs.clusters),
            override_signatures=override_signatures(inputs),
            schema_check=schema_check,
            observed=observed,
            commit=commit,
            read_output_at=read_output_at,
            hash_blob=hash_blob,
            rollout_signals=rollout_signals,
            accurate=AccurateEstimator.from_snapshots(snapshots, resource_quota_estimate=quota_estimate)
            if snapshots
            else None,
        )

    @property
    def config(self) -> ToolConfig:
        return self.inputs.config

    def gate(self, gate: FeatureGate) -> bool:
        return self.config.gate(gate)

    @functools.cached_property
    def shallow_outputs(self) -> frozenset[str]:
        """Files of the cluster folders that sit where a manifest path has a folder (a symlink or file in
        place of ``clusters/member4``): the only ones that can block a write. Almost always none."""
        if self.known_shallow_outputs is not None:
            return self.known_shallow_outputs
        depth = self.layout.manifest_depth
        return frozenset(p for p in self.output_blobs if p.count("/") < depth)

    @functools.cached_property
    def layout(self) -> RepoLayout:
        return RepoLayout.of(self.config)

    @property
    def clusters_dir(self) -> str:
        return self.config.output.clusters_dir


def override_signatures(inputs: Inputs) -> dict[str, OverrideSignature]:
    policies: tuple[AnyOverridePolicy, ...] = (*inputs.cluster_override_policies, *inputs.override_policies)
    zones = ZoneMatching.of(inputs.config.karmada_version)
    return {
        cluster.name: frozenset(
            (policy.kind, policy.namespace, policy.name, index)
            for policy in policies
            for index, rule in enumerate(policy.spec.effective_rules())
            if rule.target_cluster is not None and cluster_matches(cluster, rule.target_cluster, zones)
        )
        for cluster in inputs.clusters
    }


def tie_break_uid(template: Manifest) -> str:
    """The template's UID, or a stable stand-in: Karmada breaks Webster ties by FNV-1a of the UID."""
    key = template.key
    return template.uid or f"{key.api_version}/{key.kind}/{key.namespace}/{key.name}"
