"""``gitops-karmada validate``: every check ``reconcile`` would make, in memory, without writing anything.

It runs the same pipeline as ``render`` (loading, matching, interpreting, scheduling, quotas, overrides,
rendering), so whatever ``reconcile`` would refuse or report, ``validate`` reports first: all errors and
warnings, each naming the file, the document and the field.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.kubernetes_schemas import packaged_schemas
from gitops_karmada.cli.options import output_option, source_options
from gitops_karmada.cli.output import echo_diagnostics, to_json
from gitops_karmada.cli.progress import template_progress
from gitops_karmada.core.codecs.yaml_input import field_lines, line_of_field, load_yaml_documents
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.schema_check import check_rendered, schema_checker
from gitops_karmada.core.views.workflow_commands import workflow_command
from gitops_karmada.model.errors import InputError
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.source import read_source

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from gitops_karmada.adapters.repository import RepositoryState
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.reconcile import ReconcileRequest

_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)\b")


def located(
    diagnostics: Sequence[Diagnostic], request: ReconcileRequest, read: Callable[[str], bytes | None]
) -> list[dict[str, Any]]:
    """The diagnostics as JSON-ready objects with a 1-based line: the one a YAML error reports, else the
    field's (``read`` gives a file's bytes), else the document's first line."""
    documents: dict[str, dict[int, int]] = {}
    fields: dict[tuple[str, int], dict[str, int]] = {}
    found = []
    for d in sorted(diagnostics, key=lambda d: (not d.is_error, d.source.path if d.source else "~")):
        item: dict[str, Any] = {"severity": d.severity.value, "message": d.message}
        if d.source is not None:
            path, index = d.source.path, d.source.doc_index
            if path not in documents:
                documents[path] = _document_lines(path, request)
            in_message = _LINE_IN_MESSAGE.search(d.message)
            line = int(in_message.group(1)) if in_message else 0
            if not line and d.field:
                if (path, index) not in fields:
                    raw = read(path)
                    fields[path, index] = field_lines(raw, index) if raw is not None else {}
                line = line_of_field(fields[path, index], d.field)
            line = line or documents[path].get(index, 0)
            item |= {"file": path, "document": index, **({"line": line} if line else {})}
        if d.field:
            item["field"] = d.field
        if d.subject:
            item["subject"] = d.subject
        item["text"] = str(d)
        found.append(item)
    return found


def _check_rendered(repo: Path, state: RepositoryState, inputs: Inputs) -> tuple[Diagnostic, ...]:
    """The committed (or on-disk) cluster folders against their clusters' schemas."""
    checker = schema_checker(
        inputs.config.schema_check.model_copy(update={"enabled": True}), inputs.templates, packaged_schemas()
    )
    assert checker is not None
    blobs = state.request.snapshot.output_blobs
    if state.source is None:
        files = {path: (repo / path).read_bytes() for path in blobs}
    else:
        content = GitStore.open(repo).read_blobs(sorted(set(blobs.values())))
        files = {path: content[oid] for path, oid in blobs.items()}
    clusters = {cluster.name: cluster for cluster in inputs.clusters}
    found, checked, unchecked = check_rendered(files, inputs.config.output.clusters_dir, clusters, checker)
    logger.bind(logger="validate").info(
        "--rendered: {} manifest(s) in the cluster folders checked against their schemas"
        + (f"; {unchecked} of kinds no schema knows were not" if unchecked else ""),
        checked,
    )
    return found


def _file_reader(repo: Path, commit: str | None) -> Callable[[str], bytes | None]:
    """A repository file's bytes at ``commit`` (None: in the work tree)."""
    if commit is None:
        return lambda path: (repo / path).read_bytes() if (repo / path).is_file() else None
    store = GitStore.open(repo)
    return lambda path: store.read_file(commit, path)


def _document_lines(path: str, request: ReconcileRequest) -> dict[int, int]:
    documents = request.snapshot.decoded.get(path) if request.snapshot.decoded is not None else None
    if documents is None:
        raw = request.snapshot.input_files.get(path)
        if raw is None:
            return {}
        try:
            documents = load_yaml_documents(raw)
        except InputError:
            return {}
    if isinstance(documents, InputError):
        return {}
    return {d.index: d.line for d in documents}


def annotation(item: dict[str, Any], *, strict: bool) -> str:
    """One finding as a GitHub annotation (a warning is an error under ``--strict``)."""
    kind = "error" if item["severity"] == "error" or strict else "warning"
    title = f"gitops-karmada validate: {item['field']}" if "field" in item else "gitops-karmada validate"
    return workflow_command(
        kind, item["message"], title, file=item.get("file", ""), line=int(item.get("line", 0))
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
    state = read_source(repo, rev, worktree)
    with template_progress("checking templates") as progress:
        result = reconcile(state.request.with_ports(progress=progress))
    diagnostics = result.diagnostics
    if rendered and result.inputs is not None:
        diagnostics = (*diagnostics, *_check_rendered(repo, state, result.inputs))
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = len(diagnostics) - errors
    failed = bool(errors or (strict and warnings))
    if output_format == "text":
        echo_diagnostics(diagnostics)
    else:
        found = located(diagnostics, state.request, _file_reader(repo, state.source))
        if output_format == "json":
            report = {"valid": not failed, "errors": errors, "warnings": warnings, "diagnostics": found}
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
    inputs = result.inputs
    assert inputs is not None  # no input errors
    propagation = len(inputs.propagation_policies) + len(inputs.cluster_propagation_policies)
    overrides = len(inputs.override_policies) + len(inputs.cluster_override_policies)
    unmatched = sum(1 for o in result.outcomes if o.match.state is ClaimState.UNMATCHED and not o.removed)
    if output_format != "text":
        return
    click.echo(
        f"valid: {len(inputs.templates)} template(s)"
        + (f" ({unmatched} selected by no policy)" if unmatched else "")
        + f", {propagation} propagation policy(ies), {overrides} override policy(ies), "
        f"{len(inputs.clusters)} cluster(s)" + (f"; {warnings} warning(s)" if warnings else "")
    )
