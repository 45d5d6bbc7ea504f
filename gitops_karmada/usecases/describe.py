"""Describe: one binding, policy, rollout or cluster in detail, with its events, as a ``Description``.

A reference is a template reference (``Deployment/shop/cart``: its binding), ``pp/NAMESPACE/NAME``,
``cpp/NAME``, ``rollout/NAMESPACE/NAME`` or ``cluster/NAME``. The events are the commits that changed the
object: for a binding the commits that changed its record (as ``history`` lists them), for a policy, a
rollout or a cluster the commits that changed its document (the other documents of its file, and its
formatting, do not count). Reads records and inputs only; never renders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.repository import rfc3339
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.core.diff.bound import binding_key
from gitops_karmada.core.views.description import (
    Description,
    Section,
    describe_binding,
    describe_cluster,
    describe_policy,
)
from gitops_karmada.core.views.rollouts import describe_rollout
from gitops_karmada.model.errors import InputError, NotFoundError, UsageError
from gitops_karmada.usecases.fleet_view import read_fleet
from gitops_karmada.usecases.history import template_history
from gitops_karmada.usecases.lifecycle import LifecycleError, TemplateReference

if TYPE_CHECKING:
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.usecases.fleet_view import FleetView

POLICY_PREFIXES = {"pp": "PropagationPolicy", "propagationpolicy": "PropagationPolicy"}
CLUSTER_POLICY_PREFIXES = {
    "cpp": "ClusterPropagationPolicy",
    "clusterpropagationpolicy": "ClusterPropagationPolicy",
}
ROLLOUT_PREFIXES = frozenset({"rollout", "ro", "rolloutpolicy"})


class DescribeError(NotFoundError):
    """The object to describe is not in the revision."""


class BadReferenceError(UsageError):
    """The reference has none of the shapes ``describe`` knows."""


def describe(store: GitStore, rev: str, reference: str) -> Description:
    """The object ``reference`` names, at ``rev``, with its events (newest first)."""
    prefix, _, rest = reference.partition("/")
    lowered = prefix.lower()
    if lowered == "cluster":
        return _cluster(store, rev, rest)
    if lowered in POLICY_PREFIXES or lowered in CLUSTER_POLICY_PREFIXES:
        return _policy(store, rev, lowered, rest)
    if lowered in ROLLOUT_PREFIXES:
        return _rollout(store, rev, lowered, rest)
    return _binding(store, rev, reference)


def _binding(store: GitStore, rev: str, text: str) -> Description:
    try:
        reference = TemplateReference.parse(text)
    except LifecycleError as err:
        raise BadReferenceError(f"{err}; or pp/NAMESPACE/NAME, cpp/NAME, cluster/NAME") from None
    fleet = read_fleet(store, rev, with_inputs=False, namespace=reference.namespace)
    found = [
        b
        for b in fleet.bindings
        if (key := binding_key(b)).kind.lower() == reference.kind.lower()
        and (reference.group is None or key.group == reference.group)
        and key.namespace == reference.namespace
        and key.name == reference.name
    ]
    if not found:
        raise DescribeError(f"no binding record of {reference} at {rev} (get bindings -A lists them)")
    if len(found) > 1:
        kinds = ", ".join(sorted(str(binding_key(b)) for b in found))
        raise DescribeError(f"{reference} names several templates ({kinds}); name the API group")
    history = template_history(store, rev, reference)
    events = tuple(
        (
            row.commit[:12],
            rfc3339(row.committed_at),
            row.origin,
            row.change.value,
            ", ".join(str(move) for move in row.moves) or "-",
        )
        for row in history.rows
    )
    section = Section("Events", ("COMMIT", "DATE", "ORIGIN", "RECORD", "CLUSTERS"), events)
    return describe_binding(found[0]).with_section(section)


def _document_events(store: GitStore, rev: str, path: str, kind: str, namespace: str, name: str) -> Section:
    """The commits that changed the document of ``kind`` ``namespace/name`` in ``path``: its content
    (not its formatting, nor the other documents of the file) differs from the first parent's."""
    entries = store.log(rev, paths=[path], with_changes=True) if path else ()
    changes = [(entry, entry.change_of(path)) for entry in entries]
    oids = sorted({oid for _, c in changes if c is not None for oid in (c.old_oid, c.new_oid) if oid})
    contents = store.read_blobs(oids) if oids else {}

    def document(oid: str | None) -> object:
        return _document(contents.get(oid) if oid else None, kind, namespace, name)

    rows = tuple(
        (entry.commit[:12], rfc3339(entry.committed_at), entry.subject)
        for entry, change in changes
        if change is not None and document(change.old_oid) != document(change.new_oid)
    )
    return Section("Events", ("COMMIT", "DATE", "SUBJECT"), rows)


