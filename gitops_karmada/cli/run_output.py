"""What a run did, printed: the placement table or one JSON report, the refusals, and the exit code, for
``reconcile`` and the verbs that end in a reconcile (``reschedule``, ``rollback``, ``approve``, ``demo``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.cli.output import echo_diagnostics, placement_table, removals_text, to_json
from gitops_karmada.cli.run_report import reconcile_document
from gitops_karmada.cli.up_to_date import echo_up_to_date

if TYPE_CHECKING:
    from gitops_karmada.core.diff.model import PlanDiff
    from gitops_karmada.reconcile import RenderResult
    from gitops_karmada.usecases.reconcile import ReconcileOutcome

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
    if outcome.up_to_date is not None:
        echo_up_to_date(outcome.up_to_date, pushed=outcome.pushed)
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
