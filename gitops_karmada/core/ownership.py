"""Which files of the cluster folders the tool wrote, and on whose behalf, read from the state folder alone.

Two kinds of record own rendered files: a template's binding record (the clusters in its
``gitops-karmada.io/rendered-clusters`` annotation) and a FederatedResourceQuota's record (the
ResourceQuotas its ``staticAssignments`` render). Manifests released from management (a deleted template
whose policy preserved its resources) are listed apart: nobody owns them any more, and they are not
hand-written either. Every command that needs to tell the tool's files from the user's (reconcile, verify,
trace, rollback, diff) asks this module, so they can never disagree. Pure.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.core.layout import STATE_FILE_SUFFIXES, RepoLayout
from gitops_karmada.core.quota import static_assignment_quotas
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.quotas import FederatedResourceQuota

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.model.bindings import ResourceBinding


def is_state_file(path: str) -> bool:
    return path.endswith(STATE_FILE_SUFFIXES)


class OwnerKind(enum.StrEnum):
    TEMPLATE = "template"
    QUOTA = "federated-resource-quota"


@dataclass(frozen=True, slots=True)
class Owner:
    """The record that says the tool wrote a file."""

    kind: OwnerKind
    record: str
    """The record's path in the state folder."""
    subject: str
    """The template (``Deployment.apps/shop/web``) or ``FederatedResourceQuota shop/limits``."""


@dataclass(frozen=True, slots=True)
class Ownership:
    owners: Mapping[str, Owner] = field(default_factory=dict)
    """Rendered path → the record that owns it."""
    released: Mapping[str, str] = field(default_factory=dict)
    """Released path → the template it was rendered from (owned by nobody, written by the tool)."""

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(self.owners)

    def owner(self, path: str) -> Owner | None:
        return self.owners.get(path)


def binding_key(binding: ResourceBinding) -> ObjectKey:
    ref = binding.spec.resource
    return ObjectKey(ref.api_version, ref.kind, ref.namespace, ref.name)


def quota_paths(frq: FederatedResourceQuota, layout: RepoLayout) -> dict[str, tuple[str, dict[str, Any]]]:
    """Rendered path → (cluster, ResourceQuota manifest) of an FRQ's static assignments."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    key = ObjectKey("v1", "ResourceQuota", frq.namespace, frq.name)
    for cluster, manifest in static_assignment_quotas(frq):
        out[layout.manifest_path(cluster, key)] = (cluster, manifest)
    return out


def quota_records(state_files: Mapping[str, bytes], layout: RepoLayout) -> dict[str, FederatedResourceQuota]:
    """The FRQ records of the state folder by path (unreadable ones skipped: the next run rewrites them)."""
    prefix = layout.quotas_dir + "/"
    found: dict[str, FederatedResourceQuota] = {}
    for path, raw in sorted(state_files.items()):
        if not path.startswith(prefix):
            continue
        try:
            found[path] = FederatedResourceQuota.model_validate(load_yaml_documents(raw)[0].body)
        except (InputError, ValidationError, IndexError):
            continue
    return found


def released_entries(raw: bytes | None) -> dict[str, dict[str, str]]:
    """The entries of the released-manifests record, by path."""
    entries: dict[str, dict[str, str]] = {}
    if raw is None:
        return entries
    try:
        documents = load_yaml_documents(raw)
    except InputError:
        return entries
    for document in documents:
        items = document.body.get("items") if isinstance(document.body, Mapping) else None
        for item in items if isinstance(items, list) else []:
            if isinstance(item, Mapping) and isinstance(item.get("path"), str):
                entries[item["path"]] = {str(k): str(v) for k, v in item.items()}
    return entries


def ownership(
    bindings: Iterable[ResourceBinding], state_files: Mapping[str, bytes], layout: RepoLayout
) -> Ownership:
    """Who owns what, from parsed binding records plus the quota and released records of ``state_files``."""
    owners: dict[str, Owner] = {}
    for binding in bindings:
        key = binding_key(binding)
        owner = Owner(OwnerKind.TEMPLATE, layout.binding_path(key), str(key))
        for cluster in applied_clusters(binding):
            owners[layout.manifest_path(cluster, key)] = owner
    for record, frq in quota_records(state_files, layout).items():
        owner = Owner(OwnerKind.QUOTA, record, f"FederatedResourceQuota {frq.namespace}/{frq.name}")
        for path in quota_paths(frq, layout):
            owners.setdefault(path, owner)
    released = {
        path: entry.get("template", "")
        for path, entry in released_entries(state_files.get(layout.released_path)).items()
        if path not in owners
    }
    return Ownership(owners, released)