def _document(content: bytes | None, kind: str, namespace: str, name: str) -> object:
    """The body of the document of ``kind`` ``namespace/name`` in a file's ``content``; None when the file
    has none (or does not parse)."""
    if content is None:
        return None
    try:
        documents = load_yaml_documents(content)
    except InputError:
        return None
    for loaded in documents:
        body = loaded.body
        metadata = body.get("metadata") if isinstance(body, dict) else None
        if (
            isinstance(metadata, dict)
            and body.get("kind") == kind
            and metadata.get("name") == name
            and (metadata.get("namespace") or "") == namespace
        ):
            return body
    return None


def _source(fleet: FleetView, kind: str, namespace: str, name: str) -> str:
    source = fleet.inputs.sources.get((kind, namespace, name))
    return "" if source is None else source.path


def _policy(store: GitStore, rev: str, prefix: str, rest: str) -> Description:
    cluster_scoped = prefix in CLUSTER_POLICY_PREFIXES
    parts = rest.split("/")
    if (cluster_scoped and len(parts) != 1) or (not cluster_scoped and len(parts) != 2) or not all(parts):
        shape = f"{prefix}/NAME" if cluster_scoped else f"{prefix}/NAMESPACE/NAME"
        raise BadReferenceError(f"{prefix}/{rest!s} is not {shape}")
    namespace, name = ("", parts[0]) if cluster_scoped else (parts[0], parts[1])
    fleet = read_fleet(store, rev, with_inputs=True)
    pool = fleet.inputs.cluster_propagation_policies if cluster_scoped else fleet.inputs.propagation_policies
    policy = next((p for p in pool if p.name == name and p.namespace == namespace), None)
    if policy is None:
        shown = name if cluster_scoped else f"{namespace}/{name}"
        raise DescribeError(
            f"no {'ClusterPropagationPolicy' if cluster_scoped else 'PropagationPolicy'} {shown} at {rev}"
        )
    path = _source(fleet, policy.kind, namespace, name)
    events = _document_events(store, rev, path, policy.kind, namespace, name)
    return describe_policy(policy, fleet.bindings, path or "-").with_section(events)


def _rollout(store: GitStore, rev: str, prefix: str, rest: str) -> Description:
    parts = rest.split("/")
    if len(parts) != 2 or not all(parts):
        raise BadReferenceError(f"{prefix}/{rest} is not {prefix}/NAMESPACE/NAME")
    namespace, name = parts
    fleet = read_fleet(store, rev, with_inputs=True)
    policy = next(
        (p for p in fleet.inputs.rollout_policies if p.name == name and p.namespace == namespace), None
    )
    if policy is None:
        raise DescribeError(f"no RolloutPolicy {namespace}/{name} at {rev}")
    path = _source(fleet, policy.kind, namespace, name)
    events = _document_events(store, rev, path, policy.kind, namespace, name)
    return describe_rollout(policy, fleet.bindings, path or "-").with_section(events)


def _cluster(store: GitStore, rev: str, name: str) -> Description:
    fleet = read_fleet(store, rev, with_inputs=True)
    cluster = next((c for c in fleet.inputs.clusters if c.name == name), None)
    if cluster is None:
        known = ", ".join(c.name for c in fleet.inputs.clusters) or "none"
        raise DescribeError(f"no cluster {name!r} at {rev} (clusters: {known})")
    path = _source(fleet, "Cluster", "", name)
    events = _document_events(store, rev, path, "Cluster", "", name)
    return describe_cluster(cluster, fleet.bindings, path or "-").with_section(events)
