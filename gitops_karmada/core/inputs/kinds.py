"""Which apiVersion/kind pairs can name a Kubernetes object, checked before anything reaches a path.

Kubernetes' own rules: an API group is a DNS-1123 subdomain, a version and a lower-cased kind are DNS-1035
labels (what the API server demands of a CustomResourceDefinition's names). The groups Kubernetes serves
itself are closed: ``v1 configmap`` or ``apps/v1 deployment`` name nothing, and since rendered paths
lower-case the kind they would land on the real ``ConfigMap``'s file; so those get a "did you mean".
"""

from __future__ import annotations

import re

from gitops_karmada.model.base import is_dns1123_subdomain

_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?\Z")

# The kinds of the groups Kubernetes serves itself (closed sets: nothing can add a kind to them).
BUILTIN_KINDS: dict[str, frozenset[str]] = {
    "": frozenset(
        {
            "Binding", "ComponentStatus", "ConfigMap", "Endpoints", "Event", "LimitRange", "Namespace",
            "Node", "PersistentVolume", "PersistentVolumeClaim", "Pod", "PodTemplate",
            "ReplicationController", "ResourceQuota", "Secret", "Service", "ServiceAccount",
        }
    ),
    "apps": frozenset({"ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"}),
    "batch": frozenset({"CronJob", "Job"}),
    "autoscaling": frozenset({"HorizontalPodAutoscaler"}),
    "policy": frozenset({"PodDisruptionBudget", "PodSecurityPolicy"}),
    "networking.k8s.io": frozenset(
        {"IPAddress", "Ingress", "IngressClass", "NetworkPolicy", "ServiceCIDR"}
    ),
    "rbac.authorization.k8s.io": frozenset({"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}),
    "storage.k8s.io": frozenset(
        {"CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment",
         "VolumeAttributesClass"}
    ),
    "scheduling.k8s.io": frozenset({"PriorityClass"}),
    "node.k8s.io": frozenset({"RuntimeClass"}),
    "coordination.k8s.io": frozenset({"Lease", "LeaseCandidate"}),
    "discovery.k8s.io": frozenset({"EndpointSlice"}),
    "events.k8s.io": frozenset({"Event"}),
    "apiextensions.k8s.io": frozenset({"CustomResourceDefinition"}),
}  # fmt: skip


def api_version_problem(api_version: str) -> str | None:
    """Why ``api_version`` cannot be a Kubernetes apiVersion (``group/version`` or ``version``), or None."""
    group, slash, version = api_version.rpartition("/")
    if slash and not group:
        return f"{api_version!r} is not a valid apiVersion: the group before '/' is empty"
    if group and not is_dns1123_subdomain(group):
        return (
            f"{api_version!r} is not a valid apiVersion: the group {group!r} must be a lowercase RFC 1123 "
            "subdomain (like apps or example.com)"
        )
    if not _DNS1035_LABEL.match(version):
        return (
            f"{api_version!r} is not a valid apiVersion: the version {version!r} must be a lowercase "
            "RFC 1035 label (like v1 or v1beta1)"
        )
    return None


def kind_problem(group: str, kind: str) -> str | None:
    """Why ``kind`` cannot be a kind of ``group``, or None."""
    if not _DNS1035_LABEL.match(kind.lower()) or not kind[:1].isalpha():
        return (
            f"{kind!r} is not a valid kind: it must start with a letter and hold only letters, digits "
            "and '-' (at most 63 characters)"
        )
    known = BUILTIN_KINDS.get(group)
    if known is None or kind in known:
        return None
    where = f"the {group} group" if group else "the core group (apiVersion: v1)"
    same = [k for k in sorted(known) if k.lower() == kind.lower()]
    if same:
        return f"{where} has no kind {kind!r}; kinds are case-sensitive: did you mean {same[0]!r}?"
    return f"{where} has no kind {kind!r} (it has {', '.join(sorted(known))})"
