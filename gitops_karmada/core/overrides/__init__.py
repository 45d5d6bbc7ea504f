"""OverridePolicy / ClusterOverridePolicy: select, apply (every overrider, Karmada's semantics), record.

Pure core: plain data in, plain data out, failures as ``OverrideError`` subclasses. See the modules for
the Karmada source each one follows.
"""

from __future__ import annotations

from gitops_karmada.core.overrides.annotations import annotate_applied_overrides, applied_overrides_json
from gitops_karmada.core.overrides.apply import apply_overrides, template_name
from gitops_karmada.core.overrides.errors import OverridePolicyError, OverriderError
from gitops_karmada.core.overrides.explain import describe_change, describe_override_result
from gitops_karmada.core.overrides.provenance import (
    ChangeOperation,
    FieldChange,
    OverriderKind,
    PolicyKind,
    PolicyRef,
)
from gitops_karmada.core.overrides.result import AppliedOverride, OverrideResult
from gitops_karmada.core.overrides.selection import (
    MatchedOverriders,
    select_overriders,
    unused_override_policies,
)

__all__ = [
    "AppliedOverride",
    "ChangeOperation",
    "FieldChange",
    "MatchedOverriders",
    "OverridePolicyError",
    "OverrideResult",
    "OverriderError",
    "OverriderKind",
    "PolicyKind",
    "PolicyRef",
    "annotate_applied_overrides",
    "applied_overrides_json",
    "apply_overrides",
    "describe_change",
    "describe_override_result",
    "select_overriders",
    "template_name",
    "unused_override_policies",
]
