"""Formatting of results for people and machines: diagnostics, the placement table, JSON/YAML lists."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import orjson
from loguru import logger
from rich.console import Console
from rich.table import Table

from gitops_karmada.cli.tables import terminal_width
from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.serialize import dump_yaml

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.reconcile import RenderResult


def _diagnostic_order(d: Diagnostic) -> tuple[bool, str, int]:
    return (not d.is_error, d.source.path if d.source else "~", d.source.doc_index if d.source else 0)


def echo_diagnostics(diagnostics: Sequence[Diagnostic]) -> None:
    """Each diagnostic through the logger, errors first, then in source order, with its place as fields."""
    for diagnostic in sorted(diagnostics, key=_diagnostic_order):
        place: dict[str, Any] = {}
        if diagnostic.source is not None:
            place["file"] = diagnostic.source.path
            place["document"] = diagnostic.source.doc_index
        if diagnostic.field:
            place["field"] = diagnostic.field
        if diagnostic.subject:
            place["subject"] = diagnostic.subject
        logger.bind(logger="diagnostics", **place).log(diagnostic.severity.value.upper(), "{}", diagnostic)


def binding_list(bindings: Iterable[ResourceBinding]) -> dict[str, Any]:
    """A Kubernetes ``List`` of the binding records, ordered by template identity."""
    ordered = sorted(
        bindings,
        key=lambda b: (
            b.spec.resource.namespace,
            b.spec.resource.kind,
            b.spec.resource.name,
            b.spec.resource.api_version,
        ),
    )
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [b.to_api() for b in ordered]}


def to_json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def to_yaml(data: Any) -> str:
    return dump_yaml(data)


def _cell(binding: ResourceBinding, cluster: str) -> str:
    rendered = set(applied_clusters(binding))
    for target in binding.spec.clusters:
        if target.name == cluster:
            mark = str(target.replicas) if (binding.spec.replicas or target.replicas) else "✓"
            return mark if cluster in rendered else f"{mark} (not written)"
    # sent there for the workloads that require it (propagateDeps)
    return "✓" if cluster in rendered else "-"


def placement_table(result: RenderResult, width: int | None = None, *, only_redone: bool = False) -> str:
    """Templates × clusters: replicas per cluster (✓ for objects without replicas, - when absent).

    ``only_redone``: only the templates the run computed (not those reused from the previous run).
    """
    clusters = [c.name for c in result.inputs.clusters] if result.inputs is not None else []
    table = Table(show_lines=False, pad_edge=False, box=None, header_style="bold")
    table.add_column("TEMPLATE", no_wrap=True)
    table.add_column("POLICY", no_wrap=True)
    for cluster in clusters:
        table.add_column(cluster.upper(), justify="right", no_wrap=True)
    table.add_column("STATUS", no_wrap=True)
    for outcome in result.outcomes:
        if only_redone and outcome.reused:
            continue
        binding = outcome.binding
        if binding is None:
            # nothing vanishes from the table: unmatched, waiting, ignored and removed templates are rows too
            status = ("released" if outcome.released else "removed") if outcome.removed else None
            table.add_row(
                str(outcome.key), "-", *("-" for _ in clusters), status or outcome.match.state.value
            )
            continue
        policy = outcome.match.policy
        # kubectl short names: pp / cpp
        if policy is None:
            policy_name = outcome.match.state.value
        else:
            policy_name = f"{'cpp' if policy.is_cluster_scoped else 'pp'}/{policy.name}"
        status = "failed" if outcome.failed else "ok"
        table.add_row(str(outcome.key), policy_name, *(_cell(binding, c) for c in clusters), status)
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or terminal_width(), color_system=None, highlight=False)
    console.print(table)
    if result.quotas:
        quotas = Table(pad_edge=False, box=None, header_style="bold")
        for column in ("FEDERATEDRESOURCEQUOTA", "RESOURCE", "USED", "OVERALL"):
            quotas.add_column(column, no_wrap=True)
        for frq in result.quotas:
            for resource, limit in sorted(frq.spec.overall.items()):
                used = frq.status.overall_used.get(resource)
                quotas.add_row(
                    f"{frq.namespace}/{frq.name}", resource, str(used) if used else "0", str(limit)
                )
        console.print()
        console.print(quotas)
    return buffer.getvalue()
