"""``gitops-karmada validate``: every check ``reconcile`` would make, in memory, without writing anything.

It runs the same pipeline as ``render`` (loading, matching, interpreting, scheduling, quotas, overrides,
rendering), so whatever ``reconcile`` would refuse or report, ``validate`` reports first: all errors and
warnings, each naming the file, the document and the field.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.cli.options import read_source, source_options
from gitops_karmada.cli.output import echo_diagnostics
from gitops_karmada.cli.progress import template_progress
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.reconcile import reconcile

if TYPE_CHECKING:
    from pathlib import Path


@click.command()
@source_options
@click.option("--strict", is_flag=True, help="Treat every warning as an error (exit 1 on any).")
def validate(repo: Path, rev: str, worktree: bool, strict: bool) -> None:
    """Check templates, policies, clusters and binding records, and run the pipeline without writing."""
    state = read_source(repo, rev, worktree)
    with template_progress("checking templates") as progress:
        result = reconcile(replace(state.request, progress=progress))
    diagnostics = result.diagnostics
    echo_diagnostics(diagnostics)
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = len(diagnostics) - errors
    if errors or (strict and warnings):
        counted = f"{errors} error(s)" + (
            f" and {warnings} warning(s) (--strict)" if strict and warnings else ""
        )
        logger.bind(logger="validate").error("{} found", counted)
        raise click.exceptions.Exit(1)
    inputs = result.inputs
    assert inputs is not None  # no input errors
    propagation = len(inputs.propagation_policies) + len(inputs.cluster_propagation_policies)
    overrides = len(inputs.override_policies) + len(inputs.cluster_override_policies)
    unmatched = sum(1 for o in result.outcomes if o.match.state is ClaimState.UNMATCHED and not o.removed)
    click.echo(
        f"valid: {len(inputs.templates)} template(s)"
        + (f" ({unmatched} selected by no policy)" if unmatched else "")
        + f", {propagation} propagation policy(ies), {overrides} override policy(ies), "
        f"{len(inputs.clusters)} cluster(s)" + (f"; {warnings} warning(s)" if warnings else "")
    )
