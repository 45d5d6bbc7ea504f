"""``gitops-karmada approve NAMESPACE/NAME``: approve the wave a rollout waits on, then reconcile.

The use case (``usecases.rollouts``) makes the approval commit and the reconcile it allows; this verb
reports the reconcile as ``reconcile`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import repo_option
from gitops_karmada.cli.run_output import report
from gitops_karmada.usecases.rollouts import approve

if TYPE_CHECKING:
    from pathlib import Path


@click.command("approve")
@click.argument("reference", metavar="NAMESPACE/NAME")
@click.option("--wave", default=None, help="The wave to approve (default: the one the rollout waits on).")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The branch (or HEAD) to commit on.")
def approve_command(reference: str, wave: str | None, repo: Path, rev: str) -> None:
    """Approve a wave of the RolloutPolicy NAMESPACE/NAME (a commit carrying Rollout-Approved), then
    reconcile: a wave gated on approval lets the next one go."""
    done = approve(GitStore.open(repo), rev, reference, wave)
    logger.bind(logger="approve", commit=done.commit).info(
        "approved wave {} of rollout {} in {}", done.wave, done.policy, done.commit[:12]
    )
    report(done.reconciled, dry_run=False, command="approve")
