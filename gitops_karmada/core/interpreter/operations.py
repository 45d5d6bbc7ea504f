"""The interpreter operations and the DependentObjectReference an InterpretDependency answers with."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from gitops_karmada.model.base import LabelSelector


class Operation(enum.StrEnum):
    """Karmada's InterpreterOperation names (``resourceinterpreterwebhook_types.go``)."""

    INTERPRET_REPLICA = "InterpretReplica"
    INTERPRET_COMPONENT = "InterpretComponent"
    REVISE_REPLICA = "ReviseReplica"
    RETAIN = "Retain"
    AGGREGATE_STATUS = "AggregateStatus"
    INTERPRET_STATUS = "InterpretStatus"
    INTERPRET_HEALTH = "InterpretHealth"
    INTERPRET_DEPENDENCY = "InterpretDependency"


@dataclass(frozen=True, slots=True, order=True)
class DependentObjectReference:
    """An object a workload needs in the same clusters (``configv1alpha1.DependentObjectReference``).

    Ordered by (apiVersion, kind, namespace, name), then by the label selector's canonical JSON, which is
    also what equality and hashing use (the pydantic selector itself is not hashable).
    """

    api_version: str
    kind: str
    namespace: str
    name: str
    label_selector: LabelSelector | None = field(default=None, compare=False)
    _selector_key: str = field(default="", init=False, repr=False)

    def __post_init__(self) -> None:
        if self.label_selector is not None:
            key = orjson.dumps(self.label_selector.to_api(), option=orjson.OPT_SORT_KEYS).decode()
            object.__setattr__(self, "_selector_key", key)

    def to_api(self) -> dict[str, object]:
        """Karmada's JSON (``omitempty`` on namespace, name and labelSelector)."""
        out: dict[str, object] = {"apiVersion": self.api_version, "kind": self.kind}
        if self.namespace:
            out["namespace"] = self.namespace
        if self.name:
            out["name"] = self.name
        if self.label_selector is not None:
            out["labelSelector"] = self.label_selector.to_api()
        return out
