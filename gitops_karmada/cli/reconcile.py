"""``gitops-karmada reconcile``: render the branch tip and commit the result on it, once.

The use case (``usecases.reconcile``) reads, renders, commits and pushes; this module prints what a run
did (the placement table, or one JSON report) and chooses the exit code, for ``reconcile`` and the verbs
that end in a reconcile (``reschedule``, ``rollback``, ``demo``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import allow_option, output_option, parse_now, repo_option
from gitops_karmada.cli.output import echo_diagnostics, placement_table, removals_text, to_json
from gitops_karmada.cli.progress import template_progress
from gitops_karmada.cli.run_report import reconcile_document
from gitops_karmada.usecases.reconcile import ReconcileOutcome, reconcile_rev

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.core.diff.model import PlanDiff
    from gitops_karmada.reconcile import RenderResult

STARTED = time.monotonic()
"""When the command started (the summary line's duration includes reading and writing)."""


EXIT_GUARDRAIL = 3


def report_refusal(plan: PlanDiff, command: str, *, dry_run: bool) -> None:
    """The guardrails that refuse a commit, and the flag that lifts each; exit 3."""
    log_refusal(plan, command, dry_run=dry_run)
    raise click.exceptions.Exit(EXIT_GUARDRAIL)


def log_refusal(plan: PlanDiff, command: str, *, dry_run: bool) -> None:
    """The guardrails that refuse a commit, and the flag that lifts each, through the log."""
    verb = "would refuse" if dry_run else "refused"
    log = logger.bind(logger=command)
    log.error("guardrails {} the commit ({} violation(s)); nothing was written:", verb, len(plan.violations))
    for violation in plan.violations:
        log.bind(guardrail=violation.guardrail).error("  {}: {}", violation.guardrail, violation.detail)
    names = sorted({v.guardrail.partition(">")[0].partition("=")[0] for v in plan.violations})
    flags = " ".join(f"--allow {name}" for name in names)
    log.error(
        "if this is intended, run: gitops-karmada {} {} (gitops-karmada.yaml sets the guardrails in "
        "guardrails: and the causes of removal that pass unasked in removals.allow)",
        command,
        flags,
    )


def report_json(outcome: ReconcileOutcome, *, dry_run: bool, command: str = "reconcile") -> None:
    """The run as one JSON document on stdout; diagnostics and the summary to the log; the same exit code."""
    document = reconcile_document(outcome, dry_run=dry_run)
    if outcome.result is not None:
        echo_diagnostics(outcome.result.diagnostics)
        logger.bind(logger=command).info("{}", summary_line(outcome.result, outcome))
    if outcome.refused:
        assert outcome.guard is not None
        log_refusal(outcome.guard, command, dry_run=dry_run)
    click.echo(to_json(document), nl=False)
    if document["exitCode"]:
        raise click.exceptions.Exit(document["exitCode"])


def report(outcome: ReconcileOutcome, *, dry_run: bool, command: str = "reconcile") -> None:
    """Print what the run did; exit 1 when the input was invalid or a template failed, 3 when refused."""
    current = outcome.up_to_date
    if current is not None:
        since = "" if current.reconciled == current.source else f" since {current.reconciled[:12]}"
        click.echo(
            f"up to date: nothing reconcile reads changed{since}; no commit needed"
            + (" (pushed)" if outcome.pushed else "")
        )
        return
    result = outcome.result
    assert result is not None
    echo_diagnostics(result.diagnostics)
    if not result.input_ok:
        logger.bind(logger=command).error("nothing written: fix the input errors above")
        raise click.exceptions.Exit(1)
    # the templates this run redid (all of them in a full run); the others stand as recorded
    click.echo(placement_table(result, only_redone=result.incremental), nl=False)
    if outcome.guard is not None:
        refused = {v.guardrail for v in outcome.guard.violations}
        click.echo(removals_text(outcome.guard.removals, refused), nl=False)
        for note in outcome.guard.notes:
            logger.bind(logger=command).info("{}", note)
    if outcome.refused:
        assert outcome.guard is not None
        report_refusal(outcome.guard, command, dry_run=dry_run)
    if dry_run:
        for path, content in sorted(outcome.changes.items()):
            click.echo(f"{'D' if content is None else 'W'} {path}")
        click.echo(f"dry run: {len(outcome.changes)} file(s) would change")
    elif outcome.commit:
        moved = sum(1 for w in outcome.shards if w.old != w.new)
        click.echo(
            f"committed {outcome.commit[:12]}: {len(outcome.changes)} file(s) changed"
            + (f", {moved} output shard(s) committed" if moved else "")
            + (" (pushed)" if outcome.pushed else "")
        )
    else:
        click.echo("up to date: no commit needed" + (" (pushed)" if outcome.pushed else ""))
    logger.bind(logger=command).info("{}", summary_line(result, outcome))
    failed = result.failed_templates
    if failed:
        logger.bind(logger=command).error(
            "{} template(s) failed and kept their previous placement", len(failed)
        )
        raise click.exceptions.Exit(1)


def summary_line(result: RenderResult, outcome: ReconcileOutcome) -> str:
    """``5,000 bindings · 5,000 reused · 3 files changed · 1.2 s``."""
    bindings = sum(1 for o in result.outcomes if (o.binding is not None or o.reused) and not o.removed)
    reused = sum(1 for o in result.outcomes if o.reused)
    seconds = time.monotonic() - STARTED
    parts = [f"{bindings:,} binding(s)"]
    if result.incremental:
        parts.append(f"{reused:,} reused, {bindings - reused:,} redone")
    parts += [f"{len(outcome.changes):,} file(s) changed", f"{seconds:.1f} s"]
    return " · ".join(parts)


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
            clock=parse_now(now) if now is not None else None,
        )
    if output_format == "json":
        report_json(outcome, dry_run=dry_run)
    else:
        report(outcome, dry_run=dry_run)
