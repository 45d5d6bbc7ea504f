"""What the rollouts in flight learn from outside the repository's files: approvals and commit statuses.

- An approval is a commit whose message carries ``Rollout-Approved: <namespace>/<policy> <wave>``
  (``gitops-karmada rollout approve``), read from the first-parent history of the commit being rendered.
- Commit statuses are those a CI system or Flux's notification controller posted on the branch's last
  reconcile commit before the one being made (the files the clusters apply), read from GitHub's REST API
  (``GITHUB_API_URL``, ``GITHUB_REPOSITORY``, ``GITHUB_TOKEN``) when a RolloutPolicy gates on one. The
  reconcile commit records the statuses it used (``Rollout-Statuses``), and a re-render of that commit
  (``verify``, ``diff``) reads them from there, so it makes the same result whatever was posted since.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.github import DEFAULT_API_URL, GitHubClient
from gitops_karmada.adapters.tool_commits import latest_tool_commit
from gitops_karmada.core.codecs.times import format_time
from gitops_karmada.core.rollout.gates import Signals
from gitops_karmada.model import wellknown
from gitops_karmada.model.errors import GitHubError, InputError
from gitops_karmada.model.rollouts import ROLLOUT_KIND

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.inputs.loading import Decoded

APPROVALS_LOOKED_AT = 1000
"""The newest approval commits read: an approval older than that many is older than any rollout in flight."""


def rollout_signals(
    store: GitStore, sha: str, decoded: Mapping[str, Decoded], *, recorded: LogEntry | None
) -> Signals | None:
    """The signals for a run of ``sha``; None when no input is a RolloutPolicy. ``recorded``: the reconcile
    commit whose recorded statuses a re-render uses (None: ask GitHub, as a reconcile does)."""
    # one pass over every document of the fleet, each run: no list per file
    policies = [
        body
        for documents in decoded.values()
        if not isinstance(documents, InputError)
        for document in documents
        if isinstance(body := document.body, dict)
        and body.get("kind") == ROLLOUT_KIND
        and body.get("apiVersion") == wellknown.TOOL_CONFIG_API_VERSION
    ]
    if not policies:
        return None
    approvals = _approvals(store, sha)
    if not any("commitStatus" in str(body.get("spec", "")) for body in policies):
        return Signals(approvals, {})
    if recorded is not None:
        return _recorded_statuses(store, recorded, approvals)
    previous = latest_tool_commit(store, sha)
    if previous is None:
        return Signals(approvals, {})
    statuses = _posted_statuses(previous.commit)
    return Signals(approvals, statuses, format_time(previous.committed_at), previous.commit)


def statuses_trailer(signals: Signals | None) -> str | None:
    """The ``Rollout-Statuses`` trailer's value for a reconcile that used ``signals``."""
    if signals is None or not signals.statuses_on:
        return None
    shown = " ".join(f"{context}={state}" for context, state in sorted(signals.statuses.items()))
    return f"{signals.statuses_on} {shown}".rstrip()


def _approvals(store: GitStore, sha: str) -> dict[tuple[str, str], tuple[str, ...]]:
    found: dict[tuple[str, str], list[str]] = {}
    pattern = f"^{wellknown.ROLLOUT_APPROVED_TRAILER}:"
    for entry in store.log(sha, grep=pattern, max_count=APPROVALS_LOOKED_AT):
        value = entry.trailers.get(wellknown.ROLLOUT_APPROVED_TRAILER, "")
        policy, _, wave = value.strip().partition(" ")
        if policy and wave:
            found.setdefault((policy, wave.strip()), []).append(format_time(entry.committed_at))
    return {key: tuple(sorted(times)) for key, times in found.items()}


def _recorded_statuses(
    store: GitStore, recorded: LogEntry, approvals: Mapping[tuple[str, str], tuple[str, ...]]
) -> Signals:
    value = recorded.trailers.get(wellknown.ROLLOUT_STATUSES_TRAILER, "")
    commit, *pairs = value.split()
    if not commit or store.try_resolve(commit) is None:
        return Signals(approvals, {})
    statuses = dict(pair.partition("=")[::2] for pair in pairs)
    return Signals(approvals, statuses, format_time(store.commit_time(commit)), commit)


def _posted_statuses(commit: str) -> dict[str, str]:
    """The newest state of each commit status context on ``commit``, from GitHub; {} when it cannot ask."""
    repository, token = os.environ.get("GITHUB_REPOSITORY", ""), os.environ.get("GITHUB_TOKEN", "")
    if not repository or not token:
        logger.bind(logger="rollout").warning(
            "a RolloutPolicy gates on a commit status, but GITHUB_REPOSITORY and GITHUB_TOKEN are not both "
            "set: its waves wait (set them, and GITHUB_API_URL for GitHub Enterprise)"
        )
        return {}
    client = GitHubClient(os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL, repository, token)
    try:
        return client.commit_statuses(commit)
    except GitHubError as err:
        logger.bind(logger="rollout", commit=commit).warning(
            "could not read the commit statuses of {}: {}; the waves gated on them wait", commit[:12], err
        )
        return {}
