"""``gitops-karmada validate``: check every document and report all errors (file, document, field)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.cli.options import read_source, source_options
from gitops_karmada.cli.output import echo_diagnostics
from gitops_karmada.core.loading import load, load_bindings

if TYPE_CHECKING:
    from pathlib import Path


@click.command()
@source_options
def validate(repo: Path, rev: str, worktree: bool) -> None:
    """Validate templates, policies, clusters and binding records; exit 1 on any error."""
    state = read_source(repo, rev, worktree)
    request = state.request
    loaded = load(request.input_files, request.config)
    _, state_diagnostics = load_bindings(request.state_files)
    diagnostics = [*request.config_diagnostics, *loaded.diagnostics, *state_diagnostics]
    echo_diagnostics(diagnostics)
    errors = sum(1 for d in diagnostics if d.is_error)
    inputs = loaded.inputs
    if errors:
        click.echo(f"{errors} error(s) found", err=True)
        raise click.exceptions.Exit(1)
    propagation = len(inputs.propagation_policies) + len(inputs.cluster_propagation_policies)
    overrides = len(inputs.override_policies) + len(inputs.cluster_override_policies)
    click.echo(
        f"valid: {len(inputs.templates)} template(s), {propagation} propagation policy(ies), "
        f"{overrides} override policy(ies), {len(inputs.clusters)} cluster(s)"
    )
