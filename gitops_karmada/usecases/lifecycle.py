"""What rollback, history, verify and trace share: the tool's commits, its layout and what its records own.

A commit is the tool's own when its ``Rendered-By`` trailer names gitops-karmada (reconcile and rollback
commits carry it). A file under the clusters folder is tool-written when a record of the state folder owns
it (``core.ownership``: binding records and FederatedResourceQuota records); released manifests and every
other file there are the user's. Reads commits through ``GitStore`` only, never the work tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.adapters.fleet_config import read_config as read_fleet_config
from gitops_karmada.adapters.parse_cache import decode_inputs
from gitops_karmada.core.inputs.loading import load_bindings
from gitops_karmada.core.layout import BUCKET_COUNTS, CLUSTER_SCOPED_FOLDER, RepoLayout, bucket_of
from gitops_karmada.core.ownership import Ownership, ownership
from gitops_karmada.model import wellknown
from gitops_karmada.model.errors import GitopsKarmadaError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.adapters.git_tree import TreeEntry
    from gitops_karmada.core.inputs.loading import Decoded
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.diagnostics import Diagnostic

ROLLBACK_TO_TRAILER = wellknown.ROLLBACK_TO_TRAILER
_REGULAR_MODES = frozenset({"100644", "100664"})


class LifecycleError(GitopsKarmadaError):
    """A rollback, history, verify or trace request that cannot be carried out as asked."""


def source_commit(entry: LogEntry) -> str | None:
    """The commit whose inputs a tool commit rendered (its ``Source-Commit`` trailer)."""
    return entry.trailers.get(wellknown.SOURCE_COMMIT_TRAILER) or None


def is_regular_mode(mode: str | None) -> bool:
    """Modes ``GitStore.commit`` can write back unchanged (plain, non-executable files)."""
    return mode in _REGULAR_MODES


def read_config(store: GitStore, rev: str) -> tuple[ToolConfig, tuple[Diagnostic, ...]]:
    return read_fleet_config(store, rev)


def read_layout(store: GitStore, rev: str) -> RepoLayout:
    return RepoLayout.of(read_config(store, rev)[0])


def read_state(store: GitStore, rev: str, layout: RepoLayout, folder: str | None = None) -> dict[str, bytes]:
    """The state files of ``rev`` (or of its ``folder`` inside the state folder): path → content."""
    entries = _state_entries(store, rev, layout, folder)
    blobs = store.read_blobs([entry.oid for entry in entries])
    return {entry.path: blobs[entry.oid] for entry in entries}


def read_records(
    store: GitStore, rev: str, layout: RepoLayout, namespace: str | None = None
) -> dict[str, Decoded]:
    """The binding records of ``rev``, decoded (path → documents), through the cache of decoded files;
    ``namespace``: only those of its folder, where the tool writes its templates' records (``""``: the
    cluster-scoped templates')."""
    folder = layout.bindings_dir
    if namespace is not None:
        folder = f"{folder}/{namespace or CLUSTER_SCOPED_FOLDER}"
    entries = _state_entries(store, rev, layout, folder)
    return decode_inputs(store.git_dir, {entry.path: entry.oid for entry in entries}, store.read_blobs)


def _state_entries(store: GitStore, rev: str, layout: RepoLayout, folder: str | None) -> list[TreeEntry]:
    return [
        entry
        for entry in store.list_entries(rev, [folder or layout.state_dir])
        if layout.is_state_record(entry.path) and entry.is_regular_file
    ]


def state_ownership(
    bindings: Iterable[ResourceBinding], state_files: Mapping[str, bytes], layout: RepoLayout
) -> Ownership:
    """Who owns which cluster-folder file, from a state folder's parsed records (``core.ownership``)."""
    return ownership(bindings, state_files, layout)


def parse_records(
    state_files: Mapping[str, bytes], layout: RepoLayout
) -> tuple[tuple[ResourceBinding, ...], tuple[Diagnostic, ...]]:
    """The binding records among a state folder's files (sorted by template identity) and their problems.

    Only the bindings folder holds binding records (the state folder has other files, e.g. the list of
    released manifests), exactly as ``reconcile`` reads them.
    """
    prefix = layout.bindings_dir + "/"
    bindings, diagnostics = load_bindings({p: c for p, c in state_files.items() if p.startswith(prefix)})
    return tuple(bindings[identity] for identity in sorted(bindings)), diagnostics


