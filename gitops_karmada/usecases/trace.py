"""``trace PATH``: where a rendered manifest came from: template, policy, overrides and source commit.

A rendered file names its template and policy in its first line (the provenance header) and its overrides
in Karmada's ``policy.karmada.io/applied-(cluster-)overrides`` annotations; its binding record says whether
the tool wrote it; the commit that last changed it carries, in its ``Source-Commit`` trailer, the commit
whose inputs produced it. No commit id is ever written into a rendered file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.repository import rfc3339
from gitops_karmada.adapters.shard_store import locate_output
from gitops_karmada.adapters.tool_commits import is_tool_commit
from gitops_karmada.core.binding import SOURCE_ANNOTATION
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.core.inputs.loading import load_bindings
from gitops_karmada.core.layout import CLUSTER_SCOPED_FOLDER
from gitops_karmada.core.ownership import OwnerKind
from gitops_karmada.model import wellknown
from gitops_karmada.model.errors import GitError, InputError
from gitops_karmada.usecases.lifecycle import LifecycleError, owners_of, read_layout, source_commit

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.bindings import ResourceBinding

HEADER_PREFIXES = ("# Rendered by gitops-karmada", "# Released by gitops-karmada")


@dataclass(frozen=True, slots=True)
class AppliedOverride:
    """One override policy recorded in the manifest's annotations, with the overrider kinds it used."""

    kind: str
    namespace: str
    name: str
    overriders: tuple[str, ...]

    def __str__(self) -> str:
        name = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {name} ({', '.join(self.overriders) or 'no overriders'})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "overriders": list(self.overriders),
        }


@dataclass(frozen=True, slots=True)
class CommitRef:
    commit: str
    subject: str
    date: str
    by_tool: bool

    def to_dict(self) -> dict[str, Any]:
        return {"commit": self.commit, "subject": self.subject, "date": self.date, "byTool": self.by_tool}


@dataclass(frozen=True, slots=True, kw_only=True)
class FileTrace:
    path: str
    cluster: str
    record: str | None
    """The record that owns the file (a binding or a FederatedResourceQuota record), None when none does."""
    template: str | None
    """What the file was rendered from: the template's object key or the FederatedResourceQuota."""
    written_by_tool: bool
    source: str | None
    """The template's file and document index (``path[doc]``)."""
    policy: str | None
    overrides: tuple[AppliedOverride, ...] = ()
    header: str | None = None
    last_change: CommitRef | None = None
    source_commit: CommitRef | None = None
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "cluster": self.cluster,
            "writtenByTool": self.written_by_tool,
            "template": self.template,
            "source": self.source,
            "policy": self.policy,
            "overrides": [o.to_dict() for o in self.overrides],
            "record": self.record,
            "header": self.header,
            "lastChange": self.last_change.to_dict() if self.last_change else None,
            "sourceCommit": self.source_commit.to_dict() if self.source_commit else None,
            "notes": list(self.notes),
        }


