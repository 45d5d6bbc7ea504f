"""Runs git subprocesses for the Git adapter and turns their failures into ``GitError``.

Every invocation goes through here so that all of them get the same isolation: ``-c gc.auto=0`` (an
automatic gc in the middle of a commit would only cost time; ``GitStore.maintenance`` packs instead), the
C locale (messages we classify are English), and no inherited ``GIT_DIR``-style variables that would
silently point the command at another repository than the one the store was opened on. The user's
configuration files are never changed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

STDERR_TAIL_LINES = 12
STDERR_TAIL_CHARS = 2000

# Variables that select a repository, work tree or index; the store always names its repository itself.
_REPOSITORY_SELECTING_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_IMPLICIT_WORK_TREE",
)


def stderr_tail(stderr: bytes | str) -> str:
    """The last lines of git's stderr, capped, for error messages (``""`` when git said nothing)."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    tail = "\n".join(lines[-STDERR_TAIL_LINES:])
    return tail if len(tail) <= STDERR_TAIL_CHARS else "…" + tail[-STDERR_TAIL_CHARS:]


_LOCK_EXISTS = re.compile(r"Unable to create '([^']+\.lock)': File exists")


def held_lock(stderr: bytes | str) -> str | None:
    """The lock file git found in its way (``.git/index.lock``), from its stderr; None when none was."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    found = _LOCK_EXISTS.search(text)
    return found.group(1) if found else None


def lock_holder(lock: str) -> int | None:
    """The pid of a process that has ``lock`` open (Linux /proc), or None when none does (or unknown)."""
    target = os.path.realpath(lock)
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.path.realpath(fd) == target:
                    return int(entry.name)
        except OSError:
            continue
    return None


def lock_message(lock: str) -> str:
    """What to do about a lock file in the way: wait for its holder, or remove it when nobody holds it."""
    holder = lock_holder(lock)
    if holder is not None:
        return (
            f"process {holder} holds {lock} (another git command is at work here): retry when it has finished"
        )
    return (
        f"{lock} exists but no process holds it, so a git command that crashed left it behind: "
        f"remove it (rm {lock}) and rerun"
    )


_DIED_OF_SIGNAL = re.compile(r"died of signal (\d+)")


def died_of(returncode: int) -> str:
    """`` (killed by SIGNAME)`` for a git process a signal ended, which then says nothing on stderr; else
    "". SIGXFSZ is a file size limit reached: no room to write."""
    if returncode >= 0:
        return ""
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    room = ": the file size limit, no room to write" if name == "SIGXFSZ" else ""
    return f" (killed by {name}{room})"


def git_error(operation: str, what: str, stderr: bytes | str = b"", *, temporary: bool = False) -> GitError:
    """A ``GitError`` whose detail is ``what`` followed by the tail of git's stderr.

    A lock file in the way gets its own message (whether to wait or to remove it) and is temporary when a
    live process holds it.
    """
    lock = held_lock(stderr)
    if lock is not None:
        held = lock_holder(lock) is not None
        return GitError(operation, f"{what}: {lock_message(lock)}", temporary=temporary or held)
    tail = stderr_tail(stderr)
    # a child of git killed by a signal ("unpack-objects died of signal 25") says no more than its number
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    found = _DIED_OF_SIGNAL.search(text)
    if found is not None:
        tail += died_of(-int(found.group(1)))
    return GitError(operation, f"{what}: {tail}" if tail else what, temporary=temporary)


def git_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a git subprocess: ours minus repository selectors, in the C locale."""
    env = {key: value for key, value in os.environ.items() if key not in _REPOSITORY_SELECTING_VARIABLES}
    env["LC_ALL"] = "C"
    env.pop("LANGUAGE", None)
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True, slots=True)
class GitRunner:
    """Runs git in one directory (a work tree root or a git directory)."""

    root: Path

    def at(self, root: Path) -> GitRunner:
        """The same runner for another directory of the same repository (a linked work tree)."""
        return GitRunner(root)

    def argv(self, args: Sequence[str]) -> list[str]:
        return ["git", "-C", str(self.root), "-c", "gc.auto=0", *args]

    def run(
        self,
        args: Sequence[str],
        *,
        operation: str,
        what: str,
        stdin: bytes | None = None,
        env: Mapping[str, str] | None = None,
        ok_codes: Sequence[int] = (0,),
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run to completion; a return code outside ``ok_codes`` raises ``GitError(operation, what…)``."""
        try:
            done = subprocess.run(
                self.argv(args),
                input=stdin,
                capture_output=True,
                env=git_environment(env),
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise git_error(
                operation, f"{what}: timed out after {timeout}s", exc.stderr or b"", temporary=True
            ) from exc
        except FileNotFoundError as exc:
            raise GitError(operation, "the git executable was not found on PATH") from exc
        if done.returncode not in ok_codes:
            raise git_error(operation, what, done.stderr)
        return done

    def text(
        self, args: Sequence[str], *, operation: str, what: str, env: Mapping[str, str] | None = None
    ) -> str:
        """Stdout of a successful command, decoded, without the trailing newline."""
        out = self.run(args, operation=operation, what=what, env=env).stdout
        return out.decode("utf-8", "surrogateescape").removesuffix("\n")

    def succeeds(self, args: Sequence[str]) -> bool:
        """Whether the command exits 0 (for questions git answers with its exit code)."""
        done = subprocess.run(self.argv(args), capture_output=True, env=git_environment(), check=False)
        return done.returncode == 0

    def spawn(self, args: Sequence[str], *, stderr: IO[bytes]) -> subprocess.Popen[bytes]:
        """A long-lived git process with piped stdin/stdout (``cat-file --batch``, ``fast-import``)."""
        try:
            return subprocess.Popen(
                self.argv(args),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=git_environment(),
            )
        except FileNotFoundError as exc:
            raise GitError(args[0], "the git executable was not found on PATH") from exc
