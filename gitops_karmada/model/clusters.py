"""Cluster (``cluster.karmada.io/v1alpha1``): the member-cluster inventory the scheduler reads.

Besides the spec (provider, region, zones, taints, resource models) the scheduler needs parts of the
status a live Karmada would collect: API enablements, conditions and the resource summary. In a Git
repository they are written by hand or exported (``kubectl get cluster -o yaml``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from gitops_karmada.model.base import ApiModel, ObjectMeta, ResourceList, Taint, is_dns1123_label
from gitops_karmada.model.quantity import Quantity


class ResourceModelRange(ApiModel):
    name: str
    min: Quantity
    max: Quantity


class ResourceModel(ApiModel):
    grade: int = Field(ge=0)
    ranges: tuple[ResourceModelRange, ...] = ()


class LocalSecretReference(ApiModel):
    namespace: str
    name: str


class ClusterSpec(ApiModel):
    id: str = ""
    sync_mode: Literal["Push", "Pull"] = "Push"
    api_endpoint: str = ""
    secret_ref: LocalSecretReference | None = None
    impersonator_secret_ref: LocalSecretReference | None = None
    insecure_skip_tls_verification: bool = Field(default=False, alias="insecureSkipTLSVerification")
    proxy_url: str = Field(default="", alias="proxyURL")
    proxy_header: dict[str, str] = Field(default_factory=dict)
    provider: str = ""
    region: str = ""
    zone: str = ""
    zones: tuple[str, ...] = ()
    taints: tuple[Taint, ...] = ()
    resource_models: tuple[ResourceModel, ...] = ()

    def effective_zones(self) -> tuple[str, ...]:
        """``zones``, falling back to the deprecated single ``zone``."""
        return self.zones or ((self.zone,) if self.zone else ())


class APIResource(ApiModel):
    name: str
    kind: str


class APIEnablement(ApiModel):
    group_version: str
    resources: tuple[APIResource, ...] = ()


class AllocatableModeling(ApiModel):
    grade: int = Field(ge=0)
    count: int = Field(ge=0)


class ResourceSummary(ApiModel):
    allocatable: ResourceList = Field(default_factory=dict)
    allocating: ResourceList = Field(default_factory=dict)
    allocated: ResourceList = Field(default_factory=dict)
    allocatable_modelings: tuple[AllocatableModeling, ...] = ()


class Condition(ApiModel):
    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None
    observed_generation: int | None = None


class NodeSummary(ApiModel):
    total_num: int = 0
    ready_num: int = 0


class ClusterStatus(ApiModel):
    kubernetes_version: str = ""
    api_enablements: tuple[APIEnablement, ...] | None = None
    conditions: tuple[Condition, ...] = ()
    node_summary: NodeSummary | None = None
    resource_summary: ResourceSummary | None = None
    remedy_actions: tuple[str, ...] = ()


class Cluster(ApiModel):
    api_version: Literal["cluster.karmada.io/v1alpha1"]
    kind: Literal["Cluster"]
    metadata: ObjectMeta
    spec: ClusterSpec = Field(default_factory=ClusterSpec)
    status: ClusterStatus = Field(default_factory=ClusterStatus)

    @field_validator("metadata")
    @classmethod
    def _name_is_a_label(cls, metadata: ObjectMeta) -> ObjectMeta:
        # Karmada validates cluster names as DNS-1123 labels of at most 48 characters; the name is also
        # the output folder clusters/<name>/, so nothing else may pass.
        if not metadata.name:
            raise ValueError("metadata.name is required")
        if len(metadata.name) > 48 or not is_dns1123_label(metadata.name):
            raise ValueError(
                f"cluster name {metadata.name!r} must be a DNS-1123 label of at most 48 characters"
            )
        return metadata

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def labels(self) -> dict[str, str]:
        return self.metadata.labels

    def has_api(self, api_version: str, kind: str) -> bool | None:
        """Whether the cluster serves ``api_version``/``kind``; None when it reports no enablements."""
        if self.status.api_enablements is None:
            return None
        return any(
            enablement.group_version == api_version and any(r.kind == kind for r in enablement.resources)
            for enablement in self.status.api_enablements
        )

    def condition(self, condition_type: str) -> Condition | None:
        return next((c for c in self.status.conditions if c.type == condition_type), None)
