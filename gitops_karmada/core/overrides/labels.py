"""labelsOverrider / annotationsOverrider: add, remove or replace metadata labels or annotations.

Per key (``labelannotationoverrider.go``): remove/replace skip a key that is not there; add first creates
an empty map when there is none and then sets the key (overwriting). Keys are matched only, the value of a
remove is ignored. Go iterates the map randomly; the outcome does not depend on it, we go in key order.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.patch import PatchError, PatchOperation, PatchOperator, apply_patch
from gitops_karmada.core.overrides.pointer import escape_token
from gitops_karmada.model.overrides import LabelAnnotationOverrider, OverriderOperator

__all__ = ["MetadataMap", "apply_label_annotation_overrider"]


class MetadataMap(enum.StrEnum):
    LABELS = "labels"
    ANNOTATIONS = "annotations"


def _current_map(obj: Mapping[str, Any], field: MetadataMap) -> Mapping[str, Any] | None:
    """``NestedStringMap(obj, "metadata", field)``: the map, or None when absent or null."""
    metadata = obj.get("metadata")
    if metadata is None:
        return None
    if not isinstance(metadata, Mapping):
        raise OverriderError("metadata is not a map", "/metadata")
    current = metadata.get(field.value)
    if current is None:
        return None
    # Kubernetes never stores anything else; Go would silently skip the key (or reset the map on add)
    if not isinstance(current, Mapping) or not all(isinstance(v, str) for v in current.values()):
        raise OverriderError(f"metadata.{field.value} is not a map of strings", f"/metadata/{field.value}")
    return current


def apply_label_annotation_overrider(
    obj: dict[str, Any], overrider: LabelAnnotationOverrider, field: MetadataMap
) -> None:
    """Apply one overrider to ``obj`` in place (``obj`` is the caller's working copy)."""
    patches = []
    for key in sorted(overrider.value):
        current = _current_map(obj, field)
        if overrider.operator in (OverriderOperator.REMOVE, OverriderOperator.REPLACE):
            if current is None or key not in current:
                continue
        elif current is None:
            obj.setdefault("metadata", {})
            if obj["metadata"] is None:
                obj["metadata"] = {}
            obj["metadata"][field.value] = {}
        path = f"/metadata/{field.value}/{escape_token(key)}"
        patches.append(PatchOperation(PatchOperator(overrider.operator.value), path, overrider.value[key]))
    try:
        apply_patch(obj, patches)
    except PatchError as err:
        raise OverriderError(str(err), err.path) from err
