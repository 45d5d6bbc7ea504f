"""Talks to remotes for the Git adapter: a branch's configured upstream, pushing a ref, with or without a
lease on the remote's tip (the fetch is in ``git_fetch``, through GitPython).

A push rejected because the remote branch moved on, and a network failure, are ``GitError(temporary=True)``
(the caller fetches, rerenders and retries); everything else is permanent. Pushes and ``ls-remote`` carry a
harmless configuration entry naming this process on their command line, by which ``abandon_remote_calls``
finds and kills them (a daemon asked to stop must not wait out ``NETWORK_TIMEOUT_SECONDS``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_process import GitRunner, git_error, stderr_tail
from gitops_karmada.adapters.process_tree import kill_children_running
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Mapping

NETWORK_TIMEOUT_SECONDS = 600.0
# A reconciler runs unattended: a missing credential must fail the run, not wait for a password prompt.
_UNATTENDED = {"GIT_TERMINAL_PROMPT": "0"}
_PERMANENT_MARKERS = (
    "does not appear to be a git repository",
    "couldn't find remote ref",
    "authentication failed",
    "permission denied",
    "repository not found",
    "invalid refspec",
)
_TRANSIENT_MARKERS = (
    "could not resolve host",
    "could not resolve hostname",
    "temporary failure in name resolution",
    "connection refused",
    "connection reset",
    "connection timed out",
    "operation timed out",
    "timed out",
    "network is unreachable",
    "no route to host",
    "the remote end hung up unexpectedly",
    "early eof",
    "rpc failed",
    "could not read from remote repository",
    "unable to access",
    "http 5",
    "returned error: 5",
)
# Reasons in ``git push --porcelain`` output that mean "someone else updated the branch first".
_RACE_REASONS = ("non-fast-forward", "fetch first", "stale info", "cannot lock ref", "failed to update ref")


def _mark() -> str:
    """``-c`` value on the command line of this process's pushes and ls-remotes (the pid at call time: a
    forked process marks its own)."""
    return f"gitops-karmada.abandonable={os.getpid()}"


def abandon_remote_calls() -> int:
    """Kill this process's pushes and ls-remotes in flight (and what they started: an SSH command, the
    remote's receive-pack and hooks on a local remote); each ends in a ``GitError``. The number killed."""
    return kill_children_running(f"-c {_mark()} ")


def is_transient_failure(stderr: str) -> bool:
    """Whether git's stderr describes a network problem that a later retry may not have."""
    text = stderr.lower()
    if any(marker in text for marker in _PERMANENT_MARKERS):
        return False
    return any(marker in text for marker in _TRANSIENT_MARKERS)


def remote_names(runner: GitRunner) -> list[str]:
    """The remotes the repository configures (``git remote``)."""
    return runner.text(["remote"], operation="remote", what="listing the remotes").split()


def upstream(runner: GitRunner, branch_ref: str) -> tuple[str, str] | None:
    """(remote, remote branch) from ``branch.<name>.remote/merge``; None without one or for a local one."""
    if not branch_ref.startswith("refs/heads/"):
        return None
    name = branch_ref.removeprefix("refs/heads/")
    values = []
    for key in ("remote", "merge"):
        done = runner.run(
            ["config", "--get", f"branch.{name}.{key}"],
            operation="config",
            what=f"reading the upstream of {branch_ref}",
            ok_codes=(0, 1),
        )
        values.append(done.stdout.decode("utf-8", "surrogateescape").strip() if done.returncode == 0 else "")
    remote, merge = values
    # "." is the repository itself: pushing there publishes nothing.
    if not remote or remote == "." or not merge.startswith("refs/heads/"):
        return None
    return remote, merge.removeprefix("refs/heads/")


_VALID_BRANCHES: set[str] = set()
"""Branch names git accepted: whether a name is well-formed depends on the name alone, and a daemon writing a
branch per cluster would otherwise ask git 200 times a run."""


def check_branch_name(runner: GitRunner, operation: str, branch: str) -> None:
    if branch in _VALID_BRANCHES:
        return
    # git branch refuses a leading dash too (it would read as an option), though refs/heads/-x is well-formed.
    if branch.startswith("-") or not runner.succeeds(["check-ref-format", f"refs/heads/{branch}"]):
        raise GitError(operation, f"{branch!r} is not a valid branch name")
    _VALID_BRANCHES.add(branch)


def push(
    runner: GitRunner, remote: str, local_ref: str, remote_branch: str, env: Mapping[str, str] | None = None
) -> None:
    """Push ``local_ref`` to ``remote_branch`` of ``remote`` without forcing (``env``: credentials)."""
    check_branch_name(runner, "push", remote_branch)
    what = f"pushing {local_ref} to {remote_branch} on {remote}"
    _push(runner, (), remote, (f"{local_ref}:refs/heads/{remote_branch}",), what, env)


