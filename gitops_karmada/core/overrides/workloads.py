"""Where Karmada's image/command/args overriders look for containers, and ``unstructured.NestedSlice``.

Only the kind is compared (not the API group), as Karmada does: Pod → ``spec.containers``; ReplicaSet,
Deployment, DaemonSet, Job, StatefulSet → ``spec.template.spec.containers``. Init and ephemeral containers
are never touched. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gitops_karmada.core.codecs import gojson
from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.pointer import join_pointer

__all__ = ["containers_fields", "nested_slice", "normalize_json_value"]

_POD_CONTAINERS = ("spec", "containers")
_TEMPLATE_CONTAINERS = ("spec", "template", "spec", "containers")
_TEMPLATE_KINDS = frozenset({"ReplicaSet", "Deployment", "DaemonSet", "Job", "StatefulSet"})


def containers_fields(kind: str) -> tuple[str, ...] | None:
    """The field path of the container list for ``kind``, or None when Karmada ignores the kind."""
    if kind == "Pod":
        return _POD_CONTAINERS
    if kind in _TEMPLATE_KINDS:
        return _TEMPLATE_CONTAINERS
    return None


def _go_type(value: Any) -> str:
    if isinstance(value, Mapping):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return {bool: "bool", int: "int64", float: "float64", str: "string"}.get(type(value), "<nil>")


def nested_slice(obj: Mapping[str, Any], fields: tuple[str, ...]) -> list[Any] | None:
    """``unstructured.NestedSlice``: the list at ``fields``; None if a field is absent or a parent is null.

    A non-map parent or a non-list value is an error, as in Kubernetes.
    """
    value: Any = obj
    for depth, field in enumerate(fields):
        if value is None:
            return None
        if not isinstance(value, Mapping):
            path = "." + ".".join(fields[: depth + 1])
            expected = "expected map[string]interface{}"
            raise OverriderError(
                f"{path} accessor error: {value!r} is of the type {_go_type(value)}, {expected}",
                join_pointer(fields[:depth]),
            )
        if field not in value:
            return None
        value = value[field]
    if not isinstance(value, list):
        path = "." + ".".join(fields)
        raise OverriderError(
            f"{path} accessor error: {value!r} is of the type {_go_type(value)}, expected []interface{{}}",
            join_pointer(fields),
        )
    return value


def normalize_json_value(value: Any, path: str) -> Any:
    """A policy value as Karmada holds it after the API server: Go-encoded JSON decoded again.

    ``1.0`` becomes ``1`` and object keys come out sorted, as the API server stores custom resources.
    """
    try:
        return json.loads(gojson.encode(value))
    except gojson.GoJsonError as err:
        raise OverriderError(f"value cannot be encoded as JSON: {err}", path) from err
