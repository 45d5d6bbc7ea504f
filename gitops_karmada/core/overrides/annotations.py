"""The ``policy.karmada.io/applied-(cluster-)overrides`` annotations, in Karmada's exact JSON.

Karmada marshals ``[]OverridePolicyShadow`` sorted (stably) by policy name with Go's encoder: struct
fields in declaration order, empty lists omitted, a missing patch value written as ``null``, map keys
sorted, HTML characters escaped. (Karmada puts these on the Work; a Git rendering has no Work, so the
rendered manifest carries them.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs import gojson
from gitops_karmada.model.wellknown import APPLIED_CLUSTER_OVERRIDES_ANNOTATION, APPLIED_OVERRIDES_ANNOTATION

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.core.overrides.result import AppliedOverride, OverrideResult
    from gitops_karmada.model.overrides import (
        CommandArgsOverrider,
        FieldOverrider,
        FieldPatchOperation,
        ImageOverrider,
        LabelAnnotationOverrider,
        Overriders,
        PlaintextOverrider,
    )

__all__ = ["annotate_applied_overrides", "applied_overrides_json"]


def _object(members: Sequence[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{gojson.encode_string(name)}:{value}" for name, value in members) + "}"


def _array(items: Sequence[str]) -> str:
    return "[" + ",".join(items) + "]"


def _raw_value(value: Any) -> str:
    """An ``apiextensionsv1.JSON`` value: its raw JSON, ``null`` when unset."""
    return "null" if value is None else gojson.encode(value)


def _plaintext(item: PlaintextOverrider) -> str:
    return _object(
        [
            ("path", gojson.encode_string(item.path)),
            ("operator", gojson.encode_string(item.operator.value)),
            ("value", _raw_value(item.value)),
        ]
    )


def _image(item: ImageOverrider) -> str:
    members = []
    if item.predicate is not None:
        members.append(("predicate", _object([("path", gojson.encode_string(item.predicate.path))])))
    members.append(("component", gojson.encode_string(item.component.value)))
    members.append(("operator", gojson.encode_string(item.operator.value)))
    if item.value:
        members.append(("value", gojson.encode_string(item.value)))
    return _object(members)


def _command_args(item: CommandArgsOverrider) -> str:
    members = [
        ("containerName", gojson.encode_string(item.container_name)),
        ("operator", gojson.encode_string(item.operator.value)),
    ]
    if item.value:
        members.append(("value", gojson.encode(list(item.value))))
    return _object(members)


def _label_annotation(item: LabelAnnotationOverrider) -> str:
    members = [("operator", gojson.encode_string(item.operator.value))]
    if item.value:
        members.append(("value", gojson.encode(item.value)))
    return _object(members)


def _field_operation(item: FieldPatchOperation) -> str:
    return _object(
        [
            ("subPath", gojson.encode_string(item.sub_path)),
            ("operator", gojson.encode_string(item.operator.value)),
            ("value", _raw_value(item.value)),
        ]
    )


def _field(item: FieldOverrider) -> str:
    members = [("fieldPath", gojson.encode_string(item.field_path))]
    if item.json_:
        members.append(("json", _array([_field_operation(op) for op in item.json_])))
    if item.yaml:
        members.append(("yaml", _array([_field_operation(op) for op in item.yaml])))
    return _object(members)


def _overriders(item: Overriders) -> str:
    members = []
    if item.plaintext:
        members.append(("plaintext", _array([_plaintext(x) for x in item.plaintext])))
    if item.image_overrider:
        members.append(("imageOverrider", _array([_image(x) for x in item.image_overrider])))
    if item.command_overrider:
        members.append(("commandOverrider", _array([_command_args(x) for x in item.command_overrider])))
    if item.args_overrider:
        members.append(("argsOverrider", _array([_command_args(x) for x in item.args_overrider])))
    if item.labels_overrider:
        members.append(("labelsOverrider", _array([_label_annotation(x) for x in item.labels_overrider])))
    if item.annotations_overrider:
        members.append(
            ("annotationsOverrider", _array([_label_annotation(x) for x in item.annotations_overrider]))
        )
    if item.field_overrider:
        members.append(("fieldOverrider", _array([_field(x) for x in item.field_overrider])))
    return _object(members)


def applied_overrides_json(applied: Sequence[AppliedOverride]) -> str:
    """``AppliedOverrides.MarshalJSON``: items sorted stably by policy name."""
    ordered = sorted(applied, key=lambda item: item.policy_name)
    return _array(
        [
            _object(
                [
                    ("policyName", gojson.encode_string(item.policy_name)),
                    ("overriders", _overriders(item.overriders)),
                ]
            )
            for item in ordered
        ]
    )


def annotate_applied_overrides(obj: Mapping[str, Any], result: OverrideResult) -> dict[str, Any]:
    """A copy of ``obj`` whose annotations record the applied policies (each only when non-empty).

    Only the top level, ``metadata`` and its annotations are copied (a deep copy of every manifest
    was a third of the render time); ``obj`` itself is never modified.
    """
    annotated = dict(obj)
    values = {
        APPLIED_CLUSTER_OVERRIDES_ANNOTATION: result.applied_cluster_overrides,
        APPLIED_OVERRIDES_ANNOTATION: result.applied_overrides,
    }
    if not any(values.values()):
        return annotated
    metadata = annotated.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    annotations = metadata.get("annotations")
    annotations = dict(annotations) if isinstance(annotations, Mapping) else {}
    for name, applied in values.items():
        if applied:
            annotations[name] = applied_overrides_json(applied)
    metadata["annotations"] = annotations
    annotated["metadata"] = metadata
    return annotated
