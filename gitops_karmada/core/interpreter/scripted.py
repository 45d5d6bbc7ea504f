"""Interpreters made of Lua scripts (customizations and the built-in third-party ones): call and decode.

Each operation calls the Lua entry function Karmada's luavm calls and converts the answer with the same
rules (``luavm/lua.go``): numbers for replicas (whole, int32), booleans for health, tables for the rest;
empty tables pruned after the operation's reference objects; typed results decoded like ``json.Unmarshal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter import typed
from gitops_karmada.core.interpreter.errors import FailureReason, ResourceInterpretError
from gitops_karmada.core.interpreter.lua.sandbox import LuaFailure, LuaSandbox, LuaScript
from gitops_karmada.core.interpreter.luaresult import object_result, prune_empty_tables
from gitops_karmada.core.interpreter.operations import DependentObjectReference, Operation
from gitops_karmada.core.interpreter.unstructured import FieldTypeError, describe
from gitops_karmada.model.bindings import AggregatedStatusItem, Component, ReplicaRequirements

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

ENTRY_POINTS: Mapping[Operation, str] = {
    Operation.RETAIN: "Retain",
    Operation.INTERPRET_REPLICA: "GetReplicas",
    Operation.INTERPRET_COMPONENT: "GetComponents",
    Operation.REVISE_REPLICA: "ReviseReplica",
    Operation.INTERPRET_STATUS: "ReflectStatus",
    Operation.AGGREGATE_STATUS: "AggregateStatus",
    Operation.INTERPRET_HEALTH: "InterpretHealth",
    Operation.INTERPRET_DEPENDENCY: "GetDependencies",
}
_INT32_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class OwnedScript:
    """A script plus who it belongs to, for messages and for ``answered_by``."""

    owner: str
    """``ResourceInterpreterCustomization "<name>"`` or ``built-in interpreter for <apiVersion>/<kind>``."""
    answered_by: str
    """``customization/<name>`` or ``thirdparty``."""
    script: LuaScript
    customization: str | None = None
    """The ResourceInterpreterCustomization's name (None: a built-in script)."""
    field: str = ""
    """Where the script is in its customization (``spec.customizations.<rule>.luaScript``)."""


@dataclass(frozen=True, slots=True)
class ScriptSet:
    """The scripts for one target kind: one per operation, several for InterpretDependency."""

    scripts: Mapping[Operation, tuple[OwnedScript, ...]]


class _InvalidResult(Exception):  # noqa: N818 - internal signal, always converted
    pass


def aggregated_status_item_json(item: AggregatedStatusItem) -> dict[str, Any]:
    """An AggregatedStatusItem as Go marshals it (``omitempty`` on everything but clusterName)."""
    out: dict[str, Any] = {"clusterName": item.cluster_name}
    if item.status is not None:
        out["status"] = item.status
    if item.applied:
        out["applied"] = True
    if item.applied_message:
        out["appliedMessage"] = item.applied_message
    if item.health:
        out["health"] = item.health
    return out


