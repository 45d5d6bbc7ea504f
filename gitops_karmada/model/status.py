"""What a member cluster reports: the status snapshot ``collect`` records on the status branch.

Karmada learns this through its cluster status controller (conditions, resource summary) and its work
status controller (each propagated object's status). Here one snapshot per cluster holds both, as of
``collectedAt``: the collector's heartbeat. Snapshots live on their own branch (``gitops-karmada-status``
by default, ``status.branch`` in the config) so that status churn never floods the fleet branch's log;
a reconcile reads the branch's tip and records which status commit it used.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field, field_validator

from gitops_karmada.model.base import ApiModel, ObjectMeta, is_dns1123_label
from gitops_karmada.model.clusters import ClusterStatus
from gitops_karmada.model.keys import group_of

STATUS_API_VERSION: Final = "status.gitops-karmada.io/v1alpha1"
SNAPSHOT_KIND: Final = "ClusterStatusSnapshot"


class ObservedObject(ApiModel):
    """One propagated object as the member cluster has it (or why it could not be read)."""

    api_version: str
    kind: str
    namespace: str = ""
    name: str
    observed: dict[str, Any] | None = None
    """The member object as read (metadata trimmed to name, namespace, generation, labels, annotations;
    spec; status). None when the cluster does not have it."""
    error: str = ""
    """Why the object could not be read (not found, forbidden, ...); empty when ``observed`` is set."""

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """(group, kind, namespace, name), as ``ObjectKey.identity``: the version is not part of it."""
        return (group_of(self.api_version), self.kind, self.namespace, self.name)


class ClusterStatusSnapshot(ApiModel):
    """Everything observed on one member cluster at ``collectedAt``."""

    api_version: Literal["status.gitops-karmada.io/v1alpha1"] = STATUS_API_VERSION
    kind: Literal["ClusterStatusSnapshot"] = SNAPSHOT_KIND
    metadata: ObjectMeta
    collected_at: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
    """RFC 3339 time the collector reached (or tried to reach) the cluster: its heartbeat."""
    status: ClusterStatus = Field(default_factory=ClusterStatus)
    """What Karmada's cluster status controller would write into Cluster.status."""
    objects: tuple[ObservedObject, ...] = ()

    @field_validator("metadata")
    @classmethod
    def _cluster_name(cls, metadata: ObjectMeta) -> ObjectMeta:
        if not metadata.name or not is_dns1123_label(metadata.name):
            raise ValueError(f"metadata.name {metadata.name!r} must be a cluster name (a DNS-1123 label)")
        return metadata

    @property
    def cluster(self) -> str:
        return self.metadata.name
