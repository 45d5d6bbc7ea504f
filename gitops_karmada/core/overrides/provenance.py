"""Override provenance values: which policy, rule and overrider changed which field, and how.

Plain frozen values with ``to_dict`` for JSON output; nothing here applies anything.
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["ChangeOperation", "FieldChange", "OverriderKind", "PolicyKind", "PolicyRef"]


class PolicyKind(enum.StrEnum):
    CLUSTER_OVERRIDE_POLICY = "ClusterOverridePolicy"
    OVERRIDE_POLICY = "OverridePolicy"


class OverriderKind(enum.StrEnum):
    """The overrider lists of ``Overriders``, named by their JSON field, in Karmada's application order."""

    IMAGE = "imageOverrider"
    COMMAND = "commandOverrider"
    ARGS = "argsOverrider"
    LABELS = "labelsOverrider"
    ANNOTATIONS = "annotationsOverrider"
    FIELD = "fieldOverrider"
    PLAINTEXT = "plaintext"


class ChangeOperation(enum.StrEnum):
    ADD = "add"
    REMOVE = "remove"
    REPLACE = "replace"


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyRef:
    """A (Cluster)OverridePolicy by kind, namespace ("" for cluster-scoped) and name."""

    kind: PolicyKind
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind.value, "namespace": self.namespace, "name": self.name}


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldChange:
    """One field an override changed. ``sub_path`` points into a fieldOverrider's embedded JSON/YAML document.

    ``old`` is None for ADD and ``new`` is None for REMOVE; both are decoded JSON values.
    """

    path: str
    operation: ChangeOperation
    old: Any
    new: Any
    policy: PolicyRef
    rule_index: int
    overrider: OverriderKind
    overrider_index: int
    sub_path: str = ""

    @property
    def location(self) -> str:
        """``path``, or ``path#sub_path`` for a change inside an embedded document."""
        return f"{self.path}#{self.sub_path}" if self.sub_path else self.path

    @property
    def source(self) -> str:
        """Who made the change: ``ClusterOverridePolicy/x rule 0 imageOverrider[1]``."""
        return f"{self.policy} rule {self.rule_index} {self.overrider}[{self.overrider_index}]"

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"path": self.path}
        if self.sub_path:
            result["subPath"] = self.sub_path
        result["operation"] = self.operation.value
        if self.operation is not ChangeOperation.ADD:
            result["old"] = copy.deepcopy(self.old)
        if self.operation is not ChangeOperation.REMOVE:
            result["new"] = copy.deepcopy(self.new)
        result["policy"] = self.policy.to_dict()
        result["ruleIndex"] = self.rule_index
        result["overrider"] = self.overrider.value
        result["overriderIndex"] = self.overrider_index
        return result
