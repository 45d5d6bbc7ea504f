"""Reading and copying raw Kubernetes objects, with the type checks Go's typed conversion would make."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import orjson


class FieldTypeError(ValueError):
    """A field holds the wrong JSON type (where Karmada's conversion to a Go struct would fail)."""


def deep_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (an orjson round trip is ~5x faster than ``copy.deepcopy``)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits, non-string keys
        return copy.deepcopy(value)


def path_text(path: Sequence[str | int]) -> str:
    return ".".join(str(p) for p in path)


def nested(obj: Any, *path: str) -> Any:
    """The value at ``path`` or None when a level is missing or is not a mapping."""
    current = obj
    for key in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


def nested_map(obj: Any, *path: str) -> Mapping[str, Any] | None:
    value = nested(obj, *path)
    if value is None or isinstance(value, Mapping):
        return value
    raise FieldTypeError(f"{path_text(path)} must be an object, not {json_type(value)}")


def nested_list(obj: Any, *path: str) -> Sequence[Any] | None:
    value = nested(obj, *path)
    if value is None or is_json_array(value):
        return value  # type: ignore[no-any-return]
    raise FieldTypeError(f"{path_text(path)} must be an array, not {json_type(value)}")


def nested_str(obj: Any, *path: str) -> str:
    """A string field; absent means ``""`` as for a Go string."""
    value = nested(obj, *path)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise FieldTypeError(f"{path_text(path)} must be a string, not {json_type(value)}")


def nested_int(obj: Any, *path: str) -> int | None:
    """An integer field (a whole float is accepted, as JSON has one number type); None when absent."""
    return as_int(nested(obj, *path), path_text(path))


def as_int(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise FieldTypeError(f"{where} must be an integer, not boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise FieldTypeError(f"{where} must be an integer, not {json_type(value)} {value!r}")


def is_json_array(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if is_json_array(value):
        return "array"
    return type(value).__name__


def describe(obj: Mapping[str, Any]) -> str:
    """``<apiVersion>/<kind> <namespace>/<name>`` for messages (tolerates a malformed object)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    meta = obj.get("metadata")
    namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
    name = meta.get("name") if isinstance(meta, Mapping) else None
    where = f"{namespace}/{name}" if namespace else f"{name}"
    return f"{api_version}/{kind} {where}"


def gvk_text(api_version: str, kind: str) -> str:
    return f"{api_version}/{kind}"
