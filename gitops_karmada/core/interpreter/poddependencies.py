"""ConfigMaps, Secrets, the ServiceAccount and PVCs a pod spec refers to (``GetDependenciesFromPodTemplate``).

Follows Kubernetes' ``VisitPodConfigmapNames`` / ``VisitPodSecretNames`` over init, app and ephemeral
containers and volumes. Output groups come in Karmada's order (ConfigMap, Secret, ServiceAccount,
PersistentVolumeClaim); inside a group Karmada iterates a Go set (random order), we sort by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gitops_karmada.core.interpreter.operations import DependentObjectReference
from gitops_karmada.core.interpreter.unstructured import nested_list, nested_map, nested_str

_CONTAINER_FIELDS = ("initContainers", "containers", "ephemeralContainers")
# volume sources whose secret is named by secretRef.name (the rest are special-cased below)
_SECRET_REF_VOLUMES = ("cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos")


def _containers(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for field in _CONTAINER_FIELDS:
        for container in nested_list(spec, field) or ():
            if isinstance(container, Mapping):
                yield container


def _volumes(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for volume in nested_list(spec, "volumes") or ():
        if isinstance(volume, Mapping):
            yield volume


def _projected_sources(volume: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for source in nested_list(volume, "projected", "sources") or ():
        if isinstance(source, Mapping):
            yield source


def configmap_names(spec: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for container in _containers(spec):
        for env_from in nested_list(container, "envFrom") or ():
            names.add(nested_str(env_from, "configMapRef", "name"))
        for env in nested_list(container, "env") or ():
            names.add(nested_str(env, "valueFrom", "configMapKeyRef", "name"))
    for volume in _volumes(spec):
        names.add(nested_str(volume, "configMap", "name"))
        for source in _projected_sources(volume):
            names.add(nested_str(source, "configMap", "name"))
    names.discard("")
    return names


def secret_names(spec: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for pull_secret in nested_list(spec, "imagePullSecrets") or ():
        names.add(nested_str(pull_secret, "name"))
    for container in _containers(spec):
        for env_from in nested_list(container, "envFrom") or ():
            names.add(nested_str(env_from, "secretRef", "name"))
        for env in nested_list(container, "env") or ():
            names.add(nested_str(env, "valueFrom", "secretKeyRef", "name"))
    for volume in _volumes(spec):
        names.add(nested_str(volume, "secret", "secretName"))
        names.add(nested_str(volume, "azureFile", "secretName"))
        names.add(nested_str(volume, "csi", "nodePublishSecretRef", "name"))
        for source_kind in _SECRET_REF_VOLUMES:
            names.add(nested_str(volume, source_kind, "secretRef", "name"))
        for source in _projected_sources(volume):
            names.add(nested_str(source, "secret", "name"))
    names.discard("")
    return names


def service_account_names(spec: Mapping[str, Any]) -> set[str]:
    """``serviceAccountName`` unless empty or ``default`` (the deprecated ``serviceAccount`` is ignored)."""
    name = nested_str(spec, "serviceAccountName")
    return {name} if name and name != "default" else set()


def pvc_names(spec: Mapping[str, Any]) -> set[str]:
    names = {nested_str(volume, "persistentVolumeClaim", "claimName") for volume in _volumes(spec)}
    names.discard("")
    return names


def pod_spec_dependencies(spec: Mapping[str, Any], namespace: str) -> tuple[DependentObjectReference, ...]:
    """Every object the pod spec refers to, in the workload's namespace."""
    groups = (
        ("ConfigMap", configmap_names(spec)),
        ("Secret", secret_names(spec)),
        ("ServiceAccount", service_account_names(spec)),
        ("PersistentVolumeClaim", pvc_names(spec)),
    )
    return tuple(
        DependentObjectReference(api_version="v1", kind=kind, namespace=namespace, name=name)
        for kind, names in groups
        for name in sorted(names)
    )


def pod_template_dependencies(
    template: Mapping[str, Any] | None, namespace: str
) -> tuple[DependentObjectReference, ...]:
    """Dependencies of a PodTemplateSpec (``{metadata, spec}``)."""
    return pod_spec_dependencies(nested_map(template, "spec") or {}, namespace)
