"""Independent per-template work across processes (``core.fan_out.FanOut``), for runs that redo thousands
of templates (a first reconcile, a ``--full`` run, an inventory change).

The children are forked: they see the loaded fleet as it is in this process, without it being sent, and
send back only their results (pickled, through a pipe). This process does the first chunk itself. A child
that fails or dies is not trusted: its chunk is redone here, so an error surfaces exactly as in a run
without children. Forking is skipped where it is not safe (other threads running, e.g. the daemon's web
server; no ``os.fork``) or not worth it (too few items per worker).

How many processes: ``GITOPS_KARMADA_WORKERS`` when set (1: never fork), else the CPUs this process may use
(its affinity, capped by a cgroup v2 CPU quota, as a container's limit sets it).

A child holds copies of this process's descriptors, the ends of its ``git cat-file`` pipes among them,
until it exits: git would not see the end of its input while a child lives. Nothing closes such a pipe
while children run (the work is the pure core's), and every child has exited when ``__call__`` returns.
The children keep the descriptors rather than close them: objects they inherit (the Lua worker's handle)
would close the numbers again later, and might close a descriptor opened since under the same number. A
child that needs the Lua worker starts its own (``core.interpreter.lua.worker`` checks the owner's pid).
"""

from __future__ import annotations

import itertools
import os
import pickle
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from loguru import logger

from gitops_karmada.model.errors import AdapterError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

_T = TypeVar("_T")
_R = TypeVar("_R")

MIN_PER_WORKER = 256
"""Items below which a worker costs more (fork, pickling the results back) than it saves."""

REPORTS = 100
"""Reports to ``done`` over a whole call (at most: never fewer than one item between two)."""


WORKERS_VARIABLE = "GITOPS_KARMADA_WORKERS"
CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def usable_cpus(cpu_max: Path = CGROUP_CPU_MAX) -> int:
    """CPUs this process may use: its affinity (a container's CPU set), capped by the cgroup v2 quota
    (``cpu.max``: ``<quota> <period>``, or ``max``), rounded up."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        quota, _, period = cpu_max.read_text(encoding="ascii").strip().partition(" ")
        limit = -(-int(quota) // int(period))
    except (OSError, ValueError, ZeroDivisionError):  # no cgroup v2 file, or ``max``: no quota
        return cpus
    return max(1, min(cpus, limit))


def configured_workers(environ: Mapping[str, str] = os.environ) -> int:
    """``GITOPS_KARMADA_WORKERS`` (a whole number, at least 1) when set, else ``usable_cpus()``."""
    raw = environ.get(WORKERS_VARIABLE, "").strip()
    if not raw:
        return usable_cpus()
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise AdapterError(f"{WORKERS_VARIABLE} must be a whole number of processes (1 or more), not {raw!r}")
    return int(raw)


@dataclass(frozen=True, slots=True)
class ForkPool:
    workers: int = field(default_factory=configured_workers)
    min_per_worker: int = MIN_PER_WORKER
    with_threads: bool = False
    """Fork even while other threads run (tests; a thread holding a lock at the fork would leave it held in
    the child)."""

    def __call__(
        self,
        work: Callable[[Sequence[_T]], list[_R]],
        items: Sequence[_T],
        done: Callable[[int], None] | None = None,
    ) -> list[_R]:
        count = min(self.workers, len(items) // max(self.min_per_worker, 1))
        if count < 2 or not hasattr(os, "fork") or (threading.active_count() > 1 and not self.with_threads):
            return _reporting(work, items, done, len(items), 1)
        logger.bind(logger="fork-pool").debug("{} item(s) over {} processes", len(items), count)
        bounds = [len(items) * i // count for i in range(count + 1)]
        chunks = [items[start:end] for start, end in itertools.pairwise(bounds)]
        # the children first: ``done`` may start a thread (a terminal's progress bar), after which no fork
        children = [_Child.start(work, chunk) for chunk in chunks[1:]]
        try:
            # the children go about as fast as this process: its count times theirs is the estimate
            results = _reporting(work, chunks[0], done, len(items), count)
        except BaseException:
            for child in children:
                child.stop()
            raise
        for child, chunk in zip(children, chunks[1:], strict=True):
            results.extend(child.collect(work, chunk))
        if done is not None:
            done(len(items))
        return results


def _reporting(
    work: Callable[[Sequence[_T]], list[_R]],
    items: Sequence[_T],
    done: Callable[[int], None] | None,
    total: int,
    scale: int,
) -> list[_R]:
    """``work(items)``, in slices when ``done`` wants to know (told ``scale`` times the items done here,
    short of ``total``)."""
    if done is None:
        return work(items)
    step = max(1, total // REPORTS)
    results: list[_R] = []
    for start in range(0, len(items), step):
        done(min(start * scale, total - 1))
        results.extend(work(items[start : start + step]))
    return results


@dataclass(frozen=True, slots=True)
class _Child:
    pid: int
    reader: int

    @classmethod
    def start(cls, work: Callable[[Sequence[_T]], list[_R]], chunk: Sequence[_T]) -> _Child:
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's lines run in another process
            _serve(work, chunk, reader, writer)
        os.close(writer)
        return cls(pid, reader)

    def collect(self, work: Callable[[Sequence[_T]], list[_R]], chunk: Sequence[_T]) -> list[_R]:
        """The child's results; its chunk redone here when it failed (the error then raises here)."""
        with os.fdopen(self.reader, "rb") as source:
            payload = source.read()
        _, status = os.waitpid(self.pid, 0)
        try:
            ok, found = pickle.loads(payload) if payload else (False, f"no result (wait status {status})")
        except (pickle.UnpicklingError, EOFError, ValueError) as problem:
            ok, found = False, f"an unreadable result ({problem})"
        if ok:
            return list(found)
        logger.bind(logger="fork-pool").warning(
            "a worker process failed on {} item(s): {}; they are redone in this process", len(chunk), found
        )
        return work(chunk)

    def stop(self) -> None:
        os.close(self.reader)
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _serve(work: Callable[[Sequence[_T]], list[_R]], chunk: Sequence[_T], reader: int, writer: int) -> None:
    """The child: compute, send, and leave without the parent's exit handlers (they are the parent's)."""
    status = 0
    try:
        os.close(reader)
        try:
            payload = pickle.dumps((True, work(chunk)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as problem:  # the parent redoes the chunk and raises it
            payload = pickle.dumps((False, f"{type(problem).__name__}: {problem}"))
        with os.fdopen(writer, "wb") as sink:
            sink.write(payload)
    except BaseException:  # nothing to report to: the parent sees no result
        status = 1
    finally:
        os._exit(status)
