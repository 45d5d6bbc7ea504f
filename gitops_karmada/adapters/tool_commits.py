"""The tool's own commits: marked by the ``Rendered-By`` trailer; finding the newest one on a branch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.model import wellknown

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore

RENDERED_BY = f"{wellknown.TOOL_NAME} {ENGINE_VERSION}"
"""The ``Rendered-By`` trailer of this tool's commits: the engine version (the tool's version and the
revision of its output), so a commit made by an engine that wrote other output is never taken as up to
date."""


def rendered_by_tool(trailers: Mapping[str, str]) -> bool:
    """Whether a commit with these trailers was made by this tool (reconcile, reschedule or rollback)."""
    return trailers.get(wellknown.RENDERED_BY_TRAILER, "").startswith(wellknown.TOOL_NAME)


def is_tool_commit(entry: LogEntry) -> bool:
    """Whether the tool made this commit (``rendered_by_tool`` on its trailers)."""
    return rendered_by_tool(entry.trailers)


def latest_tool_commit(store: GitStore, rev: str) -> LogEntry | None:
    """The newest tool commit on the first-parent history of ``rev`` (``rev`` itself included)."""
    pattern = f"^{wellknown.RENDERED_BY_TRAILER}: {wellknown.TOOL_NAME}"
    candidates = store.log(rev, grep=pattern, max_count=1)
    if candidates and not is_tool_commit(candidates[0]):
        # the line matched in the body but is not a trailer: look at every candidate
        candidates = store.log(rev, grep=pattern)
    return next((entry for entry in candidates if is_tool_commit(entry)), None)
