"""``gitops-karmada reschedule``: divide replicas afresh, as Karmada's WorkloadRebalancer does.

The use case (``usecases.reschedule``) chooses the templates and makes the one reconcile commit; this verb
reports it as ``reconcile`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.completion import complete_reference
from gitops_karmada.cli.options import allow_option, repo_option
from gitops_karmada.cli.output import echo_diagnostics
from gitops_karmada.cli.run_output import report
from gitops_karmada.usecases.reschedule import reschedule as reschedule_templates

if TYPE_CHECKING:
    from pathlib import Path


@click.command()
@click.argument("references", metavar="KIND/NAMESPACE/NAME...", nargs=-1, shell_complete=complete_reference)
@click.option("--all", "everything", is_flag=True, help="Reschedule every propagated template.")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The branch (or HEAD) to read and commit on.")
@click.option("--dry-run", is_flag=True, help="Show what would change; commit nothing.")
@allow_option
def reschedule(
    references: tuple[str, ...], everything: bool, repo: Path, rev: str, dry_run: bool, allow: tuple[str, ...]
) -> None:
    """Divide the replicas of the named templates afresh (a Fresh division) and commit the result."""
    if bool(references) == everything:
        raise click.UsageError("name templates to reschedule, or pass --all (not both)")
    done = reschedule_templates(
        GitStore.open(repo), rev, references, everything=everything, dry_run=dry_run, allow=frozenset(allow)
    )
    if done.reconciled is None:
        echo_diagnostics(done.current.diagnostics)
        raise click.exceptions.Exit(1)
    report(done.reconciled, dry_run=dry_run, command="reschedule")
