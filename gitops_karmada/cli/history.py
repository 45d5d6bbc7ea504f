"""``gitops-karmada history KIND/NS/NAME``: the commits that changed a workload's placement."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.repository import rfc3339
from gitops_karmada.cli.completion import complete_reference
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.cli.output import to_json
from gitops_karmada.cli.tables import terminal_width
from gitops_karmada.usecases.history import RecordChange, template_history
from gitops_karmada.usecases.lifecycle import LifecycleError, TemplateReference

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.usecases.history import TemplateHistory


def history_table(history: TemplateHistory, width: int | None = None) -> str:
    table = Table(show_lines=False, pad_edge=False, box=None, header_style="bold")
    for column in ("COMMIT", "DATE", "ORIGIN", "SOURCE", "POLICY", "RECORD", "CLUSTERS", "CONDITIONS"):
        table.add_column(column, no_wrap=column not in ("CLUSTERS", "CONDITIONS"))
    for row in history.rows:
        table.add_row(
            row.commit[:12],
            rfc3339(row.committed_at),
            row.origin,
            row.source_commit[:12] if row.source_commit else "-",
            row.policy,
            row.change.value,
            ", ".join(str(move) for move in row.moves)
            or ("no placement change" if row.change is RecordChange.UPDATED else "-"),
            "; ".join(str(change) for change in row.conditions) or "-",
        )
    buffer = io.StringIO()
    Console(file=buffer, width=width or terminal_width(), color_system=None, highlight=False).print(table)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _template_reference(_ctx: click.Context, _param: click.Parameter, text: str) -> TemplateReference:
    try:
        return TemplateReference.parse(text)
    except LifecycleError as err:
        raise click.BadParameter(str(err)) from None


@click.command("history")
@click.argument("template", callback=_template_reference, shell_complete=complete_reference)
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="Where the history walk starts.")
@output_option("text", "json")
def history_command(template: TemplateReference, repo: Path, rev: str, output_format: str) -> None:
    """List the commits that changed TEMPLATE's binding record, newest first, with the replica moves.

    TEMPLATE is KIND/NAMESPACE/NAME, or KIND/NAME for a cluster-scoped object; KIND is Kind or Kind.group
    (Deployment/shop/cart, Deployment.apps/shop/cart, Namespace/shop). Reads records only; never renders.
    """
    history = template_history(GitStore.open(repo), rev, template)
    if output_format == "json":
        click.echo(to_json(history.to_dict()), nl=False)
        return
    click.echo(f"{history.template}  (record {history.record})")
    click.echo(history_table(history), nl=False)
