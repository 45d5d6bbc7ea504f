"""The repository's own configuration (``gitops-karmada.yaml`` at the root): feature gates and layout.

Feature gates default to the defaults of the Karmada version the repository follows (``karmadaVersion``,
``pkg/features/features.go`` of that release); a repository turns on the alpha ones it wants, as an operator
would with ``--feature-gates``.
"""

from __future__ import annotations

import enum
from typing import Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from gitops_karmada.model.base import ApiModel, LabelSelector
from gitops_karmada.model.guardrails import RemovalCause
from gitops_karmada.model.versions import NEWEST_VERSION, KarmadaVersion
from gitops_karmada.model.wellknown import (
    DEFAULT_CLUSTERS_DIR,
    DEFAULT_SHARD_BRANCH,
    DEFAULT_SNAPSHOTS_DIR,
    DEFAULT_STATE_DIR,
)


class FeatureGate(enum.StrEnum):
    PROPAGATE_DEPS = "PropagateDeps"
    POLICY_PREEMPTION = "PolicyPreemption"
    MULTIPLE_POD_TEMPLATES_SCHEDULING = "MultiplePodTemplatesScheduling"
    CUSTOMIZED_CLUSTER_RESOURCE_MODELING = "CustomizedClusterResourceModeling"
    RESOURCE_QUOTA_ESTIMATE = "ResourceQuotaEstimate"
    FEDERATED_QUOTA_ENFORCEMENT = "FederatedQuotaEnforcement"
    STATEFUL_FAILOVER_INJECTION = "StatefulFailoverInjection"
    FAILOVER = "Failover"
    GRACEFUL_EVICTION = "GracefulEviction"
    SCHEDULING_OVERCOMMIT_PROTECTION = "SchedulingOvercommitProtection"
    WORKLOAD_AFFINITY = "WorkloadAffinity"
    PRIORITY_BASED_SCHEDULING = "PriorityBasedScheduling"


GATES_SINCE: dict[FeatureGate, KarmadaVersion] = {
    FeatureGate.WORKLOAD_AFFINITY: KarmadaVersion.V1_17,
    FeatureGate.SCHEDULING_OVERCOMMIT_PROTECTION: KarmadaVersion.V1_18,
}
"""Gates that a Karmada version before the one named does not have (its binaries refuse the name)."""

KARMADA_DEFAULT_GATES: dict[FeatureGate, bool] = {
    FeatureGate.PROPAGATE_DEPS: True,
    FeatureGate.POLICY_PREEMPTION: False,
    FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING: False,
    FeatureGate.CUSTOMIZED_CLUSTER_RESOURCE_MODELING: True,
    FeatureGate.RESOURCE_QUOTA_ESTIMATE: False,
    FeatureGate.FEDERATED_QUOTA_ENFORCEMENT: False,
    FeatureGate.STATEFUL_FAILOVER_INJECTION: False,
    FeatureGate.FAILOVER: False,
    FeatureGate.GRACEFUL_EVICTION: True,
    FeatureGate.SCHEDULING_OVERCOMMIT_PROTECTION: False,
    FeatureGate.WORKLOAD_AFFINITY: False,
    FeatureGate.PRIORITY_BASED_SCHEDULING: True,
}
"""The defaults of the newest version followed (v1.19: PriorityBasedScheduling beta and on)."""


def default_gates(version: KarmadaVersion) -> dict[FeatureGate, bool]:
    """``DefaultFeatureGates`` of ``version`` (spec §0.2): PriorityBasedScheduling is alpha and off before
    v1.19; a gate the version does not have is off."""
    gates = dict(KARMADA_DEFAULT_GATES)
    gates[FeatureGate.PRIORITY_BASED_SCHEDULING] = version.at_least(KarmadaVersion.V1_19)
    for gate, since in GATES_SINCE.items():
        if not version.at_least(since):
            gates[gate] = False
    return gates


DEFAULT_GUARDRAILS = ("cluster-emptied", "namespace-removed")
"""What no write path commits without ``--allow``: a cluster folder emptied, a Namespace removed from one."""


