"""The sticky pull-request comment: its hidden marker, its body, and what to do with it (pure).

The report itself is ``gitops-karmada diff -o markdown``; this module wraps it with a marker by which
the next run finds and updates the same comment, decides between create, update and leave alone, and
words the job-summary notes. No I/O.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.budget import Unit, measure

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.adapters.github import IssueComment

MARKER_PREFIX = "<!-- gitops-karmada:diff"
_UNSAFE_IN_MARKER = re.compile(r"[^A-Za-z0-9._/@+=-]|--")


def marker(key: str) -> str:
    """The hidden first line of the comment; ``key`` (the fleet's path) keeps two fleets' comments apart."""
    cleaned = _UNSAFE_IN_MARKER.sub("_", key.strip() or ".")
    return f"{MARKER_PREFIX} {cleaned} -->"


def marker_size(key: str) -> int:
    """What the marker line takes out of the comment budget."""
    return measure(marker(key) + "\n", Unit.CHARACTERS)


def sticky_body(report: str, key: str) -> str:
    return f"{marker(key)}\n{report}"


def find_sticky(comments: Sequence[IssueComment], key: str) -> IssueComment | None:
    """The comment this action wrote for ``key`` (the first one, if a race made two)."""
    line = marker(key)
    return next((c for c in comments if c.body.startswith(line)), None)


class CommentAction(enum.StrEnum):
    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    SKIP = "skip"
    """Nothing to say and nothing said before: no comment noise on pull requests that change nothing."""


@dataclass(frozen=True, slots=True)
class CommentPlan:
    action: CommentAction
    comment_id: int | None = None


def plan_comment(existing: IssueComment | None, body: str, *, worth_posting: bool) -> CommentPlan:
    """Create when there is news, update the sticky comment when it says something else, else nothing."""
    if existing is not None:
        if existing.body == body:
            return CommentPlan(CommentAction.UNCHANGED, existing.id)
        return CommentPlan(CommentAction.UPDATE, existing.id)
    return CommentPlan(CommentAction.CREATE if worth_posting else CommentAction.SKIP)


def read_only_note() -> str:
    """The job-summary note when the token may not comment (a pull request from a fork)."""
    return (
        "> [!NOTE]\n"
        "> The placement report could not be posted as a pull-request comment: the workflow token is "
        "read-only (a pull request from a fork). It is shown here instead.\n\n"
    )


def no_pull_request_note() -> str:
    return "> [!NOTE]\n> Not a pull-request event: the placement report is shown here only.\n\n"
