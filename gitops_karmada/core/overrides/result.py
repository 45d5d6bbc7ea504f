"""What applying override policies to one template on one cluster produced (``OverrideResult``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gitops_karmada.core.overrides.provenance import FieldChange
    from gitops_karmada.model.overrides import Overriders

__all__ = ["AppliedOverride", "OverrideResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AppliedOverride:
    """What Karmada records per applied rule (``OverridePolicyShadow``): policy name and overriders."""

    policy_name: str
    overriders: Overriders

    def to_dict(self) -> dict[str, Any]:
        return {"policyName": self.policy_name, "overriders": self.overriders.to_api()}


@dataclass(frozen=True, slots=True, kw_only=True)
class OverrideResult:
    """The overridden object (a new object), the applied policies, field provenance and warnings."""

    object: dict[str, Any]
    """The overridden object. Empty in what a run keeps after rendering it, unless the run explains
    (``RunContext.explain``; ``without_object``): the rendered file holds it, and a quarter of a million
    of them would hold the fleet twice over."""
    cluster: str
    template: str
    applied_cluster_overrides: tuple[AppliedOverride, ...] = ()
    applied_overrides: tuple[AppliedOverride, ...] = ()
    changes: tuple[FieldChange, ...] = ()
    warnings: tuple[str, ...] = ()

    def without_object(self) -> OverrideResult:
        """This result without its object (see ``object``)."""
        return replace(self, object={})

    def to_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "template": self.template,
            "object": copy.deepcopy(self.object),
            "appliedClusterOverrides": [item.to_dict() for item in self.applied_cluster_overrides],
            "appliedOverrides": [item.to_dict() for item in self.applied_overrides],
            "changes": [change.to_dict() for change in self.changes],
            "warnings": list(self.warnings),
        }
