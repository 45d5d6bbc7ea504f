"""PropagationPolicy and ClusterPropagationPolicy (``policy.karmada.io/v1alpha1``), with Placement.

Field names and enums follow ``pkg/apis/policy/v1alpha1/propagation_types.go``. Validation mirrors
Karmada's validating webhook where it rejects input; defaulting (the mutating webhook) lives in
``core/defaults.py`` so that parsing stays a faithful image of what the user wrote.
"""

from __future__ import annotations

import enum
from typing import Literal

from pydantic import Field, field_validator, model_validator

from gitops_karmada.model.base import ApiModel, LabelSelector, ObjectMeta, Toleration, qualified_name_problem


class ResourceSelector(ApiModel):
    api_version: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    namespace: str = ""
    name: str = ""
    label_selector: LabelSelector | None = None


class FieldSelectorRequirement(ApiModel):
    key: str
    operator: str
    values: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _webhook_rules(self) -> FieldSelectorRequirement:
        # pkg/util/validation: only provider/region/zone, only In/NotIn
        if self.key not in ("provider", "region", "zone"):
            raise ValueError(f"unsupported key {self.key!r}: must be one of provider, region, zone")
        if self.operator not in ("In", "NotIn"):
            raise ValueError(f"unsupported operator {self.operator!r}: must be In or NotIn")
        if not self.values:
            raise ValueError(f"values must be non-empty for operator {self.operator}")
        return self


class FieldSelector(ApiModel):
    match_expressions: tuple[FieldSelectorRequirement, ...] = ()


class ClusterAffinity(ApiModel):
    label_selector: LabelSelector | None = None
    field_selector: FieldSelector | None = None
    cluster_names: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


class OverflowClusterAffinity(ClusterAffinity):
    """One overflow tier of a clusterAffinities term (v1.18): a name and an inline ClusterAffinity."""

    affinity_name: str = Field(min_length=1, max_length=32)


class ClusterAffinityTerm(ClusterAffinity):
    """A clusterAffinities term: its inline ClusterAffinity is the primary tier (tier 0), each of
    ``overflowAffinities`` the next tier (v1.18; ``core.inputs.webhook`` checks them)."""

    affinity_name: str = Field(min_length=1, max_length=32)
    overflow_affinities: tuple[OverflowClusterAffinity, ...] | None = None


class SpreadFieldValue(enum.StrEnum):
    CLUSTER = "cluster"
    REGION = "region"
    ZONE = "zone"
    PROVIDER = "provider"


class SpreadConstraint(ApiModel):
    spread_by_field: SpreadFieldValue | None = None
    spread_by_label: str = ""
    max_groups: int = Field(default=0, ge=0)
    min_groups: int = Field(default=0, ge=0)

    def effective_field(self) -> SpreadFieldValue | None:
        """The field after Karmada's defaulting: an empty constraint spreads by ``cluster``."""
        if self.spread_by_field is None and not self.spread_by_label:
            return SpreadFieldValue.CLUSTER
        return self.spread_by_field

    @model_validator(mode="after")
    def _webhook_rules(self) -> SpreadConstraint:
        if self.spread_by_field is not None and self.spread_by_label:
            raise ValueError("spreadByLabel should not co-exist with spreadByField")
        if self.max_groups > 0 and self.max_groups < self.min_groups:
            raise ValueError("maxGroups lower than minGroups is not allowed")
        return self


class ReplicaSchedulingType(enum.StrEnum):
    DUPLICATED = "Duplicated"
    DIVIDED = "Divided"


class ReplicaDivisionPreference(enum.StrEnum):
    AGGREGATED = "Aggregated"
    WEIGHTED = "Weighted"


class DynamicWeightFactor(enum.StrEnum):
    AVAILABLE_REPLICAS = "AvailableReplicas"


class StaticClusterWeight(ApiModel):
    target_cluster: ClusterAffinity
    weight: int = Field(ge=1)


class ClusterPreferences(ApiModel):
    static_weight_list: tuple[StaticClusterWeight, ...] = ()
    dynamic_weight: DynamicWeightFactor | None = None


class ReplicaSchedulingStrategy(ApiModel):
    replica_scheduling_type: ReplicaSchedulingType = ReplicaSchedulingType.DIVIDED
    replica_division_preference: ReplicaDivisionPreference | None = None
    weight_preference: ClusterPreferences | None = None


class WorkloadAffinityTerm(ApiModel):
    """Co-locate with the group: the templates whose label ``groupByLabelKey`` has this template's value."""

    group_by_label_key: str


class WorkloadAntiAffinityTerm(ApiModel):
    """Keep away from the group: no cluster of another template with this label value."""

    group_by_label_key: str


class WorkloadAffinity(ApiModel):
    """``placement.workloadAffinity`` (v1.17, gate WorkloadAffinity): hard affinity and anti-affinity between
    workloads grouped by a label of their templates. The label keys are checked by ``core.inputs.webhook``
    (``ValidateWorkloadAffinity``), the groups made by ``core.scheduler.workload_affinity``."""

    affinity: WorkloadAffinityTerm | None = None
    anti_affinity: WorkloadAntiAffinityTerm | None = None


