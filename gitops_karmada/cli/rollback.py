"""``gitops-karmada rollback REV``: one new commit with REV's inputs and output, then a reconcile."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import allow_option, output_option, repo_option
from gitops_karmada.cli.output import echo_diagnostics, to_json
from gitops_karmada.cli.run_output import log_refusal, report_refusal
from gitops_karmada.cli.run_report import rollback_document
from gitops_karmada.usecases.lifecycle import ROLLBACK_TO_TRAILER
from gitops_karmada.usecases.rollback import plan_rollback, roll_back
from gitops_karmada.usecases.up_to_date import target_ref

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.usecases.rollback import RollbackPlan


def describe_plan(plan: RollbackPlan) -> None:
    """The plan: where the output comes from, then one line per changed path."""
    if plan.output is None:
        click.echo(
            f"rollback of {plan.ref} to {plan.target[:12]}: no reconcile commit of these inputs was found; "
            "restoring the inputs only (reconcile renders them afresh, so placement may differ)"
        )
    else:
        click.echo(
            f"rollback of {plan.ref} to {plan.target[:12]}: restoring the output of reconcile commit "
            f"{plan.output.commit[:12]} ({plan.output.reason})"
        )
    for path, content in plan.changes.items():
        click.echo(f"{'D' if content is None else 'W'} {plan.roles[path].value:<6} {path}")
    if plan.hand_written:
        click.echo(f"{len(plan.hand_written)} hand-written file(s) in the cluster folders stay as they are")
    if plan.released:
        click.echo(f"{len(plan.released)} released manifest(s) stay as they are")


@click.command("rollback")
@click.argument("rev")
@repo_option
@click.option("--branch", default="HEAD", show_default=True, help="The branch to commit on.")
@click.option("--dry-run", is_flag=True, help="List what would change; commit nothing.")
@click.option(
    "--force-unrelated",
    is_flag=True,
    help="Allow a REV that is not in the branch's history (its inputs replace the branch's).",
)
@click.option("--message", help="Title of the rollback commit.")
@allow_option
@output_option("text", "json")
def rollback_command(
    rev: str,
    repo: Path,
    branch: str,
    dry_run: bool,
    force_unrelated: bool,
    message: str | None,
    allow: tuple[str, ...],
    output_format: str,
) -> None:
    """Restore the inputs of REV and the output REV produced, as one new commit; never rewrites history.

    Inputs are every file outside the cluster and state folders (dot-folders such as .github/ are left
    alone); the binding records and the tool-written manifests come from the reconcile commit of REV.
    Hand-written files in the cluster folders are kept. A reconcile runs afterwards. The guardrails of
    gitops-karmada.yaml refuse a rollback that meets them (exit 3, nothing written); --allow lifts one.
    -o json: one RollbackReport document (with the reconcile's report inside).
    """
    store = GitStore.open(repo)
    allowed = frozenset(allow)
    plan = plan_rollback(
        store, target_ref(store, branch), rev, allow_unrelated=force_unrelated, allow=allowed
    )
    if output_format == "json":
        _report_json(store, plan, rev, dry_run=dry_run, title=message, allow=allowed)
        return
    if dry_run:
        describe_plan(plan)
        if plan.refused:
            assert plan.guard is not None
            report_refusal(plan.guard, f"rollback {rev}", dry_run=True)
        click.echo(f"dry run: {len(plan.changes)} file(s) would change, then reconcile runs")
        return
    if plan.refused:
        assert plan.guard is not None
        describe_plan(plan)
        report_refusal(plan.guard, f"rollback {rev}", dry_run=False)
    outcome = roll_back(store, plan, title=message, allow=allowed)
    describe_plan(plan)
    if outcome.commit is None:
        click.echo(f"{plan.ref} already holds that state: no rollback commit needed")
    else:
        click.echo(
            f"committed {outcome.commit[:12]}: {len(plan.changes)} file(s) changed "
            f"({ROLLBACK_TO_TRAILER}: {plan.target[:12]})"
        )
    reconciled = outcome.reconcile
    if reconciled.up_to_date is not None:
        click.echo("reconcile: up to date, no commit needed")
        return
    assert reconciled.result is not None
    echo_diagnostics(reconciled.result.diagnostics)
    if not reconciled.result.input_ok:
        logger.bind(logger="rollback").error("reconcile: nothing written: fix the input errors above")
        raise click.exceptions.Exit(1)
    if reconciled.refused:
        assert reconciled.guard is not None
        report_refusal(reconciled.guard, "reconcile", dry_run=False)
    if reconciled.commit:
        click.echo(
            f"reconcile: committed {reconciled.commit[:12]}: {len(reconciled.changes)} file(s) changed"
        )
    else:
        click.echo("reconcile: up to date, no commit needed")
    if reconciled.result.failed_templates:
        raise click.exceptions.Exit(1)


def _report_json(
    store: GitStore, plan: RollbackPlan, rev: str, *, dry_run: bool, title: str | None, allow: frozenset[str]
) -> None:
    """The rollback as one JSON document; refusals and diagnostics still go to the log."""
    log = logger.bind(logger="rollback")
    if dry_run or plan.refused:
        document = rollback_document(plan, None, None, dry_run=dry_run)
        if plan.guard is not None and plan.refused:
            log_refusal(plan.guard, f"rollback {rev}", dry_run=dry_run)
    else:
        outcome = roll_back(store, plan, title=title, allow=allow)
        if outcome.reconcile.result is not None:
            echo_diagnostics(outcome.reconcile.result.diagnostics)
        document = rollback_document(plan, outcome.commit, outcome.reconcile, dry_run=False)
    click.echo(to_json(document), nl=False)
    if document["exitCode"]:
        log.error("rollback {}: exit {} ({})", rev, document["exitCode"], document["outcome"])
        raise click.exceptions.Exit(document["exitCode"])
