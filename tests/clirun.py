"""The ``gitops-karmada`` command line for tests: in this process (the default, no interpreter start-up) or
in a subprocess (``python -m gitops_karmada``, for what only a process shows).

An in-process call behaves like the subprocess for a test's purpose: the same exit code (``sys.exit``'s,
1 with a traceback on stderr for an uncaught exception), stdout and stderr as text (read back as
``subprocess.run(text=True)`` reads a pipe: UTF-8, universal newlines), the working directory and the
environment variables given for the call, an empty stdin that is not a terminal (nor is either output).
Whatever the CLI sets for itself in the process is undone after the call: the working directory, the
environment, ``sys.argv`` and the standard streams, the signal handlers, the garbage collector's thresholds
and frozen objects (``adapters.gc_tuning``), and loguru's sinks, which ``configure_logging`` points at the
captured stderr.
"""

from __future__ import annotations

import gc
import io
import os
import signal
import subprocess
import sys
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.cli import main
from gitops_karmada.cli.logs import configure_logging, logging_format

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from loguru import Record

COMMAND = (sys.executable, "-m", "gitops_karmada")
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The signals whose handlers ``watch`` sets."""


def cli_process(
    cwd: Path, args: Sequence[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``gitops-karmada *args`` in a subprocess in ``cwd``, with ``env`` added to this process's environment."""
    return subprocess.run(
        [*COMMAND, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )


def cli_in_process(
    cwd: Path, args: Sequence[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``gitops-karmada *args`` run by ``gitops_karmada.cli.main`` in this process, as ``cli_process`` runs
    it in another."""
    stdout, stderr = _pipe(), _pipe(errors="backslashreplace")
    with _process_state(cwd, env or {}):
        sys.argv = ["gitops-karmada", *args]
        sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        sys.stdout, sys.stderr = stdout, stderr
        try:
            main(list(args))
            code = 0
        except SystemExit as exit_:
            code = _exit_status(exit_.code, stderr)
        except Exception:
            traceback.print_exc(file=stderr)
            code = 1
        finally:
            stdout.flush()
            stderr.flush()
    return subprocess.CompletedProcess([*COMMAND, *args], code, _read_back(stdout), _read_back(stderr))


def _pipe(errors: str = "strict") -> io.TextIOWrapper:
    """A text stream over bytes, as a child's stdout or stderr on a pipe (with ``.buffer``, not a TTY)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _read_back(stream: io.TextIOWrapper) -> str:
    """What ``subprocess.run(text=True)`` reads from the pipe: UTF-8 with universal newlines."""
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return io.TextIOWrapper(io.BytesIO(raw.getvalue()), encoding="utf-8").read()


def _exit_status(code: object, stderr: io.TextIOWrapper) -> int:
    """The process's exit status for ``sys.exit(code)``: None is 0, another non-integer is printed, then 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=stderr)
    return 1


def _unpatched(record: Record) -> None:
    """loguru's records as they come (the CLI's patcher adds the text format's fields)."""


@contextmanager
def _process_state(cwd: Path, env: Mapping[str, str]) -> Iterator[None]:
    environ = dict(os.environ)
    directory = Path.cwd()
    streams = (sys.stdin, sys.stdout, sys.stderr)
    argv = list(sys.argv)
    thresholds = gc.get_threshold()
    collecting = gc.isenabled()
    frozen = gc.get_freeze_count()
    log_format = logging_format()
    threads = set(threading.enumerate())
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    try:
        os.environ.update(env)
        os.chdir(cwd)
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        sys.argv = argv
        for number, handler in handlers.items():
            signal.signal(number, handler)
        os.chdir(directory)
        for name in os.environ.keys() - environ.keys():
            del os.environ[name]
        for name, value in environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        # the CLI's gc tuning: thresholds for its run, the objects imported so far frozen out of the scans
        gc.set_threshold(*thresholds)
        if collecting:
            gc.enable()
        if gc.get_freeze_count() and not frozen:
            gc.unfreeze()
        # the CLI routes loguru to the stderr of its call: back to the format before, with no sink at all
        configure_logging("info", log_format)
        logger.remove()
        logger.configure(patcher=_unpatched)
        # a process's exit ends its threads; here they must end with the call, or the next call (and a fork
        # pool's choice, which forks only with no other thread) would run beside them
        for thread in set(threading.enumerate()) - threads:
            thread.join(timeout=10)
            assert not thread.is_alive(), f"the CLI left the thread {thread.name} running"
