"""Text rendering of override provenance for ``explain``: per field, the change and who made it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.overrides.provenance import ChangeOperation, FieldChange

if TYPE_CHECKING:
    from gitops_karmada.core.overrides.result import OverrideResult

__all__ = ["describe_change", "describe_override_result"]

_MAX_VALUE_LENGTH = 80


def _value(value: Any) -> str:
    # default=str: a template may hold values JSON has no type for (a loader's datetime, say)
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= _MAX_VALUE_LENGTH else text[: _MAX_VALUE_LENGTH - 3] + "..."


def describe_change(change: FieldChange) -> str:
    """``/path: old -> new  [policy rule N overrider[i]]`` on one line (values shortened)."""
    match change.operation:
        case ChangeOperation.ADD:
            what = f"added {_value(change.new)}"
        case ChangeOperation.REMOVE:
            what = f"removed {_value(change.old)}"
        case ChangeOperation.REPLACE:
            what = f"{_value(change.old)} -> {_value(change.new)}"
    return f"{change.location}: {what}  [{change.source}]"


def describe_override_result(result: OverrideResult) -> str:
    """The overrides of one template on one cluster: a heading, one line per change, then warnings."""
    policies = sorted(
        {item.policy_name for item in result.applied_cluster_overrides}
        | {item.policy_name for item in result.applied_overrides}
    )
    lines = [
        f"cluster {result.cluster}, {result.template}: {len(result.changes)} field change(s)"
        + (f" by {', '.join(policies)}" if policies else "")
    ]
    lines.extend(f"  {describe_change(change)}" for change in result.changes)
    lines.extend(f"  warning: {warning}" for warning in result.warnings)
    return "\n".join(lines)
