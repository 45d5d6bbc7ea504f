"""``gitops-karmada reconcile``: render the branch tip and commit the result on it, once.

The use case (``usecases.reconcile``) reads, renders, commits and pushes; ``cli.run_output`` prints what a
run did. A run with nothing to do is answered before either is imported (``usecases.up_to_date``): the
no-change path costs a few git calls, not the engine's import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import allow_option, output_option, parse_now, repo_option
from gitops_karmada.cli.progress import template_progress
from gitops_karmada.cli.up_to_date import echo_up_to_date
from gitops_karmada.usecases.up_to_date import preflight, target_ref

if TYPE_CHECKING:
    from pathlib import Path


@click.command("reconcile")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The branch (or HEAD) to read and commit on.")
@click.option("--dry-run", is_flag=True, help="Show what would change; commit nothing.")
@click.option(
    "--push", is_flag=True, help="Push to the branch's upstream; on a race, fetch, re-render, retry."
)
@click.option("--message", help="Title of the reconcile commit.")
@click.option(
    "--now",
    "now",
    metavar="TIME",
    help="The time now, RFC 3339 (default: the time a commit made now would carry). When the failover work "
    "the last reconcile left falls due by it, a run is made although nothing was committed since.",
)
@click.option(
    "--detached",
    is_flag=True,
    help="Commit on a detached HEAD (by default a detached HEAD is refused: its commit is on no branch).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Redo every template (by default, templates whose inputs did not change are taken as recorded).",
)
@allow_option
@output_option("text", "json")
def reconcile_command(
    repo: Path,
    rev: str,
    dry_run: bool,
    push: bool,
    message: str | None,
    now: str | None,
    detached: bool,
    full: bool,
    allow: tuple[str, ...],
    output_format: str,
) -> None:
    """Render the fleet at REV and commit the cluster folders and binding records on the same branch.

    The guardrails of gitops-karmada.yaml (default: cluster-emptied, namespace-removed) refuse a commit
    that meets them: exit 3, nothing written; --allow lifts one. -o json: one ReconcileReport document.
    """
    if dry_run and push:
        raise click.UsageError("--dry-run and --push exclude each other")
    store = GitStore.open(repo)
    clock = parse_now(now) if now is not None else None
    checked = None
    if not (dry_run or push or full):
        # asked before the engine is imported: a run with nothing to do answers from a few git calls
        checked = preflight(store, target_ref(store, rev, detached=detached), clock=clock)
        if checked.up_to_date is not None and output_format == "text":
            echo_up_to_date(checked.up_to_date)
            return
    from gitops_karmada.cli.run_output import report, report_json
    from gitops_karmada.usecases.reconcile import reconcile_rev

    with template_progress() as progress:
        outcome = reconcile_rev(
            store,
            rev,
            dry_run=dry_run,
            push=push,
            message=message,
            allow=frozenset(allow),
            full=full,
            detached=detached,
            progress=progress,
            clock=clock,
            checked=checked,
        )
    if output_format == "json":
        report_json(outcome, dry_run=dry_run)
    else:
        report(outcome, dry_run=dry_run)
