"""``gitops-karmada render``: compute placement and manifests without writing to the repository.

The use case (``usecases.render``) runs the pipeline; this verb prints the placement table or the List of
binding records (or explanations), and with ``--out`` writes the rendered tree to a folder.
"""

from __future__ import annotations

from pathlib import Path

import click
from loguru import logger

from gitops_karmada.adapters.directory import write_tree
from gitops_karmada.cli.options import output_option, source_options
from gitops_karmada.cli.output import binding_list, echo_diagnostics, placement_table, to_json, to_yaml
from gitops_karmada.cli.progress import template_progress
from gitops_karmada.core.failover.metrics import eviction_metrics
from gitops_karmada.usecases.explain import all_explanations
from gitops_karmada.usecases.render import render_source


@click.command()
@source_options
@output_option("text", "yaml", "json")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the rendered tree (cluster folders and state folder) under this folder.",
)
@click.option(
    "--explain",
    "with_explanations",
    is_flag=True,
    help="With -o json/yaml: a List of Explanation objects (what `explain` shows) instead of bindings.",
)
def render(
    repo: Path, rev: str, worktree: bool, output_format: str, out_dir: Path | None, with_explanations: bool
) -> None:
    """Compute placement, bindings and rendered manifests; print them, write nothing to the repository.

    -o json/yaml: a List of the binding records; with the Failover feature gate on, its `metrics` field
    holds what this run did to the eviction queue under Karmada's metric names.
    """
    with template_progress() as progress:
        result = render_source(repo, rev, worktree, explain=with_explanations, progress=progress)
    echo_diagnostics(result.diagnostics)
    if not result.input_ok:
        raise click.exceptions.Exit(1)
    listing = all_explanations(result) if with_explanations else binding_list(result.bindings)
    if result.failover is not None and not with_explanations:
        # the eviction queue's metrics of this run, under Karmada's names (the daemon's /metrics has them too)
        listing["metrics"] = eviction_metrics(result.failover).to_api()
    if output_format == "json":
        click.echo(to_json(listing), nl=False)
    elif output_format == "yaml":
        click.echo(to_yaml(listing), nl=False)
    else:
        click.echo(placement_table(result), nl=False)
    if out_dir is not None:
        write_tree(out_dir, result.files)
        logger.bind(logger="render").info("wrote {} file(s) under {}", len(result.files), out_dir)
    if result.failed_templates:
        raise click.exceptions.Exit(1)
