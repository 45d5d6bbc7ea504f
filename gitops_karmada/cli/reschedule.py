"""``gitops-karmada reschedule``: divide replicas afresh, as Karmada's WorkloadRebalancer does.

Karmada's Steady division never moves running replicas on scale-up and keeps a division while the
placement and replicas do not change; a rebalance asks for a Fresh division instead (every candidate's
free capacity plus what it already runs). The result is one reconcile commit on the branch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.cli.completion import complete_reference
from gitops_karmada.cli.options import allow_option, repo_option
from gitops_karmada.cli.output import echo_diagnostics
from gitops_karmada.cli.reconcile import report
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.explain import find_outcome
from gitops_karmada.usecases.reconcile import reconcile_ref, target_ref

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
    store = GitStore.open(repo)
    ref = target_ref(store, rev) if not dry_run else rev
    current = reconcile(read_commit(store, ref).request)
    if not current.input_ok:
        echo_diagnostics(current.diagnostics)
        raise click.exceptions.Exit(1)
    outcomes = current.outcomes if everything else [find_outcome(current, r) for r in references]
    identities = frozenset(o.key.identity for o in outcomes if o.binding is not None)
    names = ", ".join(sorted(str(o.key) for o in outcomes if o.binding is not None))
    outcome = reconcile_ref(
        store,
        ref,
        dry_run=dry_run,
        message=f"gitops-karmada: reschedule {names}"[:200],
        reschedule=identities,
        allow=frozenset(allow),
    )
    report(outcome, dry_run=dry_run, command="reschedule")
