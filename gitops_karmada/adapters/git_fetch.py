"""Fetching from a remote through GitPython: the remote handle, transfer progress, and credentials.

The bulk paths stay where measurement put them (``ls-tree``, ``cat-file --batch`` and ``fast-import`` pipes,
and the porcelain push whose rejection reasons drive the retry); a fetch is where GitPython earns its place:
``Remote.fetch`` reports the transfer as it happens (logged at debug level, one line per stage and tenth,
so a daemon's log says what a slow fetch is doing), takes a timeout, and runs with the credential
environment the daemon was given (``RemoteAccess``: an SSH command or key, an askpass program).
"""

from __future__ import annotations

import os
import secrets
import shlex
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loguru import logger

from gitops_karmada.adapters.git_process import git_error
from gitops_karmada.adapters.git_remote import is_transient_failure
from gitops_karmada.adapters.process_tree import kill_children_running
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

NETWORK_TIMEOUT_SECONDS = 600.0
LANDING_PREFIX = "refs/gitops-karmada/tmp/fetch-"
"""Each fetch lands in a ref of its own, ``<prefix><pid>-<token>``: its command line names this process."""


@dataclass(frozen=True, slots=True)
class RemoteAccess:
    """How git authenticates to remotes, as environment variables for the fetch and push subprocesses."""

    ssh_key: str | None = None
    """A private key file: ``ssh -i KEY -o IdentitiesOnly=yes`` (host keys still checked)."""
    ssh_command: str | None = None
    """A whole SSH command (``GIT_SSH_COMMAND``); wins over ``ssh_key``."""
    askpass: str | None = None
    """A program that prints a username or password when git asks (``GIT_ASKPASS``, for HTTPS tokens)."""

    def environment(self) -> dict[str, str]:
        # a reconciler runs unattended: a missing credential must fail the run, not wait for a prompt
        env = {"GIT_TERMINAL_PROMPT": "0"}
        if self.ssh_command:
            env["GIT_SSH_COMMAND"] = self.ssh_command
        elif self.ssh_key:
            env["GIT_SSH_COMMAND"] = (
                f"ssh -i {shlex.quote(self.ssh_key)} -o IdentitiesOnly=yes -o BatchMode=yes"
            )
        if self.askpass:
            env["GIT_ASKPASS"] = self.askpass
        return env


_STAGES = {
    1 << 2: "counting objects",
    1 << 3: "compressing objects",
    1 << 4: "writing objects",
    1 << 5: "receiving objects",
    1 << 6: "resolving deltas",
    1 << 7: "finding sources",
    1 << 8: "checking out",
}


def _progress(what: str) -> Any:
    """A GitPython ``RemoteProgress`` that logs each stage at every tenth of the way (debug level)."""
    from git import RemoteProgress

    class Progress(RemoteProgress):
        def __init__(self) -> None:
            super().__init__()
            self._shown: dict[int, int] = {}

        def update(
            self,
            op_code: int,
            cur_count: str | float,
            max_count: str | float | None = None,
            message: str = "",
        ) -> None:
            stage = op_code & RemoteProgress.OP_MASK
            if not max_count:
                return
            tenth = int(float(cur_count) * 10 / float(max_count))
            if self._shown.get(stage) == tenth:
                return
            self._shown[stage] = tenth
            logger.bind(logger="git", operation="fetch", stage=_STAGES.get(stage, str(stage))).debug(
                "{}: {} {}% ({}/{})", what, _STAGES.get(stage, "progress"), tenth * 10, int(float(cur_count)),
                int(float(max_count)),
            )  # fmt: skip

    return Progress()


@contextmanager
def _warn_while_slow(what: str, every: float | None) -> Iterator[None]:
    """Log a warning every ``every`` seconds for as long as the block runs (a fetch that hangs says so)."""
    if every is None:
        yield
        return
    done = threading.Event()
    started = time.monotonic()

    def warn() -> None:
        while not done.wait(every):
            logger.bind(logger="git", operation="fetch").warning(
                "{}: no answer after {:.0f} s; still waiting (the fetch gives up after {:.0f} s)",
                what,
                time.monotonic() - started,
                NETWORK_TIMEOUT_SECONDS,
            )

    thread = threading.Thread(target=warn, name="slow-fetch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def abandon_fetches() -> int:
    """Kill this process's fetches in flight (and what they started); each ends in a ``GitError``. For a
    daemon asked to stop, which must not wait out ``NETWORK_TIMEOUT_SECONDS``. The number killed."""
    return kill_children_running(f"{LANDING_PREFIX}{os.getpid()}-")


def _stderr(progress: Any, err: Any) -> str:
    """git's stderr as it failed. GitPython keeps only the ``fatal:`` and ``error:`` lines as the error's
    stderr; the cause is often on the lines before (ssh's ``Could not resolve hostname``, ``Permission
    denied``), which it files as ``other_lines``."""
    causes = [line for line in getattr(progress, "other_lines", []) if line.strip() and not line[0].isspace()]
    return "\n".join([*causes[-5:], str(err.stderr or "").strip()])


def fetch_branch(
    git_dir: Path, remote: str, branch: str, access: RemoteAccess, *, warn_after: float | None = None
) -> str:
    """Fetch ``branch`` of the configured ``remote``; return the commit its remote branch points at.

    Lands in a private ref (removed afterwards), so the answer does not depend on FETCH_HEAD or on the
    remote's refspecs. Network failures are ``GitError(temporary=True)``; a missing branch or remote, or
    refused credentials, are permanent. ``warn_after``: a warning every so many seconds while it lasts.
    """
    import git

    landing = f"{LANDING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    what = f"fetching {branch} from {remote}"
    repo = git.Repo(git_dir)
    try:
        try:
            handle = repo.remote(remote)
        except ValueError:
            raise GitError("fetch", f"{what}: the repository has no remote {remote!r}") from None
        with repo.git.custom_environment(**access.environment()), _warn_while_slow(what, warn_after):
            progress = _progress(what)
            try:
                handle.fetch(
                    f"+refs/heads/{branch}:{landing}",
                    progress=progress,
                    no_tags=True,
                    kill_after_timeout=NETWORK_TIMEOUT_SECONDS,
                )
            except git.GitCommandError as err:
                stderr = _stderr(progress, err)
                if "couldn't find remote ref" in stderr.lower():
                    raise git_error("fetch", f"{remote} has no branch {branch}", stderr) from None
                raise git_error("fetch", what, stderr, temporary=is_transient_failure(stderr)) from None
        try:
            return str(repo.commit(landing).hexsha)
        finally:
            repo.git.update_ref("-d", landing)
    finally:
        repo.close()
