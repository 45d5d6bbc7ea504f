"""Runs git subprocesses for the Git adapter and turns their failures into ``GitError``.

Every invocation goes through here so that all of them get the same isolation: ``-c gc.auto=0`` (an
automatic gc in the middle of a commit would only cost time; ``GitStore.maintenance`` packs instead), the
C locale (messages we classify are English), and no inherited ``GIT_DIR``-style variables that would
silently point the command at another repository than the one the store was opened on. The user's
configuration files are never changed.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

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


def git_error(operation: str, what: str, stderr: bytes | str = b"", *, temporary: bool = False) -> GitError:
    """A ``GitError`` whose detail is ``what`` followed by the tail of git's stderr."""
    tail = stderr_tail(stderr)
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