def _replicas(value: Any) -> int:
    """Karmada's ConvertLuaResultToInt: a whole number within int32."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _InvalidResult(f"expect the returned replica type is number but got {_lua_type(value)}")
    if isinstance(value, float) and not value.is_integer():
        raise _InvalidResult(f"replicas {value!r} is not an integer")
    if not -_INT32_MAX - 1 <= int(value) <= _INT32_MAX:
        raise _InvalidResult(f"replicas {value!r} does not fit in int32")
    return int(value)


def _lua_type(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "table"


class ScriptedInterpreter:
    """Answers operations for the kinds it has scripts for; one sandbox per target kind (or shared)."""

    def __init__(
        self,
        script_sets: Mapping[tuple[str, str], ScriptSet],
        sandbox_factory: Callable[[], LuaSandbox],
        *,
        shared_sandbox: bool,
    ) -> None:
        self._sets = dict(script_sets)
        self._factory = sandbox_factory
        self._shared = shared_sandbox
        self._sandboxes: dict[tuple[str, str], LuaSandbox] = {}

    # -- hooks -------------------------------------------------------------------------------------
    def _scripts(self, api_version: str, kind: str, operation: Operation) -> tuple[OwnedScript, ...]:
        script_set = self._sets.get((api_version, kind))
        return script_set.scripts.get(operation, ()) if script_set is not None else ()

    def hook_enabled(self, api_version: str, kind: str, operation: Operation) -> bool:
        return bool(self._scripts(api_version, kind, operation))

    def answered_by(self, api_version: str, kind: str, operation: Operation) -> str | None:
        scripts = self._scripts(api_version, kind, operation)
        if not scripts:
            return None
        names = list(dict.fromkeys(s.answered_by for s in scripts))
        return ",".join(names)

    # -- running -----------------------------------------------------------------------------------
    def _sandbox(self, key: tuple[str, str]) -> LuaSandbox:
        slot = ("", "") if self._shared else key
        sandbox = self._sandboxes.get(slot)
        if sandbox is None:
            sandbox = self._sandboxes[slot] = self._factory()
        return sandbox

    def _run(
        self,
        obj: Mapping[str, Any],
        operation: Operation,
        args: tuple[Any, ...],
        nret: int,
        decode: Callable[[list[Any]], Any],
        now: int | None = None,
    ) -> list[Any]:
        """Run every script for the operation (one, or several for dependencies) and decode each answer."""
        key = (str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        scripts = self._scripts(*key, operation)
        if not scripts:  # pragma: no cover - the chain asks hook_enabled first
            raise self._failure(obj, operation, None, "no script", FailureReason.NOT_IMPLEMENTED)
        answers = []
        for owned in scripts:
            try:
                results = self._sandbox(key).call(owned.script, ENTRY_POINTS[operation], args, nret, now=now)
                answers.append(decode(results))
            except LuaFailure as failure:
                raise self._failure(obj, operation, owned, failure.message, failure.reason) from None
            except (_InvalidResult, FieldTypeError, TypeError) as err:
                raise self._failure(obj, operation, owned, str(err), FailureReason.INVALID_RESULT) from None
        return answers

    @staticmethod
    def _failure(
        obj: Mapping[str, Any],
        operation: Operation,
        owned: OwnedScript | None,
        cause: str,
        reason: FailureReason,
    ) -> ResourceInterpretError:
        return ResourceInterpretError(
            interpreter=owned.owner if owned is not None else "",
            operation=operation,
            subject=describe(obj),
            cause=cause,
            reason=reason,
            customization=owned.customization if owned is not None else None,
            field=owned.field if owned is not None else "",
        )

    # -- operations --------------------------------------------------------------------------------
    def get_replicas(self, obj: Mapping[str, Any]) -> tuple[int, ReplicaRequirements | None]:
        def decode(results: list[Any]) -> tuple[int, ReplicaRequirements | None]:
            replicas, requires = results
            if requires is not None and not isinstance(requires, dict | list):
                raise _InvalidResult(
                    f"expect the returned requires type is table but got {_lua_type(requires)}"
                )
            if requires == []:
                return _replicas(replicas), ReplicaRequirements()
            cleaned = prune_empty_tables(requires, ())
            return _replicas(replicas), typed.replica_requirements(cleaned)

        (answer,) = self._run(obj, Operation.INTERPRET_REPLICA, (obj,), 2, decode)
        return answer  # type: ignore[no-any-return]

    def get_components(self, obj: Mapping[str, Any]) -> tuple[Component, ...]:
        def decode(results: list[Any]) -> tuple[Component, ...]:
            (value,) = results
            if value is not None and not isinstance(value, list):
                raise _InvalidResult(
                    f"expect the returned components to be a list but got {_lua_type(value)}"
                )
            return typed.components(prune_empty_tables(value, ()))

        (answer,) = self._run(obj, Operation.INTERPRET_COMPONENT, (obj,), 1, decode)
        return answer  # type: ignore[no-any-return]

    def revise_replica(self, obj: Mapping[str, Any], replicas: int) -> dict[str, Any]:
        def decode(results: list[Any]) -> dict[str, Any]:
            return object_result(results[0], (obj,))

        (answer,) = self._run(obj, Operation.REVISE_REPLICA, (obj, replicas), 1, decode)
        return answer  # type: ignore[no-any-return]

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
        def decode(results: list[Any]) -> dict[str, Any]:
            return object_result(results[0], (desired, observed))

        (answer,) = self._run(desired, Operation.RETAIN, (desired, observed), 1, decode)
        return answer  # type: ignore[no-any-return]

    def reflect_status(self, obj: Mapping[str, Any]) -> dict[str, Any] | None:
        def decode(results: list[Any]) -> dict[str, Any] | None:
            if results[0] is None:
                return None
            # Karmada converts a status result with no reference objects: every empty table goes
            return object_result(results[0], ())

        (answer,) = self._run(obj, Operation.INTERPRET_STATUS, (obj,), 1, decode)
        return answer  # type: ignore[no-any-return]

    def aggregate_status(
        self, obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None = None
    ) -> dict[str, Any]:
        """``now`` (RFC 3339) is what the script's ``os.time()`` and ``os.date()`` answer (Karmada's read
        the clock). No status items reach the script as nil, as Karmada's nil slice does."""

        def decode(results: list[Any]) -> dict[str, Any]:
            # converted with no reference objects, as Karmada does: every empty table goes
            return object_result(results[0], ())

        lua_items = [aggregated_status_item_json(item) for item in items] or None
        epoch = int(datetime.fromisoformat(now.replace("Z", "+00:00")).timestamp()) if now else None
        (answer,) = self._run(obj, Operation.AGGREGATE_STATUS, (obj, lua_items), 1, decode, epoch)
        return answer  # type: ignore[no-any-return]

    def interpret_health(self, obj: Mapping[str, Any]) -> bool:
        def decode(results: list[Any]) -> bool:
            if not isinstance(results[0], bool):
                raise _InvalidResult(
                    f"expect the returned replica type is bool but got {_lua_type(results[0])}"
                )
            return results[0]

        (answer,) = self._run(obj, Operation.INTERPRET_HEALTH, (obj,), 1, decode)
        return answer  # type: ignore[no-any-return]

    def get_dependencies(self, obj: Mapping[str, Any]) -> tuple[DependentObjectReference, ...]:
        """Every dependency script runs; answers are validated, de-duplicated and sorted (Karmada's rule)."""

        def decode(results: list[Any]) -> tuple[DependentObjectReference, ...]:
            if not isinstance(results[0], list):
                raise _InvalidResult(
                    f"expect the returned requires type is table but got {_lua_type(results[0])}"
                )
            return typed.dependencies(prune_empty_tables(results[0], ()))

        answers = self._run(obj, Operation.INTERPRET_DEPENDENCY, (obj,), 1, decode)
        return tuple(sorted({reference for answer in answers for reference in answer}))
