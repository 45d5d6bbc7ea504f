"""``gitops-karmada describe REF``: one binding, propagation policy or cluster in detail, with its events.

REF is a template reference (``Deployment/shop/cart``: its binding), ``pp/NAMESPACE/NAME``,
``cpp/NAME``, ``rollout/NAMESPACE/NAME`` or ``cluster/NAME``. The events are the commits that changed the
object: for a binding the commits that changed its record (as ``history`` lists them), for a policy, a
rollout or a cluster the commits that changed its document. The use case (``usecases.describe``) reads
it; this verb prints it (kubectl-describe's layout, YAML or JSON). Reads records and inputs only; never
renders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.completion import complete_describe
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.cli.output import to_json, to_yaml
from gitops_karmada.cli.tables import plain_table
from gitops_karmada.usecases.describe import BadReferenceError, describe

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.core.views.description import Description


@click.command("describe")
@click.argument("reference", metavar="REF", shell_complete=complete_describe)
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit to read.")
@output_option("text", "yaml", "json")
def describe_command(reference: str, repo: Path, rev: str, output_format: str) -> None:
    """Show one object in detail: a binding (KIND/NAMESPACE/NAME), pp/NS/NAME, cpp/NAME, rollout/NS/NAME
    or cluster/NAME.

    Fields, placement, conditions and the bindings it concerns, then Events: the commits that changed it,
    newest first.
    """
    try:
        description = describe(GitStore.open(repo), rev, reference)
    except BadReferenceError as err:
        raise click.BadParameter(str(err), param_hint="REF") from None
    if output_format == "json":
        click.echo(to_json(description.to_dict()), nl=False)
    elif output_format == "yaml":
        click.echo(to_yaml(description.to_dict()), nl=False)
    else:
        click.echo(description_text(description), nl=False)


def description_text(description: Description) -> str:
    """kubectl-describe's layout: aligned ``Field:`` lines, then each section as an indented table."""
    width = max((len(name) for name, _ in description.fields), default=0) + 2
    lines = [f"{name + ':':<{width}}{value}\n" for name, value in description.fields]
    for section in description.sections:
        lines.append(f"{section.title}:\n")
        if not section.rows:
            lines.append("  <none>\n")
            continue
        table = plain_table(section.columns, section.rows, right=frozenset({"REPLICAS"}))
        lines.extend(f"  {line}" for line in table.splitlines(keepends=True))
    return "".join(lines)
