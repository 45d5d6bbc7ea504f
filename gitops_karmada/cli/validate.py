"""``gitops-karmada validate``: every check ``reconcile`` would make, in memory, without writing anything.

The use case (``usecases.validate``) runs the pipeline and locates the findings; this verb prints them
(log lines, a JSON report or GitHub annotations) and exits 1 on an error (or, with ``--strict``, a warning).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.cli.options import output_option, source_options
from gitops_karmada.cli.output import echo_diagnostics, to_json
from gitops_karmada.cli.progress import template_progress
from gitops_karmada.core.views.workflow_commands import workflow_command
from gitops_karmada.usecases.validate import locate, validate_source

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.usecases.validate import LocatedDiagnostic, ValidSummary


def annotation(item: LocatedDiagnostic, *, strict: bool) -> str:
    """One finding as a GitHub annotation (a warning is an error under ``--strict``)."""
    kind = "error" if item.severity == "error" or strict else "warning"
    title = f"gitops-karmada validate: {item.field}" if item.field else "gitops-karmada validate"
    return workflow_command(kind, item.message, title, file=item.file or "", line=item.line)


def summary_line(summary: ValidSummary, warnings: int) -> str:
    """``valid: 12 template(s), 3 propagation policy(ies), ...``."""
    return (
        f"valid: {summary.templates} template(s)"
        + (f" ({summary.unmatched} selected by no policy)" if summary.unmatched else "")
        + f", {summary.propagation_policies} propagation policy(ies), "
        f"{summary.override_policies} override policy(ies), "
        f"{summary.clusters} cluster(s)" + (f"; {warnings} warning(s)" if warnings else "")
    )


@click.command()
@source_options
@click.option("--strict", is_flag=True, help="Treat every warning as an error (exit 1 on any).")
@click.option(
    "--rendered",
    is_flag=True,
    help="Also check every manifest in the cluster folders (hand-written ones too) against its schema.",
)
@output_option("text", "json", "github")
def validate(repo: Path, rev: str, worktree: bool, strict: bool, rendered: bool, output_format: str) -> None:
    """Check templates, policies, clusters and binding records, and run the pipeline without writing.

    Every manifest the run renders is checked against its cluster's Kubernetes schema (and the CRDs in
    the repository); --rendered checks the files already in the cluster folders as well.
    """
    with template_progress("checking templates") as progress:
        validation = validate_source(repo, rev, worktree, rendered=rendered, progress=progress)
    errors, warnings = validation.errors, validation.warnings
    failed = validation.failed(strict=strict)
    if output_format == "text":
        echo_diagnostics(validation.diagnostics)
    else:
        found = locate(validation)
        if output_format == "json":
            report = {
                "valid": not failed,
                "errors": errors,
                "warnings": warnings,
                "diagnostics": [item.to_dict() for item in found],
            }
            click.echo(to_json(report), nl=False)
        else:
            for item in found:
                click.echo(annotation(item, strict=strict))
    if failed:
        counted = f"{errors} error(s)" + (
            f" and {warnings} warning(s) (--strict)" if strict and warnings else ""
        )
        logger.bind(logger="validate").error("{} found", counted)
        raise click.exceptions.Exit(1)
    summary = validation.summary
    assert summary is not None  # no input errors
    if output_format == "text":
        click.echo(summary_line(summary, warnings))
