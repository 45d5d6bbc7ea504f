"""fieldOverrider: patch a JSON or YAML document held in a string field (``applyFieldOverriders``).

The field (an RFC 6901 pointer, go-openapi style) must exist and hold a string. YAML mode converts the
text with sigs.k8s.io/yaml, patches the JSON and converts back (keys re-sorted, go-yaml v2 layout and
quoting); JSON mode patches the text itself (compact result, key order kept). Errors name the field and
the failing subPath.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.sigsyaml import SigsYamlError, json_to_yaml, yaml_to_json
from gitops_karmada.core.overrides.diff import ValueChange, diff_values
from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.patch import (
    InvalidDocumentError,
    PatchError,
    PatchOperation,
    PatchOperator,
    apply_patch_to_json,
)
from gitops_karmada.core.overrides.pointer import PointerError, pointer_get, pointer_set

if TYPE_CHECKING:
    from gitops_karmada.model.overrides import FieldOverrider, FieldPatchOperation

__all__ = ["FieldOverrideOutcome", "apply_field_overrider"]


@dataclass(frozen=True, slots=True)
class FieldOverrideOutcome:
    """The field text before and after, and what changed inside the embedded document."""

    old_text: str
    new_text: str
    document_changes: tuple[ValueChange, ...]


def _patch(
    document: str, overrider: FieldOverrider, operations: tuple[FieldPatchOperation, ...], language: str
) -> str:
    patch = [PatchOperation(PatchOperator(op.operator.value), op.sub_path, op.value) for op in operations]
    try:
        return apply_patch_to_json(document, patch)
    except InvalidDocumentError as err:
        raise OverriderError(
            f"the field does not hold a {language} object or array: {err}", overrider.field_path
        ) from err
    except PatchError as err:
        raise OverriderError(str(err), overrider.field_path, err.path) from err


def _document_changes(before: str, after: str) -> tuple[ValueChange, ...]:
    if before == after or not before:
        return ()
    return diff_values(json.loads(before), json.loads(after))


def apply_field_overrider(obj: dict[str, Any], overrider: FieldOverrider) -> FieldOverrideOutcome:
    """Apply one fieldOverrider to ``obj`` in place (the caller's working copy)."""
    path = overrider.field_path
    try:
        current = pointer_get(obj, path)
    except PointerError as err:
        raise OverriderError(f"fieldPath does not exist: {err}", path) from err
    if not isinstance(current, str):
        raise OverriderError(f"Get object's value by overrider's path({path}) is not string", path)
    if overrider.yaml:
        try:
            document = yaml_to_json(current)
        except SigsYamlError as err:
            raise OverriderError(f"the field is not valid YAML: {err}", path) from err
        patched = _patch(document, overrider, overrider.yaml, "YAML")
        new_text = json_to_yaml(patched)
    elif overrider.json_:
        document = current
        patched = new_text = _patch(document, overrider, overrider.json_, "JSON")
    else:  # neither json nor yaml: before v1.18 Karmada accepted it and wrote the empty string
        document = patched = new_text = ""
    pointer_set(obj, path, new_text)
    return FieldOverrideOutcome(current, new_text, _document_changes(document, patched))
