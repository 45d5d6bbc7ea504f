"""Kubernetes' OpenAPI schemas, offline, from the ``kubernetes-validate`` package's data (1.25 onwards).

Only the schema files are used: the package's own ``validate`` re-reads a 1.3 MB definitions file per
call, while a run checks thousands of manifests. Each file is read once per process.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from typing import TYPE_CHECKING, Any

from referencing import Registry, Resource

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.resources.abc import Traversable

PACKAGE = "kubernetes_validate"
_FOLDER = re.compile(r"^v(\d+)\.(\d+)\.\d+-local$")
_DEFINITIONS_URI = "https://kubernetes.io/api/_definitions.json"


def _root() -> Traversable | None:
    try:
        return importlib.resources.files(PACKAGE) / "kubernetes-json-schema"
    except ModuleNotFoundError:
        return None


class PackagedSchemas:
    """``NativeSchemas`` read from ``kubernetes_validate``'s folders (``v1.31.0-local[-strict]``)."""

    @functools.cached_property
    def _folders(self) -> dict[tuple[int, int], str]:
        root = _root()
        if root is None or not root.is_dir():
            return {}
        found: dict[tuple[int, int], str] = {}
        for entry in root.iterdir():
            match = _FOLDER.match(entry.name)
            if match:
                found[(int(match[1]), int(match[2]))] = entry.name
        return found

    def versions(self) -> Sequence[tuple[int, int]]:
        return sorted(self._folders)

    def _file(self, version: tuple[int, int], name: str, strict: bool) -> Any:
        folder = self._folders.get(version)
        return None if folder is None else _load(folder + ("-strict" if strict else ""), name)

    def schema(
        self, version: tuple[int, int], api_version: str, kind: str, *, strict: bool
    ) -> Resource[Any] | None:
        # file names drop the group's domain: apps/v1 → apps-v1, rbac.authorization.k8s.io/v1 → rbac-v1
        flat = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
        contents = self._file(version, f"{kind.lower()}-{flat}.json", strict)
        if not isinstance(contents, dict):
            return None
        # the folder also holds schemas of non-object types (Affinity, PodSpec): only real kinds count
        group, _, served = api_version.rpartition("/")
        kinds = contents.get("x-kubernetes-group-version-kind") or ()
        if not any(
            g.get("group") == group and g.get("version") == served and g.get("kind") == kind for g in kinds
        ):
            return None
        return Resource.from_contents(contents)

    def registry(self, version: tuple[int, int], *, strict: bool) -> Registry[Any]:
        return _registry(self, version, strict)


@functools.cache
def _registry(schemas: PackagedSchemas, version: tuple[int, int], strict: bool) -> Registry[Any]:
    definitions = schemas._file(version, "_definitions.json", strict)
    if not isinstance(definitions, dict):
        return Registry()
    registry: Registry[Any] = Registry().with_resource(_DEFINITIONS_URI, Resource.from_contents(definitions))
    return registry


@functools.cache
def _load(folder: str, name: str) -> Any:
    root = _root()
    if root is None:
        return None
    path = root / folder / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


@functools.cache
def packaged_schemas() -> PackagedSchemas:
    """The process's one schema source."""
    return PackagedSchemas()
