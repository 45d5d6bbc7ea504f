"""``gitops-karmada explain KIND/NAMESPACE/NAME``: why a template is placed where it is, step by step.

The use case (``usecases.explain``) reads the source and makes the explanation; this verb prints it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.cli.completion import complete_reference
from gitops_karmada.cli.options import output_option, source_options
from gitops_karmada.cli.output import echo_diagnostics, to_json
from gitops_karmada.usecases.explain import explain_source, explanation, explanation_text, find_outcome

if TYPE_CHECKING:
    from pathlib import Path


@click.command()
@click.argument("reference", metavar="KIND/NAMESPACE/NAME", shell_complete=complete_reference)
@source_options
@output_option("text", "json")
@click.option("--fresh", is_flag=True, help="Explain the Fresh division `reschedule` would make instead.")
def explain(reference: str, repo: Path, rev: str, worktree: bool, output_format: str, fresh: bool) -> None:
    """Explain the placement of one template: policy, interpretation, scheduling, overrides."""
    result = explain_source(repo, rev, worktree, reference, fresh=fresh)
    if not result.input_ok:
        echo_diagnostics(result.diagnostics)
        raise click.exceptions.Exit(1)
    outcome = find_outcome(result, reference)
    if output_format == "json":
        click.echo(to_json(explanation(outcome)), nl=False)
    else:
        click.echo(explanation_text(outcome), nl=False)
