"""The worker process that hosts the Lua runtimes, so that a wall-clock limit can stop any call.

The instruction hook cannot stop everything: an error handler of ``xpcall`` runs with hooks off, and one
``string.find`` with a backtracking pattern or one ``string.rep`` is a single instruction doing unbounded
work in C. Only a process can be stopped in the middle of those, so the runtimes live in one worker
process per (forked) process: a call that outlives ``call_seconds`` kills it, the call fails with a time
limit, and the next call starts a fresh worker. Every answer is a pure function of its request, so losing
the worker loses nothing but its caches.

The two wall-clock reads here bound a script's run time; they never decide an answer that succeeds.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.errors import FailureReason
from gitops_karmada.core.interpreter.lua.runtime import LocalExecutor, LuaFailure, LuaLimits, LuaScript

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

_STOP_GRACE_SECONDS = 1.0
_executor_ids = itertools.count(1)


@dataclasses.dataclass(frozen=True, slots=True)
class _Request:
    executor: int
    limits: LuaLimits
    resource_quota_estimate: bool
    script: LuaScript
    function: str | None
    """The function to call; None asks which of ``names`` are defined."""
    names: tuple[str, ...]
    nret: int
    args_json: bytes
    now: int | None
    forget: tuple[int, ...]
    """Executors closed since the last request: their runtimes can go."""


def _close_inherited(keep: int) -> None:
    """Close every descriptor the fork inherited but stdio and ``keep``. Among them are the parent's ends of
    its git pipes (a ``cat-file`` reading requests until its stdin closes): held open here, the parent's
    close would never reach git as the end of input, and the parent would wait on a process that never ends.
    multiprocessing's exit sentinel goes too; the parent reaps the worker with a kill and a blocking wait."""
    os.closerange(3, keep)
    os.closerange(keep + 1, _max_descriptor())


def _max_descriptor() -> int:
    try:
        return max(os.sysconf("SC_OPEN_MAX"), 256)
    except (ValueError, OSError):  # pragma: no cover - every POSIX system answers
        return 65536


def _serve(connection: Connection) -> None:
    """The worker's loop: one answer per request, ``("ok", payload)`` or ``("fail", reason, message)``."""
    # The fork inherited the parent's signal handlers (the watch daemon's SIGTERM handler only asks its loop
    # to stop): the parent's exit terminates this process with SIGTERM, which must end it. Ctrl-C reaches the
    # whole process group; the parent decides, the worker ignores it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _close_inherited(connection.fileno())
    executors: dict[int, LocalExecutor] = {}
    while True:
        try:
            request: _Request = connection.recv()
        except (EOFError, OSError):
            return
        for key in request.forget:
            executors.pop(key, None)
        executor = executors.get(request.executor)
        if executor is None:
            executor = executors[request.executor] = LocalExecutor(
                request.limits, request.resource_quota_estimate
            )
        answer: tuple[Any, ...]
        try:
            if request.function is None:
                answer = ("ok", executor.defined(request.script, request.names))
            else:
                answer = (
                    "ok",
                    executor.call(
                        request.script, request.function, request.nret, request.args_json, request.now
                    ),
                )
        except LuaFailure as failure:
            answer = ("fail", failure.reason.value, failure.message)
        except Exception as err:  # any other error is this call's, not the worker's end
            answer = ("fail", FailureReason.SCRIPT_ERROR.value, f"the Lua runtime failed: {err}")
        connection.send(answer)


class _Worker:
    """A running worker process and the parent's end of its pipe."""

    def __init__(self) -> None:
        # fork: the runtime modules are already imported, so a worker starts in milliseconds
        context = multiprocessing.get_context("fork")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), name="gitops-karmada-lua", daemon=True)
        self.process.start()
        child.close()
        self.owner = os.getpid()

    def usable(self) -> bool:
        return self.owner == os.getpid() and self.process.is_alive()

    def stop(self) -> None:
        if self.owner != os.getpid():
            return  # a forked copy of the parent's handle: the worker is not this process's child
        self.process.kill()
        self.process.join(_STOP_GRACE_SECONDS)
        self.connection.close()


