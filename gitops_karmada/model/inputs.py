"""Inputs: every document a run reads from the repository, by role, validated and (for policies) defaulted."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.model.interpretation import ResourceInterpreterCustomization
from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy
from gitops_karmada.model.policies import ClusterPropagationPolicy, PropagationPolicy
from gitops_karmada.model.quotas import FederatedResourceQuota
from gitops_karmada.model.rollouts import RolloutPolicy
from gitops_karmada.model.taint_policies import ClusterTaintPolicy

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.model.diagnostics import SourceRef
    from gitops_karmada.model.manifest import Manifest

KarmadaObject = (
    PropagationPolicy
    | ClusterPropagationPolicy
    | OverridePolicy
    | ClusterOverridePolicy
    | FederatedResourceQuota
    | Cluster
    | ResourceInterpreterCustomization
    | ClusterTaintPolicy
    | RolloutPolicy
)


@dataclass(frozen=True, slots=True)
class Inputs:
    """Everything a run reads from the repository, validated and (for policies) defaulted."""

    config: ToolConfig = field(default_factory=ToolConfig)
    templates: tuple[Manifest, ...] = ()
    propagation_policies: tuple[PropagationPolicy, ...] = ()
    cluster_propagation_policies: tuple[ClusterPropagationPolicy, ...] = ()
    override_policies: tuple[OverridePolicy, ...] = ()
    cluster_override_policies: tuple[ClusterOverridePolicy, ...] = ()
    clusters: tuple[Cluster, ...] = ()
    quotas: tuple[FederatedResourceQuota, ...] = ()
    customizations: tuple[ResourceInterpreterCustomization, ...] = ()
    taint_policies: tuple[ClusterTaintPolicy, ...] = ()
    """ClusterTaintPolicies, by name (Karmada orders them by creation time, which Git does not have)."""
    rollout_policies: tuple[RolloutPolicy, ...] = ()
    """gitops-karmada's RolloutPolicies, by namespace and name (``model.rollouts``)."""
    sources: Mapping[tuple[str, str, str], SourceRef] = field(default_factory=dict)
    """Where each Karmada object came from, by (kind, namespace, name)."""