class Placement(ApiModel):
    cluster_affinity: ClusterAffinity | None = None
    cluster_affinities: tuple[ClusterAffinityTerm, ...] = ()
    cluster_tolerations: tuple[Toleration, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    replica_scheduling: ReplicaSchedulingStrategy | None = None
    workload_affinity: WorkloadAffinity | None = None

    @model_validator(mode="after")
    def _webhook_rules(self) -> Placement:
        if self.cluster_affinity is not None and self.cluster_affinities:
            raise ValueError("clusterAffinities cannot co-exist with clusterAffinity")
        names = [term.affinity_name for term in self.cluster_affinities]
        if len(set(names)) != len(names):
            raise ValueError("each affinity term in clusterAffinities must have a unique name")
        fields = [f for f in (c.effective_field() for c in self.spread_constraints) if f is not None]
        if len(set(fields)) != len(fields):
            raise ValueError("multiple spreadConstraints with the same spreadByField are not allowed")
        if fields and SpreadFieldValue.CLUSTER not in fields:
            raise ValueError("the cluster spread constraint must be enabled in one of the constraints "
                             "in case of SpreadByField is enabled")  # fmt: skip
        return self


class PurgeMode(enum.StrEnum):
    """Current names plus the deprecated aliases Karmada v1.12-v1.18 accepted."""

    DIRECTLY = "Directly"
    GRACEFULLY = "Gracefully"
    NEVER = "Never"
    IMMEDIATELY = "Immediately"
    GRACIOUSLY = "Graciously"


class StatePreservationRule(ApiModel):
    alias_label_name: str
    json_path: str = Field(alias="jsonPath")

    @field_validator("alias_label_name")
    @classmethod
    def _label_key(cls, value: str) -> str:
        problem = qualified_name_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class StatePreservation(ApiModel):
    rules: tuple[StatePreservationRule, ...] = ()
    """No minimum in Karmada: ``rules: []`` is valid and preserves nothing."""


class DecisionConditions(ApiModel):
    toleration_seconds: int | None = Field(default=None, ge=0)


class ApplicationFailoverBehavior(ApiModel):
    decision_conditions: DecisionConditions = Field(default_factory=DecisionConditions)
    purge_mode: PurgeMode | None = None
    grace_period_seconds: int | None = None
    state_preservation: StatePreservation | None = None


class ClusterFailoverBehavior(ApiModel):
    purge_mode: PurgeMode | None = None
    state_preservation: StatePreservation | None = None


class FailoverBehavior(ApiModel):
    application: ApplicationFailoverBehavior | None = None
    cluster: ClusterFailoverBehavior | None = None


class DispatchingOnClusters(ApiModel):
    cluster_names: tuple[str, ...] = ()


class Suspension(ApiModel):
    dispatching: bool | None = None
    dispatching_on_clusters: DispatchingOnClusters | None = None


class ConflictResolution(enum.StrEnum):
    ABORT = "Abort"
    OVERWRITE = "Overwrite"


class ActivationPreference(enum.StrEnum):
    LAZY = "Lazy"


class PreemptionBehavior(enum.StrEnum):
    ALWAYS = "Always"
    NEVER = "Never"


class SchedulePriority(ApiModel):
    priority_class_source: str = ""
    priority_class_name: str = ""


class PropagationSpec(ApiModel):
    resource_selectors: tuple[ResourceSelector, ...] = Field(min_length=1)
    association: bool = False
    propagate_deps: bool = False
    placement: Placement = Field(default_factory=Placement)
    priority: int | None = Field(default=None, ge=-(2**31), le=2**31 - 1)
    preemption: PreemptionBehavior = PreemptionBehavior.NEVER
    dependent_overrides: tuple[str, ...] = ()
    scheduler_name: str = ""
    failover: FailoverBehavior | None = None
    conflict_resolution: ConflictResolution | None = None
    activation_preference: ActivationPreference | None = None
    suspension: Suspension | None = None
    preserve_resources_on_deletion: bool | None = None
    schedule_priority: SchedulePriority | None = None


class PropagationPolicy(ApiModel):
    """A namespaced PropagationPolicy; it only selects templates in its own namespace."""

    api_version: Literal["policy.karmada.io/v1alpha1"]
    kind: Literal["PropagationPolicy"]
    metadata: ObjectMeta
    spec: PropagationSpec

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or ""

    @property
    def is_cluster_scoped(self) -> bool:
        return False


class ClusterPropagationPolicy(ApiModel):
    """A ClusterPropagationPolicy; it may select templates in any namespace and cluster-scoped ones."""

    api_version: Literal["policy.karmada.io/v1alpha1"]
    kind: Literal["ClusterPropagationPolicy"]
    metadata: ObjectMeta
    spec: PropagationSpec

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return ""

    @property
    def is_cluster_scoped(self) -> bool:
        return True


AnyPropagationPolicy = PropagationPolicy | ClusterPropagationPolicy
