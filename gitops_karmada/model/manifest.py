"""Manifest: a resource template as decoded from YAML, plus its identity and where it came from.

Templates stay raw (like Karmada's ``unstructured``): the body is the decoded mapping and is never
mutated; every transformation (revise replicas, overrides, pruning) works on a deep copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gitops_karmada.model.diagnostics import SourceRef
    from gitops_karmada.model.keys import ObjectKey


@dataclass(frozen=True, slots=True)
class Manifest:
    key: ObjectKey
    body: Mapping[str, Any]
    source: SourceRef

    # ``type(...) is dict`` first: a decoded body's mappings are dicts, and an ABC check costs a
    # microsecond on paths that read every template's labels each run

    @property
    def metadata(self) -> Mapping[str, Any]:
        meta = self.body.get("metadata")
        return meta if type(meta) is dict or isinstance(meta, Mapping) else {}

    @property
    def labels(self) -> Mapping[str, str]:
        labels = self.metadata.get("labels")
        return labels if type(labels) is dict or isinstance(labels, Mapping) else {}

    @property
    def annotations(self) -> Mapping[str, str]:
        annotations = self.metadata.get("annotations")
        return annotations if type(annotations) is dict or isinstance(annotations, Mapping) else {}

    @property
    def uid(self) -> str:
        uid = self.metadata.get("uid")
        return uid if isinstance(uid, str) else ""
