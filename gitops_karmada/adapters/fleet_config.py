"""The configuration of the fleet at a revision (``gitops-karmada.yaml``, found as a fleet in a monorepo is):
light, so that the up-to-date check of a run with nothing to do reads it before the engine is imported."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.layout import config_path

if TYPE_CHECKING:
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.diagnostics import Diagnostic


def read_config(store: GitStore, rev: str) -> tuple[ToolConfig, tuple[Diagnostic, ...]]:
    """The configuration of the fleet at ``rev``: the nearest ``gitops-karmada.yaml`` at or above the folder
    the store was opened from (a fleet in a subfolder of a monorepo), else the repository root's; rooted
    there (``ToolConfig.rooted``) and parsed once per content (``load_config``)."""
    subdir = store.subdir
    folders = [subdir.rsplit("/", depth)[0] for depth in range(subdir.count("/") + 1)] if subdir else []
    candidates = [*folders, ""]
    found = store.list_blobs(store.resolve(rev), [config_path(c) for c in candidates])
    root = next((c for c in candidates if config_path(c) in found), "")
    oid = found.get(config_path(root))
    return load_config(store.read_blobs([oid])[oid] if oid is not None else None, root)
