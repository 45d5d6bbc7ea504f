"""Native InterpretDependency (``dependencies.go``): what a workload needs propagated alongside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.native import kinds
from gitops_karmada.core.interpreter.operations import DependentObjectReference
from gitops_karmada.core.interpreter.poddependencies import pod_spec_dependencies, pod_template_dependencies
from gitops_karmada.core.interpreter.unstructured import nested_list, nested_map, nested_str
from gitops_karmada.model.base import LabelSelector

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

_DERIVED_SERVICE_PREFIX = "derived-"
_SERVICE_NAME_LABEL = "kubernetes.io/service-name"

Dependencies = tuple[DependentObjectReference, ...]


def _namespace(obj: Mapping[str, Any]) -> str:
    return nested_str(obj, "metadata", "namespace")


def workload_dependencies(obj: Mapping[str, Any]) -> Dependencies:
    """Deployment, ReplicaSet, Job, DaemonSet: the pod template's references."""
    return pod_template_dependencies(nested_map(obj, "spec", "template"), _namespace(obj))


def stateful_set_dependencies(obj: Mapping[str, Any]) -> Dependencies:
    """Like a workload, minus PVCs named after a volumeClaimTemplate (the StatefulSet creates those)."""
    references = workload_dependencies(obj)
    claim_templates = {
        nested_str(template, "metadata", "name")
        for template in nested_list(obj, "spec", "volumeClaimTemplates") or ()
    }
    return tuple(r for r in references if r.kind != "PersistentVolumeClaim" or r.name not in claim_templates)


def cron_job_dependencies(obj: Mapping[str, Any]) -> Dependencies:
    template = nested_map(obj, "spec", "jobTemplate", "spec", "template")
    return pod_template_dependencies(template, _namespace(obj))


def pod_dependencies(obj: Mapping[str, Any]) -> Dependencies:
    return pod_spec_dependencies(nested_map(obj, "spec") or {}, _namespace(obj))


def ingress_dependencies(obj: Mapping[str, Any]) -> Dependencies:
    """One Secret per ``spec.tls[].secretName`` (an empty name fails the reference validation)."""
    namespace = _namespace(obj)
    names = dict.fromkeys(nested_str(tls, "secretName") for tls in nested_list(obj, "spec", "tls") or ())
    return tuple(
        DependentObjectReference(api_version="v1", kind="Secret", namespace=namespace, name=name)
        for name in names
    )


def service_import_dependencies(obj: Mapping[str, Any]) -> Dependencies:
    """The derived Service ``derived-<name>`` and the EndpointSlices labelled with that service name."""
    namespace = _namespace(obj)
    derived = _DERIVED_SERVICE_PREFIX + nested_str(obj, "metadata", "name")
    return (
        DependentObjectReference(api_version="v1", kind="Service", namespace=namespace, name=derived),
        DependentObjectReference(
            api_version="discovery.k8s.io/v1",
            kind="EndpointSlice",
            namespace=namespace,
            name="",
            # constructed, not validated: Karmada does not check the label value's length here
            label_selector=LabelSelector.model_construct(match_labels={_SERVICE_NAME_LABEL: derived}),
        ),
    )


DEPENDENCY_HANDLERS: Mapping[kinds.Gvk, Callable[[Mapping[str, Any]], Dependencies]] = {
    kinds.DEPLOYMENT: workload_dependencies,
    kinds.REPLICA_SET: workload_dependencies,
    kinds.JOB: workload_dependencies,
    kinds.DAEMON_SET: workload_dependencies,
    kinds.STATEFUL_SET: stateful_set_dependencies,
    kinds.CRON_JOB: cron_job_dependencies,
    kinds.POD: pod_dependencies,
    kinds.INGRESS: ingress_dependencies,
    kinds.SERVICE_IMPORT: service_import_dependencies,
}
