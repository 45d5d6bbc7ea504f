"""ClusterTaintPolicy (`policy.karmada.io/v1alpha1`, cluster-scoped, Karmada v1.14+): taints from conditions.

Karmada's cluster controller only keeps the not-ready/unreachable NoSchedule taints; an admin turns a
condition into a NoExecute taint (which evicts, with the Failover gate) with one of these.
"""

from __future__ import annotations

import enum
from typing import Literal

from pydantic import Field

from gitops_karmada.model.base import ApiModel, ObjectMeta, TaintEffect
from gitops_karmada.model.policies import ClusterAffinity


class MatchConditionOperator(enum.StrEnum):
    IN = "In"
    NOT_IN = "NotIn"


class MatchCondition(ApiModel):
    condition_type: str = Field(min_length=1)
    operator: MatchConditionOperator
    status_values: tuple[Literal["True", "False", "Unknown"], ...] = Field(min_length=1)


class PolicyTaint(ApiModel):
    key: str = Field(min_length=1)
    value: str = ""
    effect: Literal[TaintEffect.NO_SCHEDULE, TaintEffect.NO_EXECUTE]


class ClusterTaintPolicySpec(ApiModel):
    target_clusters: ClusterAffinity | None = None
    """Clusters the policy applies to (absent: every cluster)."""
    add_on_conditions: tuple[MatchCondition, ...] = ()
    remove_on_conditions: tuple[MatchCondition, ...] = ()
    taints: tuple[PolicyTaint, ...] = Field(min_length=1)


class ClusterTaintPolicy(ApiModel):
    api_version: Literal["policy.karmada.io/v1alpha1"]
    kind: Literal["ClusterTaintPolicy"]
    metadata: ObjectMeta
    spec: ClusterTaintPolicySpec

    @property
    def name(self) -> str:
        return self.metadata.name