def trace_file(store: GitStore, rev: str, path: str) -> FileTrace:
    """The provenance of the file ``path`` (repository-relative) as committed at ``rev``."""
    commit = store.resolve(rev)
    layout = read_layout(store, commit)
    parts = layout.manifest_parts(path)
    if parts is None:
        bucket = "<bucket>/" if layout.buckets else ""
        raise LifecycleError(
            f"{path} is not a rendered manifest path ({layout.cluster_folder('<cluster>')}/<namespace or "
            f"{CLUSTER_SCOPED_FOLDER}>/<kind>.<group>/{bucket}<name>.yaml): gitops-karmada never writes there"
        )
    where, inside = locate_output(store, commit, layout, path)  # a sharded output: the shard commit
    content = store.read_file(where, inside)
    if content is None:
        raise LifecycleError(f"{path} does not exist at {rev}")
    cluster, namespace_folder = parts
    owned = owners_of(store, commit, layout, [path])
    owner = owned.owner(path)
    record = owner.record if owner is not None else None
    binding = None
    if owner is not None and owner.kind is OwnerKind.TEMPLATE:
        binding = _binding(store.read_file(commit, owner.record), owner.record)
    written = owner is not None
    last = store.log(where, paths=[inside], first_parent=False, max_count=1)
    last_change = _commit_ref(last[0]) if last else None
    source = _source(store, last[0]) if last and is_tool_commit(last[0]) else None
    notes = []
    if path in owned.released:
        notes.append(
            f"released from management when its template {owned.released[path]} was deleted "
            "(preserveResourcesOnDeletion): gitops-karmada no longer rewrites or deletes it"
        )
    elif not written:
        notes.append("no record says gitops-karmada wrote this file: it is hand-written")
    elif owner is not None and owner.kind is OwnerKind.QUOTA:
        notes.append(f"rendered from the staticAssignments of {owner.subject}")
    if written and last_change is not None and not last_change.by_tool:
        notes.append(
            f"edited by hand after rendering, in {last_change.commit[:12]}: run gitops-karmada verify"
        )
    namespace = "" if namespace_folder == CLUSTER_SCOPED_FOLDER else namespace_folder
    return FileTrace(
        path=path,
        cluster=cluster,
        record=record,
        template=owner.subject if owner is not None else None,
        written_by_tool=written,
        source=binding.metadata.annotations.get(SOURCE_ANNOTATION) if binding is not None else None,
        policy=_policy(binding),
        overrides=applied_overrides(content, namespace),
        header=_header(content),
        last_change=last_change,
        source_commit=source,
        notes=tuple(notes),
    )


def _binding(content: bytes | None, path: str) -> ResourceBinding | None:
    if content is None:
        return None
    bindings, _ = load_bindings({path: content})
    return next(iter(bindings.values()), None)


def _policy(binding: ResourceBinding | None) -> str | None:
    if binding is None:
        return None
    annotations = binding.metadata.annotations
    if wellknown.PP_NAME_ANNOTATION in annotations:
        namespace = annotations.get(wellknown.PP_NAMESPACE_ANNOTATION, "")
        return f"PropagationPolicy {namespace}/{annotations[wellknown.PP_NAME_ANNOTATION]}"
    if wellknown.CPP_NAME_ANNOTATION in annotations:
        return f"ClusterPropagationPolicy {annotations[wellknown.CPP_NAME_ANNOTATION]}"
    return None


def _header(content: bytes) -> str | None:
    first = content.split(b"\n", 1)[0].decode("utf-8", "replace")
    return first if first.startswith(HEADER_PREFIXES) else None


def _commit_ref(entry: LogEntry) -> CommitRef:
    return CommitRef(entry.commit, entry.subject, rfc3339(entry.committed_at), is_tool_commit(entry))


def _source(store: GitStore, entry: LogEntry) -> CommitRef | None:
    sha = source_commit(entry)
    if sha is None:
        return None
    try:
        found = store.log(sha, max_count=1)
    except GitError:
        # the source commit is not in this clone (a shallow clone): still name it
        return CommitRef(sha, "", "", by_tool=False)
    return _commit_ref(found[0]) if found else None


def applied_overrides(content: bytes, namespace: str) -> tuple[AppliedOverride, ...]:
    """The override policies Karmada's annotations on the manifest record (ClusterOverridePolicies first)."""
    try:
        documents = load_yaml_documents(content)
    except InputError:
        return ()
    body = documents[0].body if documents else None
    metadata = body.get("metadata") if isinstance(body, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return ()
    found = []
    for annotation, kind, policy_namespace in (
        (wellknown.APPLIED_CLUSTER_OVERRIDES_ANNOTATION, "ClusterOverridePolicy", ""),
        (wellknown.APPLIED_OVERRIDES_ANNOTATION, "OverridePolicy", namespace),
    ):
        for shadow in _shadows(annotations.get(annotation)):
            name = shadow.get("policyName")
            overriders = shadow.get("overriders")
            if isinstance(name, str):
                kinds = tuple(sorted(overriders)) if isinstance(overriders, dict) else ()
                found.append(AppliedOverride(kind, policy_namespace, name, kinds))
    return tuple(found)


def _shadows(raw: object) -> list[Mapping[str, Any]]:
    if not isinstance(raw, str):
        return []
    try:
        parsed = json.loads(raw)
    except ValueError:
        return []
    return [item for item in parsed if isinstance(item, dict)] if isinstance(parsed, list) else []
