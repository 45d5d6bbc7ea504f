"""FederatedResourceQuota (``policy.karmada.io/v1alpha1``): fleet-wide resource limits per namespace."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gitops_karmada.model.base import ApiModel, ObjectMeta, ResourceList


class StaticClusterAssignment(ApiModel):
    cluster_name: str = Field(min_length=1)
    hard: ResourceList


class FederatedResourceQuotaSpec(ApiModel):
    overall: ResourceList
    static_assignments: tuple[StaticClusterAssignment, ...] = ()


class ClusterQuotaStatus(ApiModel):
    cluster_name: str
    hard: ResourceList = Field(default_factory=dict)
    used: ResourceList = Field(default_factory=dict)


class FederatedResourceQuotaStatus(ApiModel):
    overall: ResourceList = Field(default_factory=dict)
    overall_used: ResourceList = Field(default_factory=dict)
    aggregated_status: tuple[ClusterQuotaStatus, ...] = ()


class FederatedResourceQuota(ApiModel):
    api_version: Literal["policy.karmada.io/v1alpha1"]
    kind: Literal["FederatedResourceQuota"]
    metadata: ObjectMeta
    spec: FederatedResourceQuotaSpec
    status: FederatedResourceQuotaStatus = Field(default_factory=FederatedResourceQuotaStatus)

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or ""
