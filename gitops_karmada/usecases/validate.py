"""Validate: every check ``reconcile`` would make, in memory, without writing anything.

It runs the same pipeline as ``render`` (loading, matching, interpreting, scheduling, quotas, overrides,
rendering), so whatever ``reconcile`` would refuse or report, ``validate`` reports first: all errors and
warnings, each naming the file, the document and the field; then what the API server would refuse that
no run checks (``core.lint.api_server_checks``). With ``rendered`` the files already in the
cluster folders are checked against their clusters' schemas too. ``locate`` gives each finding its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.kubernetes_schemas import packaged_schemas
from gitops_karmada.core.codecs.yaml_input import field_lines, line_of_field, load_yaml_documents
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.host_limits import folder_entries, host_limit_findings, touched_folders
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.lint import api_server_checks
from gitops_karmada.core.schema_check import check_rendered, schema_checker
from gitops_karmada.model.errors import InputError
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.source import read_source

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from gitops_karmada.adapters.repository import RepositoryState
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.reconcile import ReconcileRequest, RenderResult

_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)\b")


@dataclass(frozen=True, slots=True)
class ValidSummary:
    """What a valid input holds (the line ``validate`` ends with)."""

    templates: int
    unmatched: int
    """Templates no policy selects."""
    propagation_policies: int
    override_policies: int
    clusters: int


@dataclass(frozen=True, slots=True)
class Validation:
    repo: Path
    state: RepositoryState
    """What was read (a commit, or the files on disk)."""
    result: RenderResult
    diagnostics: tuple[Diagnostic, ...]
    """The run's, then (with ``rendered``) those of the files in the cluster folders."""

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors

    def failed(self, *, strict: bool) -> bool:
        """Any error; under ``strict`` any warning too."""
        return bool(self.errors or (strict and self.warnings))

    @property
    def summary(self) -> ValidSummary | None:
        """None when the input does not load."""
        inputs = self.result.inputs
        if inputs is None:
            return None
        unmatched = sum(
            1 for o in self.result.outcomes if o.match.state is ClaimState.UNMATCHED and not o.removed
        )
        return ValidSummary(
            templates=len(inputs.templates),
            unmatched=unmatched,
            propagation_policies=len(inputs.propagation_policies) + len(inputs.cluster_propagation_policies),
            override_policies=len(inputs.override_policies) + len(inputs.cluster_override_policies),
            clusters=len(inputs.clusters),
        )


@dataclass(frozen=True, slots=True)
class LocatedDiagnostic:
    """One finding with a 1-based line (0: unknown): the one a YAML error reports, else the field's, else
    the document's first line."""

    severity: str
    message: str
    text: str
    """The whole diagnostic as one line of text."""
    file: str | None = None
    document: int = 0
    line: int = 0
    field: str = ""
    subject: str = ""

    def to_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {"severity": self.severity, "message": self.message}
        if self.file is not None:
            item |= {
                "file": self.file,
                "document": self.document,
                **({"line": self.line} if self.line else {}),
            }
        if self.field:
            item["field"] = self.field
        if self.subject:
            item["subject"] = self.subject
        item["text"] = self.text
        return item


def validate_source(
    repo: Path,
    rev: str,
    worktree: bool,
    *,
    rendered: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Validation:
    """Run the pipeline on ``rev`` of ``repo`` (``worktree``: its files on disk) without writing; with
    ``rendered`` check the files in the cluster folders against their schemas too."""
    state = read_source(repo, rev, worktree)
    result = reconcile(state.request.with_ports(progress=progress))
    diagnostics = result.diagnostics
    if result.inputs is not None:
        diagnostics = (*diagnostics, *_api_server_checks(result))
    if rendered and result.inputs is not None:
        diagnostics = (*diagnostics, *_check_rendered(repo, state, result.inputs))
    return Validation(repo, state, result, tuple(diagnostics))


def _api_server_checks(result: RenderResult) -> list[Diagnostic]:
    """What the API server would refuse that no run checks (``core.lint.api_server_checks``): namespaces
    nothing creates, Secret data that is not base64, templates no policy selects that fail their schema."""
    inputs = result.inputs
    assert inputs is not None
    unmatched = {o.key.identity for o in result.outcomes if o.match.state is ClaimState.UNMATCHED}
    checker = schema_checker(inputs.config.schema_check, inputs.templates, packaged_schemas())
    return api_server_checks(inputs.templates, unmatched, checker)


def locate(validation: Validation) -> tuple[LocatedDiagnostic, ...]:
    """The findings, errors first, each with its line (read from the files the findings name)."""
    return located(validation.diagnostics, validation.state.request, _file_reader(validation))


def located(
    diagnostics: Sequence[Diagnostic], request: ReconcileRequest, read: Callable[[str], bytes | None]
) -> tuple[LocatedDiagnostic, ...]:
    """``diagnostics`` with their lines; ``read`` gives a file's bytes (for a field's line)."""
    documents: dict[str, dict[int, int]] = {}
    fields: dict[tuple[str, int], dict[str, int]] = {}
    found = []
    for d in sorted(diagnostics, key=lambda d: (not d.is_error, d.source.path if d.source else "~")):
        item = LocatedDiagnostic(d.severity.value, d.message, str(d), field=d.field, subject=d.subject)
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
            item = LocatedDiagnostic(
                d.severity.value, d.message, str(d), path, index, line, field=d.field, subject=d.subject
            )
        found.append(item)
    return tuple(found)


def _check_rendered(repo: Path, state: RepositoryState, inputs: Inputs) -> tuple[Diagnostic, ...]:
    """The committed (or on-disk) cluster folders against their clusters' schemas."""
    checker = schema_checker(
        inputs.config.schema_check.model_copy(update={"enabled": True}), inputs.templates, packaged_schemas()
    )
    assert checker is not None
    blobs = state.request.snapshot.output_blobs
    read = state.request.ports.read_output
    if state.source is None and read is not None:
        files = {path: raw for path in blobs if (raw := read(path)) is not None}
    else:
        content = GitStore.open(repo).read_blobs(sorted(set(blobs.values())))
        files = {path: content[oid] for path, oid in blobs.items()}
    clusters = {cluster.name: cluster for cluster in inputs.clusters}
    layout = RepoLayout.of(inputs.config)
    found, checked, unchecked = check_rendered(files, layout, clusters, checker)
    logger.bind(logger="validate").info(
        "--rendered: {} manifest(s) in the cluster folders checked against their schemas"
        + (f"; {unchecked} of kinds no schema knows were not" if unchecked else ""),
        checked,
    )
    # every cluster folder as committed, against what a Git host handles well
    counts = folder_entries(
        {}, ((path, True) for path in files), touched_folders(files, (layout.clusters_dir,))
    )
    sizes = {path: len(content) for path, content in files.items()}
    limits = host_limit_findings(counts, sizes, inputs.config.output.host_limits, layout)
    return (*found, *(finding.to_diagnostic() for finding in limits))


def _file_reader(validation: Validation) -> Callable[[str], bytes | None]:
    """A repository file's bytes as validated: at the commit read, or in the work tree."""
    repo, commit = validation.repo, validation.state.source
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
