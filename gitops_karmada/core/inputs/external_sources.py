"""Kustomize and Helm sources among the inputs: which folders are sources (not templates), which of them
are rendered, and what the renderer's output is. Pure: the adapter runs ``kubectl kustomize`` / ``helm
template`` for the plan this module makes and hands back ``GeneratedSource`` values.

A folder holding a ``kustomization.yaml`` is a Kustomize source: none of its files (nor its subfolders')
is a template on its own. Only *top-level* kustomizations are rendered: one that another kustomization
names in ``resources``/``bases``/``components`` is a base, rendered through the overlay that uses it (as
``kubectl apply -k overlays/prod`` does), never a second time on its own. A folder holding a
``Chart.yaml`` is a Helm chart: its ``Chart.yaml``, ``values*``, ``templates/``, ``charts/`` and ``crds/``
are sources, rendered with ``helm template``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.model.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from gitops_karmada.core.codecs.yaml_input import LoadedDocument

    Decoded = Sequence[LoadedDocument] | InputError

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
CHART_FILE = "Chart.yaml"
CHART_FOLDERS = ("templates/", "charts/", "crds/")
_REFERENCE_KEYS = ("resources", "bases", "components")


@dataclass(frozen=True, slots=True)
class GeneratedSource:
    """What rendering one source folder gave: the YAML stream, or why there is none."""

    origin: str
    """The ``kustomization.yaml`` or ``Chart.yaml`` rendered (the templates' provenance)."""
    output: bytes | None = None
    problem: str = ""


@dataclass(frozen=True, slots=True)
class SourcePlan:
    kustomizations: tuple[str, ...] = ()
    """Top-level kustomization files to render, in path order."""
    bases: tuple[str, ...] = ()
    """Kustomization files another kustomization uses (rendered through it)."""
    charts: tuple[str, ...] = ()
    """``Chart.yaml`` files of the charts to render."""
    kustomize_roots: tuple[str, ...] = ()
    chart_roots: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.kustomizations and not self.bases and not self.charts

    def consumes(self, path: str) -> bool:
        """``path`` is a source of Kustomize or Helm, not a template of its own."""
        if any(path.startswith(root) for root in self.kustomize_roots):
            return True
        for root in self.chart_roots:
            rest = path.removeprefix(root)
            if path.startswith(root) and (
                rest == CHART_FILE or rest.startswith(CHART_FOLDERS) or rest.startswith("values")
            ):
                return True
        return False

    @property
    def rendered(self) -> tuple[str, ...]:
        return (*self.kustomizations, *self.charts)


def _folder(path: str) -> str:
    folder = path.rpartition("/")[0]
    return f"{folder}/" if folder else ""


def _documents(raw: bytes | Decoded) -> list[Any]:
    if isinstance(raw, InputError):
        return []
    if isinstance(raw, bytes):
        try:
            raw = load_yaml_documents(raw)
        except InputError:
            return []
    return [document.body for document in raw]


def _references(folder: str, documents: Iterable[Any]) -> set[str]:
    """The local folders a kustomization names (``../base`` → ``base/``)."""
    found: set[str] = set()
    for body in documents:
        if not isinstance(body, dict):
            continue
        for key in _REFERENCE_KEYS:
            entries = body.get(key)
            if not isinstance(entries, list):
                continue
            for entry in entries:
                if not isinstance(entry, str) or "://" in entry or entry.startswith(("git@", "github.com/")):
                    continue
                target = posixpath.normpath(posixpath.join(folder, entry))
                if target != "." and not target.startswith(".."):
                    found.add(target.rstrip("/") + "/")
    return found


def source_plan(files: Mapping[str, bytes | Decoded]) -> SourcePlan:
    """The Kustomize and Helm sources among ``files`` (input path → raw or decoded content)."""
    kustomizations = {path: _folder(path) for path in files if path.rpartition("/")[2] in KUSTOMIZATION_FILES}
    charts = sorted(path for path in files if path.rpartition("/")[2] == CHART_FILE)
    if not kustomizations and not charts:
        return SourcePlan()
    referenced: set[str] = set()
    for path, folder in kustomizations.items():
        referenced |= _references(folder, _documents(files[path]))
    top = tuple(sorted(p for p, folder in kustomizations.items() if folder not in referenced))
    bases = tuple(sorted(p for p, folder in kustomizations.items() if folder in referenced))
    return SourcePlan(
        kustomizations=top,
        bases=bases,
        charts=tuple(charts),
        kustomize_roots=tuple(sorted(set(kustomizations.values()))),
        chart_roots=tuple(_folder(path) for path in charts),
    )
