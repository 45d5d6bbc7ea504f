"""ResourceBinding / ClusterResourceBinding (``work.karmada.io/v1alpha2``): the binding records.

One record per propagated template, stored in the state folder. They are both output (what was decided,
readable by users) and input to the next run (claims, previous clusters for Steady division, the
observed affinity term), exactly the role they play in Karmada's etcd.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, field_validator

from gitops_karmada.model.base import ApiModel, ObjectMeta, ResourceList, Toleration
from gitops_karmada.model.clusters import Condition
from gitops_karmada.model.policies import (
    ConflictResolution,
    FailoverBehavior,
    Placement,
    Suspension,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


class ObjectReference(ApiModel):
    api_version: str
    kind: str
    namespace: str = ""
    name: str
    uid: str = ""
    resource_version: str = ""


class NodeClaim(ApiModel):
    hard_node_affinity: dict[str, Any] | None = None
    node_selector: dict[str, str] | None = None
    tolerations: tuple[Toleration, ...] = ()


class ReplicaRequirements(ApiModel):
    node_claim: NodeClaim | None = None
    resource_request: ResourceList = Field(default_factory=dict)
    namespace: str = ""
    priority_class_name: str = ""


class ComponentReplicaRequirements(ApiModel):
    node_claim: NodeClaim | None = None
    resource_request: ResourceList = Field(default_factory=dict)
    priority_class_name: str = ""


class Component(ApiModel):
    name: str = Field(min_length=1, max_length=32)
    replicas: int = Field(ge=0)
    replica_requirements: ComponentReplicaRequirements | None = None


class ComponentAssignment(ApiModel):
    name: str
    replicas: int = 0


class TargetCluster(ApiModel):
    name: str
    replicas: int = 0
    components: tuple[ComponentAssignment, ...] = ()


class BindingSnapshot(ApiModel):
    namespace: str = ""
    name: str
    clusters: tuple[TargetCluster, ...] = ()


class GracefulEvictionTask(ApiModel):
    from_cluster: str
    purge_mode: str = ""
    replicas: int | None = None
    reason: str = ""
    message: str = ""
    producer: str = ""
    grace_period_seconds: int | None = None
    suppress_deletion: bool | None = None
    preserved_label_state: dict[str, str] = Field(default_factory=dict)
    clusters_before_failover: tuple[str, ...] = ()
    creation_timestamp: str | None = None


class BindingSchedulePriority(ApiModel):
    """``spec.schedulePriority`` of a ResourceBinding (gate PriorityBasedScheduling): the value of the
    PriorityClass its policy names (``core.scheduler.priority``). Records written before v1.19 support
    carried the policy's own fields here; they are dropped when read."""

    model_config = ConfigDict(extra="ignore")

    priority: int = 0


class WorkloadAffinityGroups(ApiModel):
    """The groups a binding belongs to (v1.17, gate WorkloadAffinity): ``<labelKey>=<labelValue>`` each, of
    its namespace; only ResourceBindings get them."""

    affinity_group: str = ""
    anti_affinity_group: str = ""


class ResourceBindingSpec(ApiModel):
    resource: ObjectReference
    propagate_deps: bool = False
    replica_requirements: ReplicaRequirements | None = None
    replicas: int = 0
    components: tuple[Component, ...] = ()
    clusters: tuple[TargetCluster, ...] = ()
    placement: Placement | None = None
    graceful_eviction_tasks: tuple[GracefulEvictionTask, ...] = ()
    required_by: tuple[BindingSnapshot, ...] = ()
    scheduler_name: str = ""
    failover: FailoverBehavior | None = None
    conflict_resolution: ConflictResolution | None = None
    reschedule_triggered_at: str | None = None
    suspension: Suspension | None = None
    preserve_resources_on_deletion: bool | None = None
    schedule_priority: BindingSchedulePriority | None = None
    workload_affinity_groups: WorkloadAffinityGroups | None = None

    @field_validator("clusters", mode="before")
    @classmethod
    def _one_object_each(cls, clusters: Any) -> Any:
        return shared_targets(clusters) if isinstance(clusters, list | tuple) else clusters


SHARED_TARGETS_LIMIT = 100_000
"""Distinct targets ``shared_targets`` keeps before it starts afresh (a fleet's are its clusters times the
replica counts it gives: hundreds to thousands)."""
_shared: dict[tuple[str, int, bool], TargetCluster] = {}


def shared_targets(clusters: Sequence[Any]) -> list[Any]:
    """``clusters`` (a binding's, as given to its model: mappings or models) with each plain target (a name
    and replicas, no components) replaced by the one model this process keeps for its name, replicas and
    whether replicas was given (``to_api`` writes what was given); anything else as it is, for the model to
    validate.

    A binding's targets are its clusters, and at fleet XL 20,000 bindings name the same 200 clusters with
    the same few replica counts: 4 million models of about 480 bytes each, where a few hundred do. Models
    are frozen, so one serves every binding that names it; and a record's targets are looked up before any
    is made."""
    shared: list[Any] = []
    for target in clusters:
        key: tuple[str, int, bool] | None = None
        if type(target) is dict:
            name, replicas = target.get("name"), target.get("replicas", 0)
            if type(name) is str and type(replicas) is int and len(target) == 1 + ("replicas" in target):
                key = (name, replicas, "replicas" in target)
        elif type(target) is TargetCluster:
            given = target.__pydantic_fields_set__
            if not target.components and "components" not in given:
                key = (target.name, target.replicas, "replicas" in given)
        if key is None:
            shared.append(target)
            continue
        held = _shared.get(key)
        if held is None:
            if len(_shared) >= SHARED_TARGETS_LIMIT:
                _shared.clear()
            model = target if type(target) is TargetCluster else TargetCluster.model_validate(target)
            held = _shared[key] = model
        shared.append(held)
    return shared


class AggregatedStatusItem(ApiModel):
    cluster_name: str
    status: dict[str, Any] | None = None
    applied: bool = False
    applied_message: str = ""
    health: str = ""


class ResourceBindingStatus(ApiModel):
    scheduler_observed_generation: int | None = None
    scheduler_observed_affinity_name: str = ""
    last_scheduled_time: str | None = None
    conditions: tuple[Condition, ...] = ()
    aggregated_status: tuple[AggregatedStatusItem, ...] = ()
    template_status: dict[str, Any] | None = None
    """The template's status folded from ``aggregated_status`` (AggregateStatus). Karmada writes it into
    the template; in Git the templates are the user's, so it is kept here (a gitops-karmada field)."""


class ResourceBinding(ApiModel):
    """A ResourceBinding (namespaced template) or ClusterResourceBinding (cluster-scoped template)."""

    api_version: Literal["work.karmada.io/v1alpha2"] = "work.karmada.io/v1alpha2"
    kind: Literal["ResourceBinding", "ClusterResourceBinding"] = "ResourceBinding"
    metadata: ObjectMeta
    spec: ResourceBindingSpec
    status: ResourceBindingStatus = Field(default_factory=ResourceBindingStatus)

    def condition(self, condition_type: str) -> Condition | None:
        return next((c for c in self.status.conditions if c.type == condition_type), None)
