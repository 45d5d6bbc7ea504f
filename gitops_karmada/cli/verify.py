"""``gitops-karmada verify``: fail, naming the files, when committed output is stale or edited by hand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.cli.output import echo_diagnostics, to_json
from gitops_karmada.usecases.verify import Finding, VerifyReport, verify_commit

if TYPE_CHECKING:
    from pathlib import Path


def report_dict(report: VerifyReport) -> dict[str, object]:
    return {
        "commit": report.commit,
        "lastReconcile": report.last_reconcile,
        "ok": report.ok,
        "inputOk": report.input_ok,
        "failures": [item.to_dict() for item in report.failures],
        "info": [item.to_dict() for item in report.info],
        "failedTemplates": list(report.failed_templates),
        "templates": report.templates,
        "templatesRendered": report.rendered,
        "errors": [str(d) for d in report.diagnostics if d.is_error],
    }


def print_report(report: VerifyReport) -> None:
    echo_diagnostics(report.diagnostics)
    for item in report.items:
        label = item.finding.value if item.finding.is_failure or item.finding is Finding.PENDING else "info"
        click.echo(f"{label:<12} {item.path}: {item.detail}")
    if not report.input_ok:
        click.echo(f"verify failed: {report.commit[:12]} cannot be rendered: fix the input errors above")
        return
    for template in report.failed_templates:
        click.echo(f"{'failed':<12} {template}: cannot be rendered (see the errors above)")
    base = f"last reconcile {report.last_reconcile[:12]}" if report.last_reconcile else "never reconciled"
    pending = sum(1 for item in report.items if item.finding is Finding.PENDING)
    if report.ok and pending:
        click.echo(
            f"verified {report.commit[:12]} ({base}): no hand edits, the inputs render; {pending} file(s) "
            "pending, written by the reconcile after the merge"
        )
        return
    if report.ok:
        click.echo(
            f"verified {report.commit[:12]}: the output matches its inputs ({base}; {_rendered(report)})"
        )
        return
    click.echo(
        f"verify failed at {report.commit[:12]} ({base}): {len(report.failures)} file(s) stale or edited "
        f"by hand, {len(report.failed_templates)} template(s) failed; run gitops-karmada reconcile "
        "(hand edits of tool-written files belong in the templates or override policies)"
    )


def _rendered(report: VerifyReport) -> str:
    """How much was re-rendered to tell: ``2 of 5,000 templates re-rendered, …``."""
    if report.rendered == report.templates:
        return f"{report.templates:,} template(s) re-rendered"
    return (
        f"{report.rendered:,} of {report.templates:,} template(s) re-rendered, the others vouched for by "
        "their fingerprints"
    )


@click.command("verify")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit to check (never the work tree).")
@output_option("text", "json")
@click.option(
    "--full",
    is_flag=True,
    help="Re-render every template (by default, those whose inputs' fingerprint is unchanged are trusted; "
    "when nothing reconcile reads changed since the last reconcile, none is re-rendered).",
)
@click.option(
    "--allow-stale",
    is_flag=True,
    help="Stale output (inputs not reconciled yet, as on a pull request) is pending, not a failure.",
)
def verify_command(repo: Path, rev: str, output_format: str, full: bool, allow_stale: bool) -> None:
    """Re-render REV and compare with its committed cluster and state folders; exit 1 on any difference.

    Fails on stale output (inputs changed, not reconciled yet) and on hand edits of tool-written files or
    binding records (changed or deleted); hand-written files in the cluster folders are listed as info.
    --allow-stale (a pull request's check): stale output is listed as pending, hand edits still fail.
    """
    report = verify_commit(GitStore.open(repo), rev, full=full, allow_stale=allow_stale)
    if output_format == "json":
        click.echo(to_json(report_dict(report)), nl=False)
    else:
        print_report(report)
    if not report.ok:
        raise click.exceptions.Exit(1)