def fetch_ref(
    runner: GitRunner, remote: str, branch: str, ref: str, env: Mapping[str, str] | None = None
) -> bool:
    """Fetch ``branch`` of ``remote`` (a remote's name or a URL) into the local ``ref``, forced; False when
    the remote has no such branch (a network failure is GitError(temporary=True)). Abandoned on SIGTERM as
    a push is (``abandon_remote_calls``)."""
    check_branch_name(runner, "fetch", branch)
    what = f"fetching {branch} from {remote}"
    done = runner.run(
        ["-c", _mark(), "fetch", "--no-tags", "--end-of-options", remote, f"+refs/heads/{branch}:{ref}"],
        operation="fetch",
        what=what,
        env={**_UNATTENDED, **(env or {})},
        ok_codes=range(256),
        timeout=NETWORK_TIMEOUT_SECONDS,
    )
    if done.returncode == 0:
        return True
    stderr = done.stderr.decode("utf-8", "replace")
    if "couldn't find remote ref" in stderr.lower():
        return False
    raise git_error("fetch", what, stderr, temporary=is_transient_failure(stderr))


def push_with_lease(
    runner: GitRunner,
    remote: str,
    commit: str,
    remote_branch: str,
    expected: str | None,
    env: Mapping[str, str] | None = None,
) -> None:
    """Push ``commit`` to ``remote_branch`` only if the remote branch is still at ``expected`` (None: only if
    it does not exist): a compare-and-swap of the remote ref. A moved branch is GitError(temporary=True)."""
    check_branch_name(runner, "push", remote_branch)
    ref = f"refs/heads/{remote_branch}"
    what = f"pushing {commit[:12]} to {remote_branch} on {remote}"
    lease = f"--force-with-lease={ref}:{expected or ''}"  # empty: the ref must not exist yet
    _push(runner, (lease,), remote, (f"{commit}:{ref}",), what, env)


def push_refs(
    runner: GitRunner, remote: str, refs: Mapping[str, str], env: Mapping[str, str] | None = None
) -> None:
    """Push to each branch of ``refs`` its local ref or commit (remote branch → local) in one ``git push``,
    without forcing (``--atomic``: all or none, where the remote supports it)."""
    for branch in refs:
        check_branch_name(runner, "push", branch)
    what = f"pushing {len(refs)} branch(es) to {remote}"
    specs = tuple(f"{local}:refs/heads/{branch}" for branch, local in sorted(refs.items()))
    _push(runner, ("--atomic",), remote, specs, what, env)


def _push(
    runner: GitRunner,
    options: tuple[str, ...],
    remote: str,
    refspecs: tuple[str, ...],
    what: str,
    env: Mapping[str, str] | None,
) -> None:
    """``git push --porcelain``; a rejection because the remote branch moved, or a network failure, is
    GitError(temporary=True)."""
    done = runner.run(
        ["-c", _mark(), "push", "--porcelain", *options, "--end-of-options", remote, *refspecs],
        operation="push",
        what=what,
        env={**_UNATTENDED, **(env or {})},
        ok_codes=range(256),
        timeout=NETWORK_TIMEOUT_SECONDS,
    )
    if done.returncode == 0:
        return
    stderr = done.stderr.decode("utf-8", "replace")
    rejected = [
        rest.partition("\t")[2]
        for line in done.stdout.decode("utf-8", "replace").splitlines()
        for flag, _, rest in [line.partition("\t")]
        if flag == "!"
    ]
    # an atomic push names every other ref "atomic push failed": the one the remote moved says why
    for summary in rejected:
        if any(reason in summary for reason in _RACE_REASONS):
            raise GitError(
                "push",
                f"{what}: rejected, the remote branch has moved on ({summary}); fetch, rerender and retry",
                temporary=True,
            )
    if rejected:
        summary = next((r for r in rejected if "atomic push failed" not in r), rejected[0])
        raise GitError("push", f"{what}: {summary}" + (f": {stderr_tail(stderr)}" if stderr.strip() else ""))
    raise git_error("push", what, stderr, temporary=is_transient_failure(stderr))


def remote_tip(
    runner: GitRunner, remote: str, branch: str, env: Mapping[str, str] | None = None, timeout: float = 10.0
) -> str | None:
    """The commit ``branch`` of ``remote`` points at now (``ls-remote``: no objects are fetched), or None
    when it has no such branch. Failures are GitError(temporary=True): callers only poll with it."""
    check_branch_name(runner, "ls-remote", branch)
    done = runner.run(
        ["-c", _mark(), "ls-remote", "--end-of-options", remote, f"refs/heads/{branch}"],
        operation="ls-remote",
        what=f"asking {remote} where {branch} is",
        env={**_UNATTENDED, **(env or {})},
        ok_codes=range(256),
        timeout=timeout,
    )
    if done.returncode != 0:
        raise git_error("ls-remote", f"asking {remote} where {branch} is", done.stderr, temporary=True)
    for line in done.stdout.decode("ascii", "replace").splitlines():
        oid, _, name = line.partition("\t")
        if name == f"refs/heads/{branch}":
            return oid
    return None
