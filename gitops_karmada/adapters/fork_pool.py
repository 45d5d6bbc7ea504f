"""Independent per-template work across processes (``reconcile.request.FanOut``), for runs that redo
thousands of templates (a first reconcile, a ``--full`` run, an inventory change).

The children are forked: they see the loaded fleet as it is in this process, without it being sent, and send
back only their results. The items are cut into slices, many more than the processes; every process, this one
included, takes the next slice from a shared queue of tickets (a pipe filled before the fork) until none is
left, so a process that also unpickles (this one) or pickles (a child) simply takes fewer, and none waits for
another at the end. A child writes each slice's results to a file of its own (in memory) as one pickle of a
stream whose memo lasts the whole call, so what many results share (a scheduling explanation, a cluster) is
sent once, and tells this process where through a pipe; this process unpickles them between its own slices. A
child that fails or dies is not trusted: every slice it took, delivered or not, is redone here, so an error
surfaces exactly as in a run without children. ``finish`` runs in each child after its last slice (its blob
stream is sealed there, ``adapters.git_blob_stream``); a child whose ``finish`` fails has failed. Forking is
skipped where it is not safe (other threads running, e.g. the daemon's web server; no ``os.fork``) or not
worth it (too few items per worker).

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

import contextlib
import gc
import io
import os
import pickle
import signal
import struct
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from loguru import logger

from gitops_karmada.model.errors import AdapterError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

_T = TypeVar("_T")
_R = TypeVar("_R")

MIN_PER_WORKER = 256
"""Items below which a worker costs more (fork, pickling the results back) than it saves."""

REPORTS = 100
"""Reports to ``done`` over a whole call done in this process alone (at most: never fewer than one item
between two)."""

SLICES_PER_PROCESS = 32
"""Slices per process: enough that the processes end within a slice of each other, few enough that the
messages and pickling per slice cost nothing to speak of."""

MAX_SLICES = 16_000
"""The tickets (4 bytes each) must fit in a pipe's buffer (64 KiB on Linux) before any process reads one."""


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
    finish: Callable[[], None] | None = None
    """Run in each child after its last slice, before it exits: what its results rely on is completed there
    (its blob stream sealed). When it raises, none of the child's results are trusted."""

    def __call__(
        self,
        work: Callable[[Sequence[_T]], list[_R]],
        items: Sequence[_T],
        done: Callable[[int], None] | None = None,
    ) -> list[_R]:
        count = min(self.workers, len(items) // max(self.min_per_worker, 1))
        if count < 2 or not hasattr(os, "fork") or (threading.active_count() > 1 and not self.with_threads):
            return _reporting(work, items, done)
        logger.bind(logger="fork-pool").debug("{} item(s) over {} processes", len(items), count)
        size = -(-len(items) // min(count * SLICES_PER_PROCESS, MAX_SLICES))
        slices = [items[start : start + size] for start in range(0, len(items), size)]
        return _Spread(work, slices, done, len(items), self.finish).run(count - 1)


def _reporting(
    work: Callable[[Sequence[_T]], list[_R]], items: Sequence[_T], done: Callable[[int], None] | None
) -> list[_R]:
    """``work(items)`` in this process, in slices when ``done`` wants to know."""
    if done is None:
        return work(items)
    step = max(1, len(items) // REPORTS)
    results: list[_R] = []
    for start in range(0, len(items), step):
        done(start)
        results.extend(work(items[start : start + step]))
    return results


_NOTE = struct.Struct(">IBQQ")
"""A child's note: a slice's number, what the note says (``_TOOK``, ``_DONE``, ``_FAILED``), and where its
message is in the child's file and how long it is."""

_TOOK, _DONE, _FAILED = 0, 1, 2
"""A slice was taken; its results were written (one pickle of a stream whose memo lasts the whole call, so
an object the slices share, a scheduling explanation or a cluster, is sent once); the work failed (a
pickle of its own: why)."""


class _Tickets:
    """The slices' numbers in a pipe, written before any fork: a read of one ticket is atomic, so every
    process takes each slice exactly once, and an empty pipe with no writer left says there is none."""

    def __init__(self, count: int) -> None:
        self.reader, writer = os.pipe()
        try:
            os.write(writer, b"".join(i.to_bytes(4, "big") for i in range(count)))
        finally:
            os.close(writer)

    def take(self) -> int | None:
        ticket = os.read(self.reader, 4)
        return int.from_bytes(ticket, "big") if ticket else None

    def close(self) -> None:
        os.close(self.reader)


@dataclass
class _Child:
    """A forked child: its notes come through a pipe (small, so writing one never waits on this process),
    its results go to a file of its own, which this process reads at the offsets the notes give."""

    pid: int
    notes: int
    results: int
    """The file's descriptor (an anonymous memory file where there is one)."""
    pending: bytearray = field(default_factory=bytearray)
    taken: set[int] = field(default_factory=set)
    delivered: set[int] = field(default_factory=set)
    failure: str = ""
    ended: bool = False
    stream: _FileAt = field(init=False)
    unpickler: pickle.Unpickler = field(init=False)

    def __post_init__(self) -> None:
        self.stream = _FileAt(self.results)
        self.unpickler = pickle.Unpickler(self.stream)

    @classmethod
    def start(
        cls,
        work: Callable[[Sequence[_T]], list[_R]],
        slices: Sequence[Sequence[_T]],
        tickets: _Tickets,
        finish: Callable[[], None] | None,
    ) -> _Child:
        results = _results_file()
        reader, writer = os.pipe()
        try:
            pid = os.fork()
        except BaseException:
            for descriptor in (results, reader, writer):
                os.close(descriptor)
            raise
        if pid == 0:  # pragma: no cover - the child's lines run in another process
            _serve(work, slices, tickets, reader, writer, results, finish)
        os.close(writer)
        os.set_blocking(reader, False)
        return cls(pid, reader, results)

    def read_notes(self, *, block: bool) -> list[tuple[int, int, int, int]]:
        """The notes that have come (``block``: every note, until the child closes its end)."""
        os.set_blocking(self.notes, block)
        while not self.ended:
            try:
                chunk = os.read(self.notes, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                self.ended = True
                break
            self.pending += chunk
        whole = len(self.pending) - len(self.pending) % _NOTE.size
        found = [_NOTE.unpack_from(self.pending, at) for at in range(0, whole, _NOTE.size)]
        del self.pending[:whole]
        return found

    def next_results(self, offset: int, length: int) -> tuple[bool, Any]:
        """The results the child wrote at ``offset`` (the stream's next pickle)."""
        if self.stream.offset != offset:
            return False, f"a result out of order (at {offset}, expected {self.stream.offset})"
        found = self.unpickler.load()
        if self.stream.offset != offset + length:
            return False, f"a result of the wrong length (to {self.stream.offset}, not {offset + length})"
        return True, found

    def failure_at(self, offset: int, length: int) -> str:
        return str(pickle.loads(self.stream.read_at(offset, length)))

    def finish(self, *, stop: bool) -> None:
        """Wait for the child (killed first when ``stop``) and close what this process holds of it."""
        if stop:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            _, status = os.waitpid(self.pid, 0)
            if status and not self.failure:
                self.failure = f"no result (wait status {status})"
        os.close(self.notes)
        os.close(self.results)


class _FileAt:
    """Reads a child's file from this process's own offset (``os.pread``: the descriptor's offset is the
    child's, which writes through it), as ``pickle.Unpickler`` reads a file."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        self.offset = 0

    def read_at(self, offset: int, size: int) -> bytes:
        parts = []
        while size > 0:
            part = os.pread(self.descriptor, size, offset)
            if not part:
                break
            parts.append(part)
            offset += len(part)
            size -= len(part)
        return b"".join(parts)

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = os.fstat(self.descriptor).st_size - self.offset
        data = self.read_at(self.offset, size)
        self.offset += len(data)
        return data

    def readline(self) -> bytes:
        line = bytearray()
        while not line.endswith(b"\n"):
            byte = self.read(1)
            if not byte:
                break
            line += byte
        return bytes(line)


def _results_file() -> int:
    """A file for one child's results, gone when its last descriptor closes: in memory where Linux offers
    that, else an unlinked temporary file."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("gitops-karmada-fork-pool", os.MFD_CLOEXEC)
    with tempfile.TemporaryFile() as handle:
        return os.dup(handle.fileno())


class _Spread(Generic[_T, _R]):
    """One call's slices over this process and ``children`` forked ones; ``done`` is told the items done
    here and delivered so far (short of the total until the end)."""

    def __init__(
        self,
        work: Callable[[Sequence[_T]], list[_R]],
        slices: Sequence[Sequence[_T]],
        done: Callable[[int], None] | None,
        total: int,
        finish: Callable[[], None] | None = None,
    ) -> None:
        self.work = work
        self.finish = finish
        self.slices = slices
        self.done = done
        self.total = total
        self.results: dict[int, list[_R]] = {}
        self.finished = 0

    def run(self, children: int) -> list[_R]:
        tickets = _Tickets(len(self.slices))
        first = tickets.take()  # this process does the first slice
        started: list[_Child] = []
        try:
            started.extend(
                _Child.start(self.work, self.slices, tickets, self.finish) for _ in range(children)
            )
            index = first
            while index is not None:
                self._own(index)
                for child in started:
                    self._receive(child, block=False)
                index = tickets.take()
            for child in started:
                self._receive(child, block=True)
        except BaseException:
            for child in started:
                child.finish(stop=True)
            tickets.close()
            raise
        for child in started:
            child.finish(stop=False)
        tickets.close()
        self._redo_untrusted(started)
        if self.done is not None:
            self.done(self.total)
        return [result for index in range(len(self.slices)) for result in self.results[index]]

    def _own(self, index: int) -> None:
        self.results[index] = self.work(self.slices[index])
        self._count(len(self.slices[index]))

    def _count(self, items: int) -> None:
        self.finished += items
        if self.done is not None:
            self.done(min(self.finished, self.total - 1))

    def _receive(self, child: _Child, *, block: bool) -> None:
        for index, kind, offset, length in child.read_notes(block=block):
            if kind == _TOOK:
                child.taken.add(index)
            elif child.failure:
                continue  # nothing after a failure is trusted
            elif kind == _FAILED:
                child.failure = child.failure_at(offset, length)
            else:
                self._delivered(child, index, offset, length)

    def _delivered(self, child: _Child, index: int, offset: int, length: int) -> None:
        # thousands of objects at once: the collector would walk the heap several times for none of them
        collecting = gc.isenabled()
        gc.disable()
        try:
            ok, found = child.next_results(offset, length)
        except (pickle.UnpicklingError, EOFError, ValueError, AttributeError, ImportError) as problem:
            ok, found = False, f"an unreadable result ({type(problem).__name__}: {problem})"
        finally:
            if collecting:
                gc.enable()
        if not ok:
            child.failure = str(found)
            return
        self.results[index] = list(found)
        child.delivered.add(index)
        self._count(len(self.slices[index]))

    def _redo_untrusted(self, children: Sequence[_Child]) -> None:
        """The slices a child took and did not deliver, and every slice of a child that failed, redone here
        in order (an error then raises here)."""
        for child in children:
            if child.failure:
                for index in child.delivered:
                    del self.results[index]
        missing = [i for i in range(len(self.slices)) if i not in self.results]
        owners = {i: child for child in children for i in child.taken}
        for child in children:
            mine = [i for i in missing if owners.get(i) is child or (i not in owners and child.failure)]
            if mine or child.failure:
                logger.bind(logger="fork-pool").warning(
                    "a worker process failed on {} item(s): {}; they are redone in this process",
                    sum(len(self.slices[i]) for i in mine),
                    child.failure or "no result",
                )
        for index in missing:
            self._own(index)


def _serve(
    work: Callable[[Sequence[_T]], list[_R]],
    slices: Sequence[Sequence[_T]],
    tickets: _Tickets,
    reader: int,
    writer: int,
    results: int,
    finish: Callable[[], None] | None,
) -> None:
    """The child: take slices until none is left, writing each one's results to its file and a note of
    where they are, then ``finish``; leave without the parent's exit handlers (they are the parent's)."""
    status = 0
    try:
        os.close(reader)
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        offset = 0
        while (index := tickets.take()) is not None:
            _write_all(writer, _NOTE.pack(index, _TOOK, 0, 0))
            buffer.seek(0)
            buffer.truncate()
            try:
                pickler.dump(work(slices[index]))
                kind, payload = _DONE, buffer.getvalue()
            except BaseException as problem:  # the parent redoes the slice and raises it
                kind, payload = _FAILED, pickle.dumps(f"{type(problem).__name__}: {problem}")
            _write_all(results, payload)
            _write_all(writer, _NOTE.pack(index, kind, offset, len(payload)))
            offset += len(payload)
            if kind == _FAILED:
                break
        if finish is not None:
            try:
                finish()
            except BaseException as problem:  # the parent trusts none of this child's results
                payload = pickle.dumps(f"{type(problem).__name__}: {problem}")
                _write_all(results, payload)
                _write_all(writer, _NOTE.pack(len(slices), _FAILED, offset, len(payload)))
                status = 1
    except BaseException:  # nothing to report to: the parent sees no result
        status = 1
    finally:
        os._exit(status)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
