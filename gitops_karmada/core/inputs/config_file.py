"""``gitops-karmada.yaml``: the configuration of a fleet, parsed and checked (light: the up-to-date check of a
run with nothing to do reads it before any of the engine is imported)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from pydantic import ValidationError

from gitops_karmada.core.codecs.serialize import load_yaml_documents
from gitops_karmada.core.inputs.pydantic_errors import doc_index, drop_nulls, validation_diagnostics
from gitops_karmada.core.layout import config_path
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.model.diagnostics import Diagnostic, SourceRef, error
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.guardrails import GuardrailSyntaxError, parse_guardrails


def load_config(raw: bytes | None, root: str = "") -> tuple[ToolConfig, tuple[Diagnostic, ...]]:
    """Parse ``gitops-karmada.yaml`` of a fleet kept in ``root`` (absent → Karmada's defaults); the
    configuration comes back ``rooted`` there. Parsed once per content and root (the same file is read by
    every step of a run, and by every run of a long-lived process)."""
    return _load_config(raw, root)


@functools.lru_cache(maxsize=32)
def _load_config(raw: bytes | None, root: str) -> tuple[ToolConfig, tuple[Diagnostic, ...]]:
    config, problems = _parse_config(raw, config_path(root))
    return config.rooted(root), problems


def _parse_config(raw: bytes | None, path: str) -> tuple[ToolConfig, tuple[Diagnostic, ...]]:
    if raw is None:
        return ToolConfig(), ()
    source = SourceRef(path, 0)
    try:
        documents = [d for d in load_yaml_documents(raw) if d.body is not None]
    except InputError as err:
        return ToolConfig(), (error(err.message, SourceRef(path, doc_index(err))),)
    if len(documents) != 1 or not isinstance(documents[0].body, Mapping):
        return ToolConfig(), (error("must hold exactly one mapping document", source),)
    try:
        config = ToolConfig.model_validate(drop_nulls(documents[0].body))
    except ValidationError as err:
        source = SourceRef(path, documents[0].index)
        return ToolConfig(), tuple(validation_diagnostics(err, source, model=ToolConfig))
    problems = []
    for i, spec in enumerate(config.guardrails):
        try:
            parse_guardrails([spec])
        except GuardrailSyntaxError as err:
            problems.append(error(err.message, SourceRef(path, documents[0].index), f"guardrails[{i}]"))
    return (ToolConfig(), tuple(problems)) if problems else (config, ())
