"""A sandboxed Lua 5.1 runtime for interpreter scripts: bounded instructions, memory and wall time.

``LuaSandbox`` is what the interpreters call. By default the runtime (``runtime``) lives in a worker process
(``worker``), so a script that never returns — a loop in an ``xpcall`` error handler, a pathological
pattern inside one ``string.find`` — is stopped after ``call_seconds`` and named, and the run goes on.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from gitops_karmada.core.interpreter.errors import FailureReason
from gitops_karmada.core.interpreter.lua.runtime import (
    _CACHED_ANSWERS,
    DEFAULT_LUA_LIMITS,
    LocalExecutor,
    LuaFailure,
    LuaLimits,
    LuaScript,
    _plain,
)
from gitops_karmada.core.interpreter.lua.worker import IsolatedExecutor

__all__ = ["DEFAULT_LUA_LIMITS", "LuaFailure", "LuaLimits", "LuaSandbox", "LuaScript"]


class LuaSandbox:
    """Runs script functions under the limits; answers are cached (a call is a pure function of its input).

    With ``limits.isolated`` (the default) the Lua runtime lives in a worker process: a call that outlives
    ``call_seconds`` — an endless loop in an error handler, a pathological pattern match inside one C
    function, neither of which the instruction count sees — kills the worker, fails with a time limit, and
    the next call starts a fresh one. Calls of one sandbox (one run) share ``run_seconds`` in all.
    """

    def __init__(
        self, limits: LuaLimits = DEFAULT_LUA_LIMITS, *, resource_quota_estimate: bool = False
    ) -> None:
        self._limits = limits
        self._executor: LocalExecutor | IsolatedExecutor = (
            IsolatedExecutor(limits, resource_quota_estimate)
            if limits.isolated
            else LocalExecutor(limits, resource_quota_estimate)
        )
        self._answers: OrderedDict[tuple[LuaScript, str, int, bytes, int | None], tuple[str, ...]] = (
            OrderedDict()
        )

    def call(
        self, script: LuaScript, function: str, args: tuple[Any, ...], nret: int, *, now: int | None = None
    ) -> list[Any]:
        """``function(*args)`` of ``script``: ``nret`` results decoded from JSON (``[]``: an empty table).

        ``now`` (Unix seconds) is what ``os.time()`` and ``os.date()`` without a time answer; without it they
        fail. A call is a pure function of the script, the arguments and ``now`` (fresh globals, seeded
        random), so successful answers are cached: the pipeline asks the same question once per cluster.
        """
        try:
            args_json = orjson.dumps(args, option=orjson.OPT_NON_STR_KEYS, default=_plain)
        except (TypeError, orjson.JSONEncodeError) as err:
            raise LuaFailure(FailureReason.INVALID_OBJECT, f"object is not JSON data: {err}") from None
        key = (script, function, nret, args_json, now)
        cached = self._answers.get(key)
        if cached is None:
            cached = self._answers[key] = self._executor.call(script, function, nret, args_json, now)
            if len(self._answers) > _CACHED_ANSWERS:
                self._answers.popitem(last=False)
        else:
            self._answers.move_to_end(key)
        try:
            return [orjson.loads(text) for text in cached]
        except orjson.JSONDecodeError as err:  # e.g. deeper than orjson's own limit
            raise LuaFailure(FailureReason.INVALID_RESULT, f"the result is not usable JSON: {err}") from None

    def defined_functions(self, script: LuaScript, names: tuple[str, ...]) -> tuple[bool, ...]:
        """Which of ``names`` the script defines as functions; LuaFailure if it does not compile or run."""
        return self._executor.defined(script, names)

    def close(self) -> None:
        """Release this sandbox's runtime in the worker (also done when the sandbox is collected)."""
        self._executor.close()
