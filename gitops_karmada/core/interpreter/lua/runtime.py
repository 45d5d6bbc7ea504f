"""The Lua 5.1 runtime (lupa) that runs interpreter scripts, with its limits: used in this process or in a
worker process (``worker``); ``sandbox.LuaSandbox`` is the interface the interpreters use.

Lua 5.1 like Karmada's gopher-lua. Scripts get a fresh global table per call with Karmada's libraries
(base without the loaders and reflection functions, table, a safe string, math, a safe os, ``require``
of ``kube``/``os``/...). No Python object is reachable from Lua: arguments go in as plain tables,
results come back as JSON text. The instruction budget is a host-installed count hook; memory is
lupa's allocator limit, and a runtime that ran out of memory is replaced by a fresh one. Work done in C
(pattern matching, string building) and error handlers are invisible to the count hook: the worker
process's wall-clock limit bounds them.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import lupa.lua51 as lua51
import orjson

from gitops_karmada.core.interpreter.errors import FailureReason
from gitops_karmada.core.interpreter.lua.kube import KubeLibrary

if TYPE_CHECKING:
    from collections.abc import Callable

_HOOK_STEP = 1000  # instructions per count-hook call; must match HOOK_STEP in host.lua
_OUT_OF_MEMORY = "not enough memory"
_CACHED_ANSWERS = 512


@dataclass(frozen=True, slots=True, kw_only=True)
class LuaLimits:
    """Bounds for one script call."""

    max_instructions: int = 20_000_000
    """Lua VM instructions per call (~50 ms here); Karmada instead stops a call after one second."""
    max_memory: int = 32 * 1024 * 1024
    """Bytes for the whole runtime (its scripts, the converted objects and the results)."""
    kube_call_cost: int = 5_000
    """Instructions charged for each ``kube`` helper call, which runs in Python where the hook cannot see."""
    max_seconds: float | None = None
    """In-process only: wall time per call, checked between instructions; needs ``clock``."""
    clock: Callable[[], float] | None = field(default=None, compare=False)
    isolated: bool = True
    """Run the Lua runtime in a worker process, so that ``call_seconds`` bounds every call (any work)."""
    call_seconds: float = 1.0
    """Wall time per call in the worker process (Karmada's luavm stops a call after one second)."""
    run_seconds: float = 60.0
    """Wall time for all the calls of one sandbox (one run); later calls fail at once."""


DEFAULT_LUA_LIMITS = LuaLimits()


@dataclass(frozen=True, slots=True)
class LuaScript:
    """A script and the chunk name its error messages start with."""

    chunk_name: str
    source: str = field(repr=False)


class LuaFailure(Exception):  # noqa: N818 - a result, raised inside the interpreter package only
    """A script call failed; the interpreter layer adds who answered and the operation."""

    def __init__(self, reason: FailureReason, message: str) -> None:
        self.reason = reason
        self.message = message
        super().__init__(message)


def _host_source() -> str:
    return importlib.resources.files(__package__).joinpath("host.lua").read_text(encoding="utf-8")


def _deny_attribute(obj: object, name: object, is_setting: bool) -> NoReturn:
    raise AttributeError("Python attributes are not accessible from Lua")


class _Runtime:
    """One lupa runtime with the host loaded; discarded after a memory error."""

    def __init__(self, limits: LuaLimits, resource_quota_estimate: bool) -> None:
        self.limits = limits
        self.started = 0.0
        self.lua = lua51.LuaRuntime(
            register_eval=False,
            register_builtins=False,
            unpack_returned_tuples=True,
            attribute_filter=_deny_attribute,
            max_memory=limits.max_memory,
        )
        self.kube = KubeLibrary(resource_quota_estimate=resource_quota_estimate, to_lua=self.to_lua)
        limit_units = -(-limits.max_instructions // _HOOK_STEP)
        kube_units = -(-limits.kube_call_cost // _HOOK_STEP)
        host = self.lua.execute(
            _host_source(),
            self.kube.accurate_pod_requirements,
            self.kube.get_pod_dependencies,
            self.kube.resource_add,
            self.kube.get_resource_quantity,
            limit_units,
            kube_units,
            limits.max_memory // 2 // 1024,
            self.out_of_time if limits.clock is not None and limits.max_seconds is not None else None,
        )
        self.compile_fn = host["compile"]
        self.run_fn = host["run"]
        self.defined_fn = host["defined_functions"]
        self.state = host["state"]
        self.chunks: dict[LuaScript, Any] = {}

    def start_clock(self) -> None:
        if self.limits.clock is not None:
            self.started = self.limits.clock()

    def out_of_time(self) -> bool:
        clock, max_seconds = self.limits.clock, self.limits.max_seconds
        return clock is not None and max_seconds is not None and clock() - self.started > max_seconds

    def to_lua(self, value: Any) -> Any:
        """JSON data (dicts, lists and scalars only: no Python object may reach a script) as a Lua value."""
        if isinstance(value, dict | list):
            return self.lua.table_from(value, recursive=True)
        return value

    def chunk(self, script: LuaScript) -> Any:
        compiled = self.chunks.get(script)
        if compiled is None:
            fn, error = self.compile_fn(script.source, script.chunk_name)
            if fn is None:
                raise LuaFailure(FailureReason.SCRIPT_ERROR, str(error))
            compiled = self.chunks[script] = fn
        return compiled


class LocalExecutor:
    """Runs calls in this process; reuses one runtime across calls and replaces it after a memory error."""

    def __init__(self, limits: LuaLimits, resource_quota_estimate: bool) -> None:
        self._limits = limits
        self._resource_quota_estimate = resource_quota_estimate
        self._runtime: _Runtime | None = None

    def _current(self) -> _Runtime:
        if self._runtime is None:
            self._runtime = _Runtime(self._limits, self._resource_quota_estimate)
        return self._runtime

    def call(
        self, script: LuaScript, function: str, nret: int, args_json: bytes, now: int | None = None
    ) -> tuple[str, ...]:
        runtime = self._current()

        def run() -> Any:
            lua_args = [runtime.to_lua(arg) for arg in orjson.loads(args_json)]
            return runtime.run_fn(runtime.chunk(script), function, nret, now, *lua_args)

        status, *payload = self._guarded(runtime, run)
        self._check(runtime, status, payload[0] if payload else None)
        return tuple(str(text) for text in payload[:nret])

    def defined(self, script: LuaScript, names: tuple[str, ...]) -> tuple[bool, ...]:
        runtime = self._current()

        def run() -> Any:
            return runtime.defined_fn(runtime.chunk(script), runtime.lua.table_from(list(names)))

        status, found = self._guarded(runtime, run)
        self._check(runtime, status, found)
        return tuple(bool(found[i + 1]) for i in range(len(names)))

    def _guarded(self, runtime: _Runtime, run: Callable[[], Any]) -> Any:
        """Call into the host, turning lupa's exceptions into LuaFailure."""
        runtime.start_clock()
        try:
            return run()
        except MemoryError:  # lupa's LuaMemoryError included
            self._discard()
            raise LuaFailure(FailureReason.MEMORY_LIMIT, self._memory_message()) from None
        except lua51.LuaError as err:  # an error that escaped the host: after a limit, or in host code
            self._raise_if_limited(runtime)
            raise LuaFailure(FailureReason.SCRIPT_ERROR, _first_line(str(err))) from None
        except UnicodeDecodeError:
            raise LuaFailure(
                FailureReason.INVALID_RESULT, "the script returned or raised text that is not valid UTF-8"
            ) from None
        finally:
            runtime.state["armed"] = False

    def _check(self, runtime: _Runtime, status: str, detail: Any) -> None:
        """Raise for a host answer other than "ok" (limits first: their error text may have been caught)."""
        if runtime.kube.memory_exhausted or (status == "script" and detail == _OUT_OF_MEMORY):
            self._discard()
            raise LuaFailure(FailureReason.MEMORY_LIMIT, self._memory_message())
        self._raise_if_limited(runtime)
        if status == "script":
            raise LuaFailure(FailureReason.SCRIPT_ERROR, str(detail))
        if status == "result":
            raise LuaFailure(FailureReason.INVALID_RESULT, str(detail))

    def _raise_if_limited(self, runtime: _Runtime) -> None:
        if runtime.state["exceeded"]:
            raise LuaFailure(
                FailureReason.INSTRUCTION_LIMIT,
                f"instruction limit of {self._limits.max_instructions} exceeded",
            )
        if runtime.state["timed_out"]:
            raise LuaFailure(FailureReason.TIME_LIMIT, f"time limit of {self._limits.max_seconds} s exceeded")

    def _discard(self) -> None:
        self._runtime = None

    def _memory_message(self) -> str:
        return f"memory limit of {self._limits.max_memory} bytes exceeded"

    def close(self) -> None:
        self._runtime = None


def _plain(value: Any) -> Any:
    """orjson's fallback: other mappings and sequences (e.g. read-only views) as dicts and lists."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _first_line(message: str) -> str:
    """lupa appends a Lua stack traceback; the first line is the error itself."""
    return message.split("\nstack traceback:", 1)[0].strip()
