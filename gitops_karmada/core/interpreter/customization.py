"""ResourceInterpreterCustomizations from the repository: merged per target, and checked offline.

Karmada's configmanager sorts the customizations by name and merges those with the same target: for
each operation the first script wins, except InterpretDependency where every script runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.interpreter.lua.sandbox import (
    DEFAULT_LUA_LIMITS,
    LuaFailure,
    LuaLimits,
    LuaSandbox,
    LuaScript,
)
from gitops_karmada.core.interpreter.operations import Operation
from gitops_karmada.core.interpreter.scripted import ENTRY_POINTS, OwnedScript, ScriptSet

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.model.interpretation import LuaScript as LuaScriptRule
    from gitops_karmada.model.interpretation import ResourceInterpreterCustomization

RULES: Mapping[Operation, str] = {
    Operation.RETAIN: "retention",
    Operation.INTERPRET_REPLICA: "replicaResource",
    Operation.INTERPRET_COMPONENT: "componentResource",
    Operation.REVISE_REPLICA: "replicaRevision",
    Operation.INTERPRET_STATUS: "statusReflection",
    Operation.AGGREGATE_STATUS: "statusAggregation",
    Operation.INTERPRET_HEALTH: "healthInterpretation",
    Operation.INTERPRET_DEPENDENCY: "dependencyInterpretation",
}
"""The ``spec.customizations`` member (JSON name) that holds each operation's script."""

_ATTRIBUTES: Mapping[str, str] = {
    "retention": "retention",
    "replicaResource": "replica_resource",
    "componentResource": "component_resource",
    "replicaRevision": "replica_revision",
    "statusReflection": "status_reflection",
    "statusAggregation": "status_aggregation",
    "healthInterpretation": "health_interpretation",
    "dependencyInterpretation": "dependency_interpretation",
}


def _rules(ric: ResourceInterpreterCustomization) -> Iterable[tuple[Operation, str, LuaScriptRule]]:
    for operation, rule_name in RULES.items():
        rule = getattr(ric.spec.customizations, _ATTRIBUTES[rule_name])
        if rule is not None:
            yield operation, rule_name, rule


def _owned(ric: ResourceInterpreterCustomization, rule_name: str, rule: LuaScriptRule) -> OwnedScript:
    return OwnedScript(
        owner=f'ResourceInterpreterCustomization "{ric.name}"',
        answered_by=f"customization/{ric.name}",
        script=LuaScript(chunk_name=f"{ric.name}/{rule_name}", source=rule.lua_script),
        customization=ric.name,
        field=f"spec.customizations.{rule_name}.luaScript",
    )


def merge_customizations(
    customizations: Iterable[ResourceInterpreterCustomization],
) -> dict[tuple[str, str], ScriptSet]:
    """Script sets per (apiVersion, kind) target."""
    merged: dict[tuple[str, str], dict[Operation, tuple[OwnedScript, ...]]] = {}
    for ric in sorted(customizations, key=lambda c: c.name):
        target = (ric.spec.target.api_version, ric.spec.target.kind)
        scripts = merged.setdefault(target, {})
        for operation, rule_name, rule in _rules(ric):
            owned = _owned(ric, rule_name, rule)
            if operation is Operation.INTERPRET_DEPENDENCY:
                scripts[operation] = (*scripts.get(operation, ()), owned)
            elif operation not in scripts:
                scripts[operation] = (owned,)
    return {target: ScriptSet(scripts) for target, scripts in merged.items()}


def check_customization(
    ric: ResourceInterpreterCustomization, limits: LuaLimits = DEFAULT_LUA_LIMITS
) -> tuple[str, ...]:
    """Problems found offline, like ``karmadactl interpret --check``; an empty tuple means none.

    Every script must compile and run its top level in the sandbox, and define its entry function.
    """
    sandbox = LuaSandbox(limits)
    problems: list[str] = []
    for operation, rule_name, rule in _rules(ric):
        owned = _owned(ric, rule_name, rule)
        entry = ENTRY_POINTS[operation]
        try:
            (defined,) = sandbox.defined_functions(owned.script, (entry,))
        except LuaFailure as failure:
            problems.append(f"{rule_name}: {failure.message}")
            continue
        if not defined:
            problems.append(f"{rule_name}: the script does not define function {entry}")
    return tuple(problems)
