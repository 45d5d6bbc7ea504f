"""commandOverrider / argsOverrider: append to or remove from a container's command or args.

For every container named ``containerName`` (same kinds as the imageOverrider): no such field → ``add``
of ``value`` (add) or ``[]`` (remove); else ``replace`` with the list plus ``value`` or without every
element equal to one of ``value`` (``commandargsoverride.go``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.patch import PatchOperation, PatchOperator
from gitops_karmada.core.overrides.pointer import join_pointer
from gitops_karmada.core.overrides.workloads import containers_fields, nested_slice
from gitops_karmada.model.overrides import CommandArgsOperator, CommandArgsOverrider

__all__ = ["CommandArgsTarget", "command_args_patches"]


class CommandArgsTarget(enum.StrEnum):
    COMMAND = "command"
    ARGS = "args"


def _overridden(current: list[str], overrider: CommandArgsOverrider) -> list[str]:
    if overrider.operator is CommandArgsOperator.ADD:
        return [*current, *overrider.value]
    removed = set(overrider.value)
    return [item for item in current if item not in removed]


def command_args_patches(
    obj: Mapping[str, Any], overrider: CommandArgsOverrider, target: CommandArgsTarget
) -> tuple[PatchOperation, ...]:
    """Karmada's ``buildCommandArgsPatches``."""
    kind = obj.get("kind")
    fields = containers_fields(kind) if isinstance(kind, str) else None
    if fields is None:
        return ()
    containers = nested_slice(obj, fields)
    if not containers:
        return ()
    patches = []
    for index, container in enumerate(containers):
        path = f"{join_pointer(fields)}/{index}/{target.value}"
        if not isinstance(container, Mapping):
            raise OverriderError("container is not a map", f"{join_pointer(fields)}/{index}")
        if container.get("name") != overrider.container_name:
            continue
        current = container.get(target.value)
        if current is None:
            patches.append(PatchOperation(PatchOperator.ADD, path, _overridden([], overrider)))
            continue
        if not isinstance(current, list) or not all(isinstance(item, str) for item in current):
            # Karmada drops this error and then fails applying an empty patch operation
            raise OverriderError(f"{target.value} is not a list of strings", path)
        patches.append(PatchOperation(PatchOperator.REPLACE, path, _overridden(current, overrider)))
    return tuple(patches)
