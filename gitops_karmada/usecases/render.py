"""Render: placement, binding records and manifests as ``reconcile`` would make them now, written nowhere.

The clusters' newest reports are used (the status branch's tip), not those of the last reconcile: the
answer is what a reconcile would do now. Explanations need every template scheduled anew, as Karmada
would if it ran now, so a run that explains judges the whole fleet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.repository import StatusChoice
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.source import read_source

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from gitops_karmada.reconcile import RenderResult


def render_source(
    repo: Path,
    rev: str,
    worktree: bool,
    *,
    explain: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RenderResult:
    """The run of ``rev`` of ``repo`` (``worktree``: its files on disk); ``explain``: with the
    explanation of every template."""
    state = read_source(repo, rev, worktree, StatusChoice.TIP)
    request = state.request.with_mode(explain=explain, full=explain).with_ports(progress=progress)
    return reconcile(request)
