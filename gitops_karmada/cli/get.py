"""``gitops-karmada get KIND [NAME...]``: list bindings, clusters, policies, overrides or quotas like kubectl.

The use case (``usecases.get``) reads the committed records and inputs of a revision (never rendering);
this verb parses kubectl's options and prints the listing. Namespaces follow kubectl: ``-n NS`` (default
``default``), ``-A`` for every namespace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.completion import (
    complete_cluster,
    complete_get_name,
    complete_kind,
    complete_namespace,
)
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.cli.output import echo_diagnostics, to_json, to_yaml
from gitops_karmada.cli.tables import plain_table, totals_line
from gitops_karmada.core.views.label_query import SelectorSyntaxError, parse_label_query
from gitops_karmada.core.views.listing import KIND_ALIASES, STATUS_WORDS, ListedKind, Listing
from gitops_karmada.usecases.get import DEFAULT_NAMESPACE, GetQuery, get_listing

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.core.views.listing import Listed

NUMERIC_COLUMNS = frozenset({"REPLICAS", "BINDINGS", "PRIORITY", "RULES"})


def _kind(_ctx: click.Context, _param: click.Parameter, text: str) -> tuple[ListedKind, str | None]:
    kind = KIND_ALIASES.get(text.lower())
    if kind is None:
        known = ", ".join(k.value for k in ListedKind)
        raise click.BadParameter(f"{text!r} is not one of {known} (or rb, crb, pp, cpp, op, cop, frq)")
    return kind


def table_text(listing: Listing, *, wide: bool, show_namespace: bool, width: int | None = None) -> str:
    """The listing as a kubectl-style table, then its totals."""
    columns = [c for c in listing.columns if show_namespace or c != "NAMESPACE"]
    if wide:
        columns += listing.wide_columns
    rows = [[item.cells[c] for c in columns] for item in listing.items]
    return plain_table(columns, rows, width=width, right=NUMERIC_COLUMNS) + totals_line(listing.totals)


def _api_list(items: tuple[Listed, ...], single: bool) -> object:
    if single and len(items) == 1:
        return dict(items[0].api)
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [dict(i.api) for i in items]}


@click.command("get")
@click.argument("kind_and_api_kind", metavar="KIND", callback=_kind, shell_complete=complete_kind)
@click.argument("names", nargs=-1, shell_complete=complete_get_name)
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit to read.")
@click.option(
    "-n",
    "--namespace",
    default=None,
    help=f"Only this namespace (default: {DEFAULT_NAMESPACE}).",
    shell_complete=complete_namespace,
)
@click.option("-A", "--all-namespaces", is_flag=True, help="Every namespace.")
@click.option("-l", "--selector", default="", help="Label selector, kubectl syntax (env=prod,tier in (web)).")
@click.option(
    "--cluster",
    default=None,
    help="Only objects placed on (or about) this member cluster.",
    shell_complete=complete_cluster,
)
@click.option(
    "--status",
    "statuses",
    multiple=True,
    help="Only objects in this state; bindings: "
    + "|".join(STATUS_WORDS[ListedKind.BINDINGS])
    + "; clusters: "
    + "|".join(STATUS_WORDS[ListedKind.CLUSTERS])
    + " (repeatable).",
)
@output_option("text", "wide", "yaml", "json", "name")
def get_command(
    kind_and_api_kind: tuple[ListedKind, str | None],
    names: tuple[str, ...],
    repo: Path,
    rev: str,
    namespace: str | None,
    all_namespaces: bool,
    selector: str,
    cluster: str | None,
    statuses: tuple[str, ...],
    output_format: str,
) -> None:
    """List KIND: bindings (rb, crb), clusters, policies (pp, cpp), overrides (op, cop) or quotas (frq).

    Bindings and quotas are the committed records (what the last reconcile decided); clusters, policies and
    overrides are the inputs, with the bindings that use them counted. Nothing is rendered.
    """
    kind, api_kind = kind_and_api_kind
    if all_namespaces and namespace is not None:
        raise click.UsageError("-n and -A exclude each other")
    allowed = STATUS_WORDS.get(kind, ())
    for status in statuses:
        if status not in allowed:
            known = "|".join(allowed) if allowed else "nothing (no status for this kind)"
            raise click.BadParameter(
                f"{status!r}: {kind.value} can be filtered by {known}", param_hint="--status"
            )
    try:
        label_selector = parse_label_query(selector) if selector else None
    except SelectorSyntaxError as err:
        raise click.BadParameter(str(err), param_hint="-l") from None
    query = GetQuery(
        kind=kind,
        api_kind=api_kind,
        names=names,
        namespace=namespace,
        all_namespaces=all_namespaces,
        selector=label_selector,
        cluster=cluster,
        statuses=frozenset(statuses),
    )
    found = get_listing(GitStore.open(repo), rev, query)
    echo_diagnostics(found.errors)
    listing, scope = found.listing, found.scope
    for name in found.missing:
        where = f" in namespace {scope}" if scope else ""
        close = found.close.get(name, ())
        named = " (a binding is named after its template and kind)" if kind is ListedKind.BINDINGS else ""
        hint = f"; {kind.value} whose name starts with {name!r}: {', '.join(close)}{named}" if close else ""
        logger.bind(logger="get").error("{} {!r} not found{}{}", kind.value, name, where, hint)
    _show(listing, output_format, show_namespace=scope is None and found.namespaced, single=len(names) == 1)
    if not listing.items and not names:
        _explain_empty(kind, scope)
    if names and len(listing.items) < len(set(names)):
        raise click.exceptions.Exit(1)


def _show(listing: Listing, output_format: str, *, show_namespace: bool, single: bool) -> None:
    match output_format:
        case "json":
            click.echo(to_json(_api_list(listing.items, single)), nl=False)
        case "yaml":
            click.echo(to_yaml(_api_list(listing.items, single)), nl=False)
        case "name":
            for item in listing.items:
                click.echo(item.kind_name)
        case _:
            if listing.items:
                wide = output_format == "wide"
                click.echo(table_text(listing, wide=wide, show_namespace=show_namespace), nl=False)


def _explain_empty(kind: ListedKind, scope: str | None) -> None:
    where = f" in {scope} namespace" if scope else ""
    hint = " (-A lists every namespace)" if scope else ""
    logger.bind(logger="get").info("No {} found{}{}.", kind.value, where, hint)