def read_ownership(store: GitStore, rev: str, layout: RepoLayout) -> Ownership:
    """Who owns which file at ``rev``; LifecycleError when its records cannot be read (ownership unknown)."""
    state_files = read_state(store, rev, layout)
    bindings, diagnostics = parse_records(state_files, layout)
    problems = [d for d in diagnostics if d.is_error]
    if problems:
        raise LifecycleError(
            f"the binding records of {rev[:12]} cannot be read, so it is unknown which files the tool "
            f"wrote: {problems[0]}"
        )
    return state_ownership(bindings, state_files, layout)


def owners_of(store: GitStore, rev: str, layout: RepoLayout, paths: Iterable[str]) -> Ownership:
    """Who owns the given cluster-folder files at ``rev``, reading only the records that could own them
    (a manifest's binding record sits at the same place under the bindings folder), the quota records and
    the released-manifests record."""
    candidates = set()
    for path in paths:
        cluster = layout.cluster_of(path)
        inside = path[len(layout.cluster_folder(cluster)) + 1 :] if cluster is not None else ""
        if inside:
            candidates.add(f"{layout.bindings_dir}/{inside}")
    entries = [
        e
        for e in store.list_entries(rev, [layout.state_dir])
        if e.is_regular_file
        and layout.is_state_record(e.path)
        and (e.path in candidates or not e.path.startswith(layout.bindings_dir + "/"))
    ]
    blobs = store.read_blobs([e.oid for e in entries])
    state_files = {e.path: blobs[e.oid] for e in entries}
    bindings, _ = parse_records(state_files, layout)
    return state_ownership(bindings, state_files, layout)


def owned_paths(store: GitStore, rev: str, layout: RepoLayout) -> frozenset[str]:
    """Tool-written files of ``rev`` (see ``read_ownership``)."""
    return read_ownership(store, rev, layout).paths


@dataclass(frozen=True, slots=True)
class TemplateReference:
    """``KIND/NAMESPACE/NAME`` or ``KIND/NAME`` (cluster-scoped); KIND is ``Kind`` or ``Kind.group``."""

    kind: str
    group: str | None
    """None when only the kind was given (any group matches)."""
    namespace: str
    name: str

    @classmethod
    def parse(cls, text: str) -> TemplateReference:
        parts = text.split("/")
        if len(parts) not in (2, 3) or not all(parts):
            raise LifecycleError(
                f"{text!r} is not KIND/NAMESPACE/NAME (or KIND/NAME for a cluster-scoped object), "
                "e.g. Deployment/shop/cart, Deployment.apps/shop/cart or Namespace/shop"
            )
        kind, _, group = parts[0].partition(".")
        namespace, name = (parts[1], parts[2]) if len(parts) == 3 else ("", parts[1])
        return cls(kind=kind, group=group if group else None, namespace=namespace, name=name)

    def record_pathspecs(self, layout: RepoLayout) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(literal paths, glob patterns) that find this template's binding record in any commit, in bucket
        folders or not (``output.buckets`` may have changed in the history)."""
        folder = f"{layout.bindings_dir}/{self.namespace or CLUSTER_SCOPED_FOLDER}"
        kind = self.kind.lower()  # the layout lower-cases kinds; the group stays as written
        files = [f"{self.name}.yaml", *(f"{bucket_of(self.name, n)}/{self.name}.yaml" for n in BUCKET_COUNTS)]
        if self.group is not None:
            return tuple(f"{folder}/{kind}.{self.group}/{file}" for file in files), ()
        literals = tuple(f"{folder}/{kind}/{file}" for file in files)
        if any(char in self.name for char in "*?[\\"):
            return literals, ()  # not a Kubernetes name; never let it act as a pattern
        return literals, tuple(f"{folder}/{kind}.*/{file}" for file in files)

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind}/{self.namespace}/{self.name}" if self.namespace else f"{kind}/{self.name}"
