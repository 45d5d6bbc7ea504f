"""Formatting of results for people and machines: diagnostics, the placement table, JSON/YAML lists."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from loguru import logger

from gitops_karmada.cli.tables import plain_table
from gitops_karmada.core.binding import RENDERED_CLUSTERS_ANNOTATION, applied_clusters
from gitops_karmada.core.codecs.serialize import dump_yaml

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Sequence

    from gitops_karmada.core.diff.removals import RemovalGroup
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


def _cells(binding: ResourceBinding, clusters: Sequence[str]) -> list[str]:
    """One row's cells: replicas per cluster, ✓ for objects without replicas, - where it is not placed."""
    rendered = set(applied_clusters(binding))
    counted = bool(binding.spec.replicas)
    targets = {t.name: t for t in binding.spec.clusters}
    cells = []
    for cluster in clusters:
        target = targets.get(cluster)
        if target is None:
            # sent there for the workloads that require it (propagateDeps)
            cells.append("✓" if cluster in rendered else "-")
            continue
        mark = str(target.replicas) if (counted or target.replicas) else "✓"
        cells.append(mark if cluster in rendered else f"{mark} (not written)")
    return cells


def placement_table(result: RenderResult, width: int | None = None, *, only_redone: bool = False) -> str:
    """Templates × clusters: replicas per cluster (✓ for objects without replicas, - when absent).

    ``only_redone``: only the templates the run computed (not those reused from the previous run).
    No rows, no table: an empty string (and no quota table either: it shows what those rows placed).
    A plain writer, not rich: at 5,000 templates × 50 clusters rich's layout took longer than the run.
    """
    clusters = [c.name for c in result.inputs.clusters] if result.inputs is not None else []
    columns = ["TEMPLATE", "POLICY", *(c.upper() for c in clusters), "STATUS"]
    rows: list[list[str]] = []
    # bindings placed alike share their targets' objects (``model.bindings.shared_targets``) and their
    # cells: a first run at fleet XL fills 20,000 rows of 200 clusters, and made each cell anew for 2 s
    cells: dict[tuple[object, ...], list[str]] = {}
    for outcome in result.outcomes:
        if only_redone and outcome.reused:
            continue
        binding = outcome.binding
        if binding is None:
            # nothing vanishes from the table: unmatched, waiting, ignored and removed templates are rows too
            status = ("released" if outcome.released else "removed") if outcome.removed else None
            rows.append(
                [str(outcome.key), "-", *("-" for _ in clusters), status or outcome.match.state.value]
            )
            continue
        policy = outcome.match.policy
        # kubectl short names: pp / cpp
        if policy is None:
            policy_name = outcome.match.state.value
        else:
            policy_name = f"{'cpp' if policy.is_cluster_scoped else 'pp'}/{policy.name}"
        shape = (
            bool(binding.spec.replicas),
            tuple(map(id, binding.spec.clusters)),  # the bindings, so their targets, outlive the table
            binding.metadata.annotations.get(RENDERED_CLUSTERS_ANNOTATION) or applied_clusters(binding),
        )
        row = cells.get(shape)
        if row is None:
            row = cells[shape] = _cells(binding, clusters)
        rows.append([str(outcome.key), policy_name, *row, outcome.status])
    if not rows:
        return ""
    right = frozenset(c.upper() for c in clusters)
    text = plain_table(columns, rows, width=width, right=right)
    if result.quotas:
        quota_rows = []
        for frq in result.quotas:
            for resource, limit in sorted(frq.spec.overall.items()):
                used = frq.status.overall_used.get(resource)
                quota_rows.append(
                    [f"{frq.namespace}/{frq.name}", resource, str(used) if used else "0", str(limit)]
                )
        quota_columns = ("FEDERATEDRESOURCEQUOTA", "RESOURCE", "USED", "OVERALL")
        text += "\n" + plain_table(quota_columns, quota_rows, width=width)
    return text


def removals_text(groups: Sequence[RemovalGroup], refused: Container[str]) -> str:
    """What leaves the cluster folders, by cause and the input change behind it; ``refused``: the causes
    that stop this commit (each says the ``--allow`` that lifts it)."""
    if not groups:
        return ""
    files = sum(len(g.paths) for g in groups)
    lines = [f"REMOVED FROM CLUSTER FOLDERS: {files} file(s), by cause"]
    for group in groups:
        cause = group.cause.value
        verdict = (
            "deliberate"
            if group.deliberate
            else f"refused: --allow {cause}"
            if cause in refused
            else "allowed"
        )
        lines.append(f"  {cause} ({verdict}): {group.change}")
        owners = ", ".join(group.owners[:5]) + (
            f" and {len(group.owners) - 5} more" if len(group.owners) > 5 else ""
        )
        lines.append(f"    {owners} from {', '.join(group.clusters)}")
    return "\n".join(lines) + "\n"
