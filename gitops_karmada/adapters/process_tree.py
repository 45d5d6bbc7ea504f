"""Finding and killing this process's own children by what they run, from ``/proc`` (Linux).

Used to abandon a ``git fetch`` that hangs when the daemon is asked to stop: GitPython keeps the process to
itself, so it is found by the unique landing ref on its command line, and killed with everything it started
(an SSH command, a remote helper), leaving no orphans.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")


def _parents() -> dict[int, int]:
    """pid → parent pid of every process visible now."""
    found: dict[int, int] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it ended meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")"
        fields = stat.rpartition(")")[2].split()
        if len(fields) > 1:
            found[int(entry.name)] = int(fields[1])
    return found


def _command_line(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def kill_children_running(marker: str) -> int:
    """SIGKILL every child of this process whose command line contains ``marker``, and all their
    descendants; the number of children found."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    roots = [pid for pid in children.get(os.getpid(), []) if marker in _command_line(pid)]
    doomed: list[int] = []
    stack = list(roots)
    while stack:
        pid = stack.pop()
        doomed.append(pid)
        stack.extend(children.get(pid, []))
    for pid in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(roots)