class RemovalRules(ApiModel):
    allow: tuple[RemovalCause, ...] = ()
    """Causes of removal that pass without ``--allow`` in this repository: of those a change does not say
    itself (template-edited, cluster-changed, crd-in-use, dependency-dropped, config-changed, unexplained).
    The deliberate ones (a template, policy or cluster deleted, a policy edited, a failover eviction) always
    pass, named."""


class OutputMode(enum.StrEnum):
    """Where the rendered manifests are committed (docs/scaling.md)."""

    TREE = "tree"
    """Every cluster's folder on the source branch (``clustersDir/<cluster>/``)."""
    BRANCH_PER_CLUSTER = "branch-per-cluster"
    """Each cluster's files alone on a branch of their own; records and state stay on the source branch."""
    REPO_PER_GROUP = "repo-per-group"
    """Each group of clusters on a branch of its own repository (a remote); the records and state stay."""


_BRANCH_NAME = r"^[A-Za-z0-9][A-Za-z0-9._/-]*$"
_FOLDER = r"^([A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*)?$"


class OutputGroup(ApiModel):
    """One group of clusters in ``repo-per-group`` mode: its clusters, named or selected by their labels,
    go to ``branch`` of ``remote``, each in ``<folder>/<cluster>/``."""

    name: str = Field(pattern=r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$", max_length=63)
    remote: str = Field(min_length=1)
    """A remote of the source repository (``git remote``) or a URL (a path to a bare repository too)."""
    branch: str = Field(default="main", pattern=_BRANCH_NAME)
    clusters: tuple[str, ...] = ()
    """Clusters by name."""
    cluster_selector: LabelSelector | None = None
    """Clusters by their labels (in addition to ``clusters``)."""
    folder: str = Field(default="", pattern=_FOLDER)
    """Where the cluster folders go on the group's branch (``""``: at its root)."""


class HostLimitsConfig(ApiModel):
    """What a Git host handles well: GitHub recommends at most 3,000 entries per folder and shows no file
    over 1 MB; a run warns of each folder or rendered file past these (0: never)."""

    max_folder_entries: int = Field(default=3000, ge=0)
    max_file_bytes: int = Field(default=1_000_000, ge=0)
    """1 MB = 1,000,000 bytes."""


class OutputLayout(ApiModel):
    mode: OutputMode = OutputMode.TREE
    branch: str = Field(default=DEFAULT_SHARD_BRANCH, pattern=r"^[A-Za-z0-9{][A-Za-z0-9._/{}-]*$")
    """``branch-per-cluster``: each cluster's branch (``{cluster}`` is its name; it must appear)."""
    folder: str = Field(default="", pattern=_FOLDER)
    """``branch-per-cluster``: where the cluster's files go on its branch (``""``: at the root)."""
    groups: tuple[OutputGroup, ...] = ()
    """``repo-per-group``: the groups, each with its remote and branch."""
    clusters_dir: str = DEFAULT_CLUSTERS_DIR
    state_dir: str = DEFAULT_STATE_DIR
    snapshots_dir: str = DEFAULT_SNAPSHOTS_DIR
    """Per-cluster node/pod/ResourceQuota snapshots for the accurate estimator (input, not templates)."""
    buckets: Literal[0, 16, 256, 4096] = 0
    """Bucket folders inside each kind folder (``<namespace>/<kind>.<group>/<bucket>/<name>.yaml``, the
    bucket the first 1, 2 or 3 hex digits of the SHA-256 of the name), for kind folders too large for a Git
    host; 0: none. Changing it moves every file, in the next reconcile's commit (a move, not a removal)."""
    host_limits: HostLimitsConfig = Field(default_factory=lambda: HostLimitsConfig())
    """When a run warns that a folder or a rendered file is too large for a Git host."""

    @model_validator(mode="after")
    def _shards_named(self) -> OutputLayout:
        if self.branch.count("{cluster}") != 1 or self.branch.replace("{cluster}", "x").count("{"):
            raise ValueError(f"branch {self.branch!r} must name each cluster's branch with {{cluster}} once")
        if self.mode is OutputMode.REPO_PER_GROUP and not self.groups:
            raise ValueError("mode repo-per-group needs at least one group under groups")
        names = [g.name for g in self.groups]
        if len(set(names)) != len(names):
            raise ValueError("groups: each group needs a name of its own")
        targets: dict[tuple[str, str], str] = {}
        for group in self.groups:  # two groups on one branch: each push would replace the other's files
            other = targets.setdefault((group.remote, group.branch), group.name)
            if other != group.name:
                raise ValueError(
                    f"groups {other} and {group.name} both write branch {group.branch} of {group.remote}: "
                    "each group needs a branch of its own"
                )
        return self

    @field_validator("clusters_dir", "state_dir", "snapshots_dir")
    @classmethod
    def _plain_folder(cls, value: str) -> str:
        parts = value.split("/")
        if (
            not value
            or value.startswith("/")
            or any(p in ("", ".", "..") or p.startswith(".") for p in parts)
        ):
            raise ValueError(f"{value!r} must be a relative folder path without '.', '..' or dot-folders")
        return value


class ClusterScopedKind(ApiModel):
    group: str = ""
    kind: str = Field(min_length=1)


class LuaConfig(ApiModel):
    """Wall-clock bounds for interpreter scripts (instructions and memory are bounded inside the runtime)."""

    call_timeout_seconds: float = Field(default=1.0, gt=0, le=60)
    """One script call; Karmada's Lua VM stops a call after one second."""
    run_timeout_seconds: float = Field(default=60.0, gt=0, le=3600)
    """All the calls of one interpreter (one run); later calls fail at once with a time limit."""


class UnknownKinds(enum.StrEnum):
    """What a template of a kind no schema knows (no native kind, no CRD in the repository) gets."""

    WARN = "Warn"
    IGNORE = "Ignore"
    ERROR = "Error"


class SchemaCheckConfig(ApiModel):
    """Checks of every rendered manifest against Kubernetes' schema of its cluster (and CRDs in the repo)."""

    enabled: bool = True
    kubernetes_version: str = Field(default="", pattern=r"^(v?\d+\.\d+(\.\d+)?)?$")
    """For clusters that report no ``status.kubernetesVersion`` ("": the newest schemas available)."""
    strict: bool = True
    """Unknown fields are errors, as with ``kubectl apply --validate=strict``."""
    unknown_kinds: UnknownKinds = UnknownKinds.WARN


class HelmChartConfig(ApiModel):
    """How ``helm template`` renders one chart folder of the repository."""

    path: str = Field(min_length=1)
    """The chart's folder (holding its Chart.yaml), from the repository root."""
    release_name: str = ""
    """Default: the folder's name."""
    namespace: str = ""
    values_files: tuple[str, ...] = ()
    """Values files, relative to the repository root, in the order helm applies them."""


class FailoverConfig(ApiModel):
    """Karmada's controller-manager flags for failover, under their own names, with Karmada's defaults."""

    enable_taint_manager: bool = True
    """``--enable-taint-manager``: the NoExecute taint manager runs (with the Failover gate)."""
    enable_no_execute_taint_eviction: bool = False
    """``--enable-no-execute-taint-eviction``: the taint manager evicts (off: it only watches)."""
    no_execute_taint_eviction_purge_mode: str = "Gracefully"
    """``--no-execute-taint-eviction-purge-mode``: Directly, or anything else for Gracefully."""
    cluster_monitor_grace_period_seconds: float = Field(default=40, gt=0)
    """``--cluster-monitor-grace-period``: a heartbeat older than this makes a cluster Ready=Unknown."""
    cluster_startup_grace_period_seconds: float = Field(default=60, gt=0)
    """``--cluster-startup-grace-period``: the same for a cluster that never reported Ready."""
    graceful_eviction_timeout_seconds: float = Field(default=600, gt=0)
    """``--graceful-eviction-timeout``: how long a Gracefully task keeps the old cluster's files."""
    resource_eviction_rate: float = Field(default=0.5, ge=0)
    """``--resource-eviction-rate``: evictions per second (0: one per 1,800 s)."""
    default_not_ready_toleration_seconds: int = Field(default=300, ge=0)
    """karmada-webhook's ``--default-not-ready-toleration-seconds``: every policy tolerates the not-ready
    NoExecute taint this long unless it says otherwise."""
    default_unreachable_toleration_seconds: int = Field(default=300, ge=0)
    """karmada-webhook's ``--default-unreachable-toleration-seconds``, for the unreachable taint."""


class StatusConfig(ApiModel):
    """Where member clusters' status snapshots are kept."""

    branch: str = Field(default="gitops-karmada-status", pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")
    """The branch ``collect`` writes and reconcile reads; apart from the fleet branch so that status
    churn never floods its log."""
    use_resource_summary: bool = False
    """Schedule with the resource summary the clusters reported instead of the inventory's. Off by
    default: allocations change with every pod, and each change would redo every binding's scheduling
    (Karmada does the same work in memory, but here each run's output is a commit)."""


class ToolConfig(ApiModel):
    api_version: Literal["gitops-karmada.io/v1alpha1"] = "gitops-karmada.io/v1alpha1"
    kind: Literal["Config"] = "Config"
    karmada_version: KarmadaVersion = NEWEST_VERSION
    """The Karmada release whose behaviour the run follows (its gate defaults, admission rules and
    behaviour changes; docs/compatibility.md's version column)."""
    feature_gates: dict[FeatureGate, bool] = Field(default_factory=dict)
    output: OutputLayout = Field(default_factory=OutputLayout)
    exclude: tuple[str, ...] = ()
    """Extra glob patterns (POSIX paths from the fleet's folder) that are never read as input."""
    cluster_scoped_kinds: tuple[ClusterScopedKind, ...] = ()
    """Cluster-scoped custom kinds, in addition to the built-in list and CRDs found in the repository."""
    skipped_propagating_namespaces: tuple[str, ...] = (r"kube-.*",)
    """Regular expressions of namespaces whose templates are never propagated (Karmada's flag)."""
    enable_empty_workload_propagation: bool = False
    guardrails: tuple[str, ...] = DEFAULT_GUARDRAILS
    """Conditions that stop reconcile, rollback and reschedule from committing (the --fail-on vocabulary)."""
    removals: RemovalRules = Field(default_factory=lambda: RemovalRules())
    """Which causes may remove files from cluster folders without ``--allow`` (``core.diff.removals``)."""
    lua: LuaConfig = Field(default_factory=LuaConfig)
    schema_check: SchemaCheckConfig = Field(default_factory=SchemaCheckConfig)
    helm_charts: tuple[HelmChartConfig, ...] = ()
    failover: FailoverConfig = Field(default_factory=FailoverConfig)
    status: StatusConfig = Field(default_factory=StatusConfig)

    _fleet_root: str = PrivateAttr(default="")

    @field_validator("karmada_version", mode="before")
    @classmethod
    def _version(cls, value: object) -> object:
        return KarmadaVersion.parse(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _gates_of_the_version(self) -> ToolConfig:
        for gate in self.feature_gates:
            since = GATES_SINCE.get(gate)
            if since is not None and not self.karmada_version.at_least(since):
                raise ValueError(
                    f"featureGates: {gate.value} does not exist in Karmada {self.karmada_version.value} "
                    f"(added in {since.value})"
                )
        return self

    def gate(self, gate: FeatureGate) -> bool:
        return self.feature_gates.get(gate, default_gates(self.karmada_version)[gate])

    @property
    def fleet_root(self) -> str:
        """The fleet's folder in the repository (``""``: the repository's root; a subfolder in a monorepo)."""
        return self._fleet_root

    def rooted(self, root: str) -> ToolConfig:
        """This configuration for a fleet kept in ``root``: its folders and exclusions, which it writes
        relative to the fleet, as repository paths (every reader of ``output`` and ``exclude`` then holds
        for a fleet in a subfolder too)."""
        if not root:
            return self
        output = self.output.model_copy(
            update={
                "clusters_dir": f"{root}/{self.output.clusters_dir}",
                "state_dir": f"{root}/{self.output.state_dir}",
                "snapshots_dir": f"{root}/{self.output.snapshots_dir}",
            }
        )
        rooted = self.model_copy(
            update={"output": output, "exclude": tuple(f"{root}/{p}" for p in self.exclude)}
        )
        rooted._fleet_root = root
        return rooted
