"""Decoding JSON into Karmada's typed results the way ``json.Unmarshal`` into Go structs does.

Unknown fields are dropped, a wrong JSON type is an error, integers must be whole and in range, empty
``omitempty`` values disappear. The cleaned data is then validated by the pydantic models.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from gitops_karmada.core.codecs.gonumbers import quantity_from_json_number
from gitops_karmada.core.interpreter.operations import DependentObjectReference
from gitops_karmada.core.interpreter.unstructured import FieldTypeError, is_json_array, json_type
from gitops_karmada.model.base import LabelSelector, Toleration
from gitops_karmada.model.bindings import Component, NodeClaim, ReplicaRequirements
from gitops_karmada.model.quantity import Quantity, QuantityError


class Scalar(enum.Enum):
    STRING = "string"
    INT32 = "int32"
    INT64 = "int64"
    BOOL = "bool"
    QUANTITY = "quantity"
    ANY = "any"


@dataclass(frozen=True, slots=True)
class Struct:
    fields: Mapping[str, Schema]
    keep_empty: frozenset[str] = frozenset()
    """Fields without ``omitempty``: kept even when zero/empty."""


@dataclass(frozen=True, slots=True)
class ListOf:
    item: Schema


@dataclass(frozen=True, slots=True)
class MapOf:
    value: Schema


Schema = Scalar | Struct | ListOf | MapOf
_M = TypeVar("_M", ReplicaRequirements, NodeClaim, Component, LabelSelector, Toleration)

_ZERO: dict[Scalar, Any] = {Scalar.STRING: "", Scalar.INT32: 0, Scalar.INT64: 0, Scalar.BOOL: False}
_INT_RANGES = {Scalar.INT32: (-(2**31), 2**31 - 1), Scalar.INT64: (-(2**63), 2**63 - 1)}

NODE_SELECTOR_REQUIREMENT = Struct(
    {"key": Scalar.STRING, "operator": Scalar.STRING, "values": ListOf(Scalar.STRING)},
    keep_empty=frozenset({"key", "operator"}),
)
NODE_SELECTOR = Struct(
    {
        "nodeSelectorTerms": ListOf(
            Struct(
                {
                    "matchExpressions": ListOf(NODE_SELECTOR_REQUIREMENT),
                    "matchFields": ListOf(NODE_SELECTOR_REQUIREMENT),
                }
            )
        )
    },
    keep_empty=frozenset({"nodeSelectorTerms"}),
)
TOLERATION = Struct(
    {
        "key": Scalar.STRING,
        "operator": Scalar.STRING,
        "value": Scalar.STRING,
        "effect": Scalar.STRING,
        "tolerationSeconds": Scalar.INT64,
    }
)
NODE_CLAIM = Struct(
    {
        "hardNodeAffinity": NODE_SELECTOR,
        "nodeSelector": MapOf(Scalar.STRING),
        "tolerations": ListOf(TOLERATION),
    }
)
RESOURCE_LIST = MapOf(Scalar.QUANTITY)
REPLICA_REQUIREMENTS = Struct(
    {
        "nodeClaim": NODE_CLAIM,
        "resourceRequest": RESOURCE_LIST,
        "namespace": Scalar.STRING,
        "priorityClassName": Scalar.STRING,
    }
)
COMPONENT_REPLICA_REQUIREMENTS = Struct(
    {"nodeClaim": NODE_CLAIM, "resourceRequest": RESOURCE_LIST, "priorityClassName": Scalar.STRING}
)
COMPONENT = Struct(
    {"name": Scalar.STRING, "replicas": Scalar.INT32, "replicaRequirements": COMPONENT_REPLICA_REQUIREMENTS},
    keep_empty=frozenset({"name", "replicas"}),
)
LABEL_SELECTOR_REQUIREMENT = Struct(
    {"key": Scalar.STRING, "operator": Scalar.STRING, "values": ListOf(Scalar.STRING)},
    keep_empty=frozenset({"key", "operator"}),
)
LABEL_SELECTOR = Struct(
    {"matchLabels": MapOf(Scalar.STRING), "matchExpressions": ListOf(LABEL_SELECTOR_REQUIREMENT)}
)
DEPENDENT_OBJECT_REFERENCE = Struct(
    {
        "apiVersion": Scalar.STRING,
        "kind": Scalar.STRING,
        "namespace": Scalar.STRING,
        "name": Scalar.STRING,
        "labelSelector": LABEL_SELECTOR,
    },
    keep_empty=frozenset({"apiVersion", "kind"}),
)


def decode(value: Any, schema: Schema, where: str) -> Any:
    """Clean ``value`` against ``schema``; raises FieldTypeError naming the field as Go would."""
    if value is None:
        return None
    if isinstance(schema, Scalar):
        return _decode_scalar(value, schema, where)
    if isinstance(schema, Struct):
        if not isinstance(value, Mapping):
            raise FieldTypeError(f"cannot unmarshal {json_type(value)} into {where} (an object)")
        out: dict[str, Any] = {}
        for key, field_schema in schema.fields.items():
            item = decode(value.get(key), field_schema, f"{where}.{key}")
            if item is None and key in schema.keep_empty and isinstance(field_schema, Scalar):
                item = _ZERO.get(field_schema)  # an absent field without omitempty is its zero value
            if item is not None and (key in schema.keep_empty or not _is_empty(item)):
                out[key] = item
        return out
    if isinstance(schema, ListOf):
        if not is_json_array(value):
            raise FieldTypeError(f"cannot unmarshal {json_type(value)} into {where} (an array)")
        return [decode(item, schema.item, f"{where}[{i}]") for i, item in enumerate(value)]
    if not isinstance(value, Mapping):
        raise FieldTypeError(f"cannot unmarshal {json_type(value)} into {where} (an object)")
    return {str(k): decode(v, schema.value, f"{where}.{k}") for k, v in value.items()}


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, dict | list) and not value)


def _decode_scalar(value: Any, kind: Scalar, where: str) -> Any:
    if kind is Scalar.ANY:
        return value
    if kind is Scalar.STRING:
        if isinstance(value, str):
            return value
    elif kind is Scalar.BOOL:
        if isinstance(value, bool):
            return value
    elif kind is Scalar.QUANTITY:
        return _decode_quantity(value, where)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        low, high = _INT_RANGES[kind]
        if isinstance(value, float) and not value.is_integer():
            raise FieldTypeError(f"cannot unmarshal number {value!r} into {where} of type {kind.value}")
        if not low <= int(value) <= high:
            raise FieldTypeError(f"cannot unmarshal number {value!r} into {where} of type {kind.value}")
        return int(value)
    raise FieldTypeError(f"cannot unmarshal {json_type(value)} into {where} of type {kind.value}")


def _decode_quantity(value: Any, where: str) -> Quantity:
    try:
        if isinstance(value, str):
            return Quantity.parse(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return quantity_from_json_number(value)
    except (QuantityError, ValueError) as err:
        raise FieldTypeError(f"{where}: {err}") from None
    raise FieldTypeError(f"cannot unmarshal {json_type(value)} into {where} of type Quantity")


def _validated(model: type[_M], data: Any, where: str) -> _M:
    try:
        validated = model.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(
            f"{where}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            if e["loc"]
            else f"{where}: {e['msg']}"
            for e in err.errors()
        )
        raise FieldTypeError(problems) from None
    return validated


def _dependency_selector(data: Any, where: str) -> LabelSelector:
    selector = _validated(LabelSelector, data, where)
    if selector.problem is not None:
        # a dependency's selector is used at once: Karmada's distributor fails on an invalid one
        raise FieldTypeError(f"{where}: {selector.problem}")
    return selector


def _drop_empty_toleration_enums(claim: dict[str, Any]) -> None:
    # Kubernetes treats an empty operator/effect like an absent one; our enums do not accept ""
    for toleration in claim.get("tolerations", ()):
        for key in ("operator", "effect"):
            if toleration.get(key) == "":
                del toleration[key]


def replica_requirements(value: Any, where: str = "requirements") -> ReplicaRequirements | None:
    data = decode(value, REPLICA_REQUIREMENTS, where)
    if data is None:
        return None
    _drop_empty_toleration_enums(data.get("nodeClaim", {}))
    return _validated(ReplicaRequirements, data, where)


def node_claim(value: Any, where: str = "nodeClaim") -> NodeClaim:
    data = decode(value, NODE_CLAIM, where) or {}
    _drop_empty_toleration_enums(data)
    return _validated(NodeClaim, data, where)


def tolerations(value: Any, where: str = "tolerations") -> tuple[Toleration, ...]:
    data = decode(value, ListOf(TOLERATION), where) or []
    _drop_empty_toleration_enums({"tolerations": data})
    return tuple(_validated(Toleration, item, f"{where}[{i}]") for i, item in enumerate(data))


def components(value: Any, where: str = "components") -> tuple[Component, ...]:
    """A GetComponents answer: a JSON array of components (null → none)."""
    data = decode(value, ListOf(COMPONENT), where)
    if data is None:
        return ()
    for item in data:
        _drop_empty_toleration_enums(item.get("replicaRequirements", {}).get("nodeClaim", {}))
    return tuple(_validated(Component, item, f"{where}[{i}]") for i, item in enumerate(data))


def dependencies(value: Any, where: str = "dependencies") -> tuple[DependentObjectReference, ...]:
    """A GetDependencies answer, validated like Karmada: apiVersion and kind, and a name or a selector."""
    data = decode(value, ListOf(DEPENDENT_OBJECT_REFERENCE), where)
    if data is None:
        return ()
    references = []
    for i, item in enumerate(data):
        selector = item.get("labelSelector")
        if not item["apiVersion"] or not item["kind"]:
            raise FieldTypeError(f"{where}[{i}]: apiVersion and kind are required")
        if not item.get("name") and selector is None:
            raise FieldTypeError(f"{where}[{i}]: name or labelSelector is required")
        references.append(
            DependentObjectReference(
                api_version=item["apiVersion"],
                kind=item["kind"],
                namespace=item.get("namespace", ""),
                name=item.get("name", ""),
                label_selector=_dependency_selector(selector, f"{where}[{i}].labelSelector")
                if selector is not None
                else None,
            )
        )
    return tuple(references)
