"""Resource names (plurals) and API paths of kinds, for reading objects from a member cluster's API.

``collect`` reads each kind with one ``kubectl get --raw`` LIST, which needs the resource's plural and
no discovery: the native kinds' plurals are a table, a CustomResourceDefinition among the repository's
inputs gives its own ``spec.names.plural``, and anything else gets Kubernetes' guess. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gitops_karmada.model.keys import group_of

# (group, kind) → plural of the kinds Kubernetes serves itself (the version does not change a plural).
NATIVE_PLURALS: dict[tuple[str, str], str] = {
    ("", "Binding"): "bindings",
    ("", "ComponentStatus"): "componentstatuses",
    ("", "ConfigMap"): "configmaps",
    ("", "Endpoints"): "endpoints",
    ("", "Event"): "events",
    ("", "LimitRange"): "limitranges",
    ("", "Namespace"): "namespaces",
    ("", "Node"): "nodes",
    ("", "PersistentVolume"): "persistentvolumes",
    ("", "PersistentVolumeClaim"): "persistentvolumeclaims",
    ("", "Pod"): "pods",
    ("", "PodTemplate"): "podtemplates",
    ("", "ReplicationController"): "replicationcontrollers",
    ("", "ResourceQuota"): "resourcequotas",
    ("", "Secret"): "secrets",
    ("", "Service"): "services",
    ("", "ServiceAccount"): "serviceaccounts",
    ("apps", "ControllerRevision"): "controllerrevisions",
    ("apps", "DaemonSet"): "daemonsets",
    ("apps", "Deployment"): "deployments",
    ("apps", "ReplicaSet"): "replicasets",
    ("apps", "StatefulSet"): "statefulsets",
    ("batch", "CronJob"): "cronjobs",
    ("batch", "Job"): "jobs",
    ("autoscaling", "HorizontalPodAutoscaler"): "horizontalpodautoscalers",
    ("policy", "PodDisruptionBudget"): "poddisruptionbudgets",
    ("networking.k8s.io", "Ingress"): "ingresses",
    ("networking.k8s.io", "IngressClass"): "ingressclasses",
    ("networking.k8s.io", "IPAddress"): "ipaddresses",
    ("networking.k8s.io", "NetworkPolicy"): "networkpolicies",
    ("networking.k8s.io", "ServiceCIDR"): "servicecidrs",
    ("rbac.authorization.k8s.io", "ClusterRole"): "clusterroles",
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): "clusterrolebindings",
    ("rbac.authorization.k8s.io", "Role"): "roles",
    ("rbac.authorization.k8s.io", "RoleBinding"): "rolebindings",
    ("storage.k8s.io", "CSIDriver"): "csidrivers",
    ("storage.k8s.io", "CSINode"): "csinodes",
    ("storage.k8s.io", "CSIStorageCapacity"): "csistoragecapacities",
    ("storage.k8s.io", "StorageClass"): "storageclasses",
    ("storage.k8s.io", "VolumeAttachment"): "volumeattachments",
    ("storage.k8s.io", "VolumeAttributesClass"): "volumeattributesclasses",
    ("scheduling.k8s.io", "PriorityClass"): "priorityclasses",
    ("node.k8s.io", "RuntimeClass"): "runtimeclasses",
    ("coordination.k8s.io", "Lease"): "leases",
    ("discovery.k8s.io", "EndpointSlice"): "endpointslices",
    ("events.k8s.io", "Event"): "events",
    ("apiextensions.k8s.io", "CustomResourceDefinition"): "customresourcedefinitions",
    ("apiregistration.k8s.io", "APIService"): "apiservices",
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): "mutatingwebhookconfigurations",
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): "validatingwebhookconfigurations",
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): "validatingadmissionpolicies",
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): "validatingadmissionpolicybindings",
    ("certificates.k8s.io", "CertificateSigningRequest"): "certificatesigningrequests",
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): "flowschemas",
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): "prioritylevelconfigurations",
}

# apimachinery's unpluralizedSuffixes (pkg/api/meta/restmapper.go): kinds whose resource is the kind itself.
_UNPLURALIZED_SUFFIXES = ("endpoints",)


def guess_plural(kind: str) -> str:
    """Kubernetes' ``meta.UnsafeGuessKindToResource`` (k8s.io/apimachinery/pkg/api/meta/restmapper.go):
    lower-case the kind; a kind ending in one of the unpluralized suffixes (``endpoints``) stays as it is;
    then a final ``s`` takes ``es``, a final ``y`` becomes ``ies``, anything else takes ``s``."""
    singular = kind.lower()
    if not singular or singular.endswith(_UNPLURALIZED_SUFFIXES):
        return singular
    if singular.endswith("s"):
        return singular + "es"
    if singular.endswith("y"):
        return singular[:-1] + "ies"
    return singular + "s"


def crd_plurals(documents: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """(group, kind) → ``spec.names.plural`` of the CustomResourceDefinitions among ``documents``."""
    found: dict[tuple[str, str], str] = {}
    for doc in documents:
        if doc.get("kind") != "CustomResourceDefinition" or group_of(str(doc.get("apiVersion", ""))) != (
            "apiextensions.k8s.io"
        ):
            continue
        spec = doc.get("spec")
        names = spec.get("names") if isinstance(spec, Mapping) else None
        if not isinstance(spec, Mapping) or not isinstance(names, Mapping):
            continue
        group, kind, plural = spec.get("group"), names.get("kind"), names.get("plural")
        if isinstance(group, str) and isinstance(kind, str) and isinstance(plural, str) and plural:
            found[(group, kind)] = plural
    return found


def resource_plural(api_version: str, kind: str, crds: Mapping[tuple[str, str], str]) -> str:
    """The resource (plural) serving ``kind``: the native table, the repository's CRDs, else the guess."""
    key = (group_of(api_version), kind)
    return NATIVE_PLURALS.get(key) or crds.get(key) or guess_plural(kind)


def list_path(api_version: str, plural: str) -> str:
    """The path that lists a resource across all namespaces (cluster-scoped ones alike):
    ``/api/v1/configmaps`` for the core group, ``/apis/<group>/<version>/<plural>`` otherwise."""
    group, _, version = api_version.rpartition("/")
    return f"/apis/{group}/{version}/{plural}" if group else f"/api/{version}/{plural}"