_lock = threading.Lock()
_worker: _Worker | None = None
_forgotten: list[int] = []


def _ask(request: _Request, seconds: float) -> tuple[Any, ...] | None:
    """The worker's answer, or None if it took more than ``seconds`` (the worker is then stopped)."""
    global _worker  # one worker per process, shared by every sandbox
    with _lock:
        if _worker is None or not _worker.usable():
            if _worker is not None:
                _worker.stop()  # a worker that died (killed, OOM): reaped, and its pipe closed
            _worker = _Worker()
        worker = _worker
        try:
            worker.connection.send(request)
            if not worker.connection.poll(seconds):
                worker.stop()
                _worker = None
                return None
            answer: tuple[Any, ...] = worker.connection.recv()
        except (EOFError, OSError):
            worker.stop()  # reaps it: the exit code is known after the join
            code = worker.process.exitcode
            _worker = None
            raise LuaFailure(
                FailureReason.SCRIPT_ERROR, f"the Lua worker process ended (exit code {code})"
            ) from None
        return answer


class IsolatedExecutor:
    """Runs calls in the worker process; bounds each call by ``call_seconds`` and all by ``run_seconds``."""

    def __init__(self, limits: LuaLimits, resource_quota_estimate: bool) -> None:
        self._limits = limits
        # the worker has its own wall clock; an injected one is for in-process use
        self._worker_limits = dataclasses.replace(limits, clock=None, max_seconds=None, isolated=False)
        self._resource_quota_estimate = resource_quota_estimate
        self._key = next(_executor_ids)
        self._spent = 0.0
        self._closed = False

    def call(
        self, script: LuaScript, function: str, nret: int, args_json: bytes, now: int | None = None
    ) -> tuple[str, ...]:
        answer: tuple[str, ...] = self._run(script, function, (), nret, args_json, now)
        return answer

    def defined(self, script: LuaScript, names: tuple[str, ...]) -> tuple[bool, ...]:
        answer: tuple[bool, ...] = self._run(script, None, names, 0, b"", None)
        return answer

    def _run(
        self,
        script: LuaScript,
        function: str | None,
        names: tuple[str, ...],
        nret: int,
        args_json: bytes,
        now: int | None,
    ) -> Any:
        remaining = self._limits.run_seconds - self._spent
        if remaining <= 0:
            raise LuaFailure(
                FailureReason.TIME_LIMIT,
                f"the run's Lua time budget of {self._limits.run_seconds:g} s is spent",
            )
        forget = tuple(_forgotten)
        del _forgotten[: len(forget)]
        request = _Request(
            self._key,
            self._worker_limits,
            self._resource_quota_estimate,
            script,
            function,
            names,
            nret,
            args_json,
            now,
            forget,
        )
        seconds = min(self._limits.call_seconds, remaining)
        started = time.monotonic()
        try:
            answer = _ask(request, seconds)
        finally:
            self._spent += time.monotonic() - started
        if answer is None:
            if seconds < self._limits.call_seconds:
                raise LuaFailure(
                    FailureReason.TIME_LIMIT,
                    f"the run's Lua time budget of {self._limits.run_seconds:g} s is spent",
                )
            raise LuaFailure(
                FailureReason.TIME_LIMIT,
                f"time limit of {self._limits.call_seconds:g} s exceeded (the call never returned)",
            )
        if answer[0] == "fail":
            raise LuaFailure(FailureReason(answer[1]), str(answer[2]))
        return answer[1]

    def close(self) -> None:
        """Let the worker drop this executor's runtime (with the next request: closing never blocks)."""
        if not self._closed:
            self._closed = True
            _forgotten.append(self._key)

    def __del__(self) -> None:
        self.close()
