"""``gitops-karmada reconcile``: render the branch tip and commit the result on it, once."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.reconciler import ReconcileOutcome, reconcile_and_push, reconcile_ref, target_ref
from gitops_karmada.cli.options import repo_option
from gitops_karmada.cli.output import echo_diagnostics, placement_table

if TYPE_CHECKING:
    from pathlib import Path


def report(outcome: ReconcileOutcome, *, dry_run: bool) -> None:
    """Print what the run did; exit 1 when the input was invalid or a template failed."""
    result = outcome.result
    echo_diagnostics(result.diagnostics)
    if not result.input_ok:
        click.echo("nothing written: fix the input errors above", err=True)
        raise click.exceptions.Exit(1)
    click.echo(placement_table(result), nl=False)
    if dry_run:
        for path, content in sorted(outcome.changes.items()):
            click.echo(f"{'D' if content is None else 'W'} {path}")
        click.echo(f"dry run: {len(outcome.changes)} file(s) would change")
    elif outcome.commit:
        click.echo(
            f"committed {outcome.commit[:12]}: {len(outcome.changes)} file(s) changed"
            + (" (pushed)" if outcome.pushed else "")
        )
    else:
        click.echo("up to date: no commit needed" + (" (pushed)" if outcome.pushed else ""))
    failed = result.failed_templates
    if failed:
        click.echo(f"{len(failed)} template(s) failed and kept their previous placement", err=True)
        raise click.exceptions.Exit(1)


@click.command("reconcile")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The branch (or HEAD) to read and commit on.")
@click.option("--dry-run", is_flag=True, help="Show what would change; commit nothing.")
@click.option(
    "--push", is_flag=True, help="Push to the branch's upstream; on a race, fetch, re-render, retry."
)
@click.option("--message", help="Title of the reconcile commit.")
def reconcile_command(repo: Path, rev: str, dry_run: bool, push: bool, message: str | None) -> None:
    """Render the fleet at REV and commit the cluster folders and binding records on the same branch."""
    if dry_run and push:
        raise click.UsageError("--dry-run and --push exclude each other")
    store = GitStore.open(repo)
    if dry_run:
        outcome = reconcile_ref(store, rev if rev != "HEAD" else "HEAD", dry_run=True)
    else:
        ref = target_ref(store, rev)
        outcome = (
            reconcile_and_push(store, ref, message=message)
            if push
            else reconcile_ref(store, ref, message=message)
        )
    report(outcome, dry_run=dry_run)
