"""Native Retain (``retain.go``): fields of the member object (observed) that the template must not undo."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gitops_karmada.core.interpreter.native import kinds
from gitops_karmada.core.interpreter.unstructured import (
    FieldTypeError,
    deep_copy,
    nested,
    nested_int,
    nested_list,
    nested_map,
    nested_str,
)
from gitops_karmada.model.wellknown import RETAIN_REPLICAS_LABEL

_RETAIN_REPLICAS_VALUE = "true"
_SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"


def _copy(obj: Mapping[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = deep_copy(dict(obj))
    return copied


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def _set_or_drop(target: dict[str, Any], key: str, value: Any) -> None:
    """Go assigns the observed value and ``omitempty`` drops a zero one."""
    if value in (None, "", [], {}):
        target.pop(key, None)
    else:
        target[key] = deep_copy(value)


def retain_deployment(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """With label ``resourcetemplate.karmada.io/retain-replicas: "true"`` keep the member's replicas."""
    result = _copy(desired)
    labels = nested_map(desired, "metadata", "labels") or {}
    if labels.get(RETAIN_REPLICAS_LABEL) == _RETAIN_REPLICAS_VALUE:
        try:
            replicas = nested_int(observed, "spec", "replicas")
        except FieldTypeError:
            replicas = None
        if replicas is None:
            meta = nested_map(observed, "metadata") or {}
            where = f"{meta.get('namespace')}/{meta.get('name')}"
            raise FieldTypeError(f"failed to get spec.replicas from {observed.get('kind')} {where}")
        _spec(result)["replicas"] = replicas
    return result


def retain_pod(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """Keep nodeName, serviceAccountName, volumes and each container's volumeMounts (matched by name)."""
    result = _copy(desired)
    spec = _spec(result)
    for key in ("nodeName", "serviceAccountName", "volumes"):
        _set_or_drop(spec, key, nested(observed, "spec", key))
    observed_mounts = {
        nested_str(c, "name"): c.get("volumeMounts")
        for c in nested_list(observed, "spec", "containers") or ()
        if isinstance(c, Mapping)
    }
    for container in spec.get("containers") or ():
        if isinstance(container, dict) and nested_str(container, "name") in observed_mounts:
            _set_or_drop(container, "volumeMounts", observed_mounts[nested_str(container, "name")])
    return result


def retain_service(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the allocated clusterIP (if set) and healthCheckNodePort (if > 0)."""
    result = _copy(desired)
    cluster_ip = nested_str(observed, "spec", "clusterIP")
    if cluster_ip:
        _spec(result)["clusterIP"] = cluster_ip
    health_port = nested_int(observed, "spec", "healthCheckNodePort")
    if health_port is not None and health_port > 0:
        _spec(result)["healthCheckNodePort"] = health_port
    return result


def _union_by_name(desired: Any, observed: Any) -> list[Any]:
    merged = [deep_copy(item) for item in desired or ()]
    names = {item.get("name") for item in merged if isinstance(item, Mapping)}
    for item in observed or ():
        if isinstance(item, Mapping) and item.get("name") not in names:
            merged.append(deep_copy(item))
            names.add(item.get("name"))
    return merged


def retain_service_account(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """``secrets`` and ``imagePullSecrets``: the desired entries, then observed ones with a new name."""
    result = _copy(desired)
    for key in ("secrets", "imagePullSecrets"):
        _set_or_drop(result, key, _union_by_name(nested_list(desired, key), nested_list(observed, key)))
    return result


def retain_pvc(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    result = _copy(desired)
    volume_name = nested_str(observed, "spec", "volumeName")
    if volume_name:
        _spec(result)["volumeName"] = volume_name
    return result


def retain_pv(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    result = _copy(desired)
    claim_ref = nested_map(observed, "spec", "claimRef")
    if claim_ref is not None:
        _spec(result)["claimRef"] = deep_copy(dict(claim_ref))
    return result


def retain_job(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """The controller-generated selector and template labels of the running Job."""
    result = _copy(desired)
    match_labels = nested_map(observed, "spec", "selector", "matchLabels")
    if match_labels is not None:
        selector = _spec(result).setdefault("selector", {})
        selector["matchLabels"] = deep_copy(dict(match_labels))
    template_labels = nested_map(observed, "spec", "template", "metadata", "labels")
    if template_labels is not None:
        template = _spec(result).setdefault("template", {})
        template.setdefault("metadata", {})["labels"] = deep_copy(dict(template_labels))
    return result


def retain_secret(desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """A service-account token Secret keeps the token data the member cluster filled in."""
    result = _copy(desired)
    if nested_str(desired, "type") == _SERVICE_ACCOUNT_TOKEN:
        data = nested_map(observed, "data")
        if data is not None:
            result["data"] = deep_copy(dict(data))
    return result


RETAIN_HANDLERS: Mapping[kinds.Gvk, Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]] = {
    kinds.DEPLOYMENT: retain_deployment,
    kinds.POD: retain_pod,
    kinds.SERVICE: retain_service,
    kinds.SERVICE_ACCOUNT: retain_service_account,
    kinds.PERSISTENT_VOLUME_CLAIM: retain_pvc,
    kinds.PERSISTENT_VOLUME: retain_pv,
    kinds.JOB: retain_job,
    kinds.SECRET: retain_secret,
}
