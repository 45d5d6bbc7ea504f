"""Identity of objects: ``ObjectKey`` for templates, ``NewType`` names for clusters and policies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NewType

ClusterName = NewType("ClusterName", str)
PolicyName = NewType("PolicyName", str)
Namespace = NewType("Namespace", str)


def group_of(api_version: str) -> str:
    """The API group of an apiVersion: ``apps/v1`` → ``apps``, ``v1`` → ``""`` (core)."""
    return api_version.rpartition("/")[0]


@dataclass(frozen=True, slots=True, order=True)
class ObjectKey:
    """apiVersion/kind/namespace/name of a template; namespace is ``""`` for cluster-scoped objects."""

    api_version: str
    kind: str
    namespace: str
    name: str
    identity: tuple[str, str, str, str] = field(init=False, repr=False, compare=False)
    """What makes two objects the same Kubernetes object: the version is not part of it. Kept, not
    derived on each use: a run asks a template's identity a few dozen times."""

    def __post_init__(self) -> None:
        identity = (group_of(self.api_version), self.kind, self.namespace, self.name)
        object.__setattr__(self, "identity", identity)

    @property
    def group(self) -> str:
        return self.identity[0]

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind}/{self.namespace}/{self.name}" if self.namespace else f"{kind}/{self.name}"
