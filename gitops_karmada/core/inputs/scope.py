"""Which kinds are cluster-scoped: Kubernetes' built-ins, common add-ons, CRDs found in the repository.

A template without ``metadata.namespace`` is cluster-scoped only if its kind is; otherwise it lands in
``default``, as ``kubectl apply`` against the Karmada API server would place it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# (group, kind) of cluster-scoped kinds served by Kubernetes and widespread add-ons
BUILTIN_CLUSTER_SCOPED: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("storage.k8s.io", "VolumeAttributesClass"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("node.k8s.io", "RuntimeClass"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotClass"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
        ("cert-manager.io", "ClusterIssuer"),
        ("gateway.networking.k8s.io", "GatewayClass"),
        ("policy.karmada.io", "ClusterPropagationPolicy"),
        ("policy.karmada.io", "ClusterOverridePolicy"),
        ("policy.karmada.io", "ClusterTaintPolicy"),
        ("cluster.karmada.io", "Cluster"),
        ("config.karmada.io", "ResourceInterpreterCustomization"),
        ("config.karmada.io", "ResourceInterpreterWebhookConfiguration"),
        ("work.karmada.io", "ClusterResourceBinding"),
        ("apps.karmada.io", "WorkloadRebalancer"),
    }
)


@dataclass(frozen=True, slots=True)
class ScopeIndex:
    """Answers ``is_cluster_scoped(group, kind)`` from the built-ins plus extra (group, kind) pairs."""

    extra: frozenset[tuple[str, str]] = frozenset()

    def is_cluster_scoped(self, group: str, kind: str) -> bool:
        return (group, kind) in BUILTIN_CLUSTER_SCOPED or (group, kind) in self.extra


def crd_scopes(documents: Iterable[Mapping[str, Any]]) -> frozenset[tuple[str, str]]:
    """(group, kind) pairs declared cluster-scoped by CustomResourceDefinitions among ``documents``."""
    found: set[tuple[str, str]] = set()
    for doc in documents:
        if doc.get("kind") != "CustomResourceDefinition" or not str(doc.get("apiVersion", "")).startswith(
            "apiextensions.k8s.io/"
        ):
            continue
        spec = doc.get("spec")
        if not isinstance(spec, Mapping) or spec.get("scope") != "Cluster":
            continue
        names = spec.get("names")
        group, kind = spec.get("group"), names.get("kind") if isinstance(names, Mapping) else None
        if isinstance(group, str) and isinstance(kind, str):
            found.add((group, kind))
    return frozenset(found)
