"""Override failures: ``OverriderError`` (what failed, where) and ``OverridePolicyError`` (also who, what).

Both subclass the model's ``OverrideError``, so callers can catch that alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.model.errors import OverrideError

if TYPE_CHECKING:
    from gitops_karmada.core.overrides.provenance import OverriderKind, PolicyRef

__all__ = ["OverridePolicyError", "OverriderError"]


class OverriderError(OverrideError):
    """One overrider could not be applied: ``detail`` and the JSON pointer ``path`` (``sub_path`` inside a
    fieldOverrider's embedded document). Raised by the per-overrider functions, which know no policy."""

    def __init__(self, detail: str, path: str = "", sub_path: str = "") -> None:
        self.detail = detail
        self.path = path
        self.sub_path = sub_path
        where = f"{path}#{sub_path}" if sub_path else path
        super().__init__(f"{where}: {detail}" if where else detail)


class OverridePolicyError(OverrideError):
    """An override policy failed on a cluster; the message names policy, rule, overrider, cluster, template
    and JSON pointer. Karmada aborts the whole override for that cluster, and so does the caller."""

    def __init__(
        self,
        *,
        policy: PolicyRef,
        rule_index: int,
        overrider: OverriderKind,
        overrider_index: int,
        cluster: str,
        template: str,
        path: str,
        sub_path: str,
        detail: str,
    ) -> None:
        self.policy = policy
        self.rule_index = rule_index
        self.overrider = overrider
        self.overrider_index = overrider_index
        self.cluster = cluster
        self.template = template
        self.path = path
        self.sub_path = sub_path
        self.detail = detail
        where = f"{path}#{sub_path}" if sub_path else path or "(no path)"
        super().__init__(
            f"{policy} rule {rule_index} {overrider}[{overrider_index}] on cluster {cluster} "
            f"for {template} at {where}: {detail}"
        )
