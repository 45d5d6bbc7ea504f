"""Where things are written: the output path scheme and the name checks that keep paths inside folders.

Scheme (documented in the README, never changed silently):

* rendered manifest: ``<clusters>/<cluster>/<namespace>/<kind>.<group>/<name>.yaml``
* binding record:    ``<state>/bindings/<namespace>/<kind>.<group>/<name>.yaml``

With ``output.buckets`` (16, 256 or 4096) each object's file is one folder deeper,
``<namespace>/<kind>.<group>/<bucket>/<name>.yaml``, ``<bucket>`` the first 1, 2 or 3 hex digits of the
SHA-256 of the UTF-8 name (``bucket_of``): a kind folder of 20,000 objects becomes 256 folders of about 80.

``<namespace>`` is ``_cluster`` for cluster-scoped objects (an underscore can never start a namespace, a
DNS-1123 label), ``<kind>`` is lower-cased and ``.<group>`` is omitted for the core group, so a ``batch/v1``
Job (``job.batch``) and a Volcano Job (``job.batch.volcano.sh``) of the same name never collide. The
version is not part of the path: two versions of one kind are the same Kubernetes object.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitops_karmada.model.base import is_dns1123_label, is_dns1123_subdomain
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.wellknown import CONFIG_FILE

if TYPE_CHECKING:
    from collections.abc import Iterable

CLUSTER_SCOPED_FOLDER = "_cluster"
BINDINGS_FOLDER = "bindings"
QUOTAS_FOLDER = "quotas"
"""State-folder records of each FederatedResourceQuota with its settled status."""
SHARDS_FILE = "shards.yaml"
"""State-folder record of the output shards' commits (``core.shards``)."""
RELEASED_FILE = "released.yaml"
"""State-folder record of manifests released from management."""
EVICTION_QUEUE_FILE = "eviction-queue.yaml"
"""State-folder record of the evictions waiting for their turn (the v1.16 rate limit)."""
CLUSTER_TAINTS_FILE = "cluster-taints.yaml"
"""State-folder record of the taints ClusterTaintPolicies keep on the clusters."""
INDEX_FILE = "index.json"
"""The state index in one file, as versions before shards wrote it (read, then replaced)."""
INDEX_FOLDER = "index"
"""The state index (``core.incremental.state_index``)."""
STATE_FILE_SUFFIXES = (".yaml", ".json")
"""The files of the state folder the tool reads and writes (records, quota records, the index)."""

# Kubernetes' own API groups validate object names as DNS-1123 subdomains; RBAC objects and custom
# resources only need to be valid path segments (e.g. ``system:controller:foo``).
_PATH_SEGMENT_KINDS = frozenset(
    {("rbac.authorization.k8s.io", k) for k in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")}
)
_FORBIDDEN_IN_SEGMENT = re.compile(r"[/\\%\x00-\x1f\x7f]")
_MAX_NAME_LENGTH = 253


STATUS_SNAPSHOTS_FOLDER = "clusters"
"""The status branch's folder of cluster snapshots (a branch of its own, laid out by the tool alone)."""


def branch_ref(branch: str) -> str:
    """The full ref of a branch (the status branch, a shard's)."""
    return f"refs/heads/{branch}"


def status_snapshot_path(cluster: str) -> str:
    """Where a cluster's snapshot lives on the status branch."""
    return f"{STATUS_SNAPSHOTS_FOLDER}/{cluster}.yaml"


def config_path(root: str = "") -> str:
    """Where the configuration of a fleet kept in ``root`` is (``""``: the repository's root)."""
    return f"{root}/{CONFIG_FILE}" if root else CONFIG_FILE


def is_kubernetes_group(group: str) -> bool:
    """Groups served by Kubernetes itself: the core group, un-dotted legacy groups and ``*.k8s.io``."""
    return "." not in group or group.endswith(".k8s.io") or group == "k8s.io"


def name_problem(key: ObjectKey) -> str | None:
    """Why ``key.name`` cannot be a Kubernetes object name (and thus a file name), or None."""
    name = key.name
    if not name:
        return "must not be empty"
    if len(name) > _MAX_NAME_LENGTH:
        return f"must be at most {_MAX_NAME_LENGTH} characters"
    if name in (".", "..") or _FORBIDDEN_IN_SEGMENT.search(name):
        return (
            f"{name!r} is not a valid Kubernetes name: it may not be '.' or '..' nor contain '/', "
            "'\\', '%' or control characters"
        )
    dns_subdomain_required = (
        is_kubernetes_group(key.group) and (key.group, key.kind) not in _PATH_SEGMENT_KINDS
    )
    if dns_subdomain_required and not is_dns1123_subdomain(name):
        return (
            f"{name!r} is not a valid Kubernetes name: a lowercase RFC 1123 subdomain must consist of "
            "lower case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character"
        )
    return None


def namespace_problem(namespace: str) -> str | None:
    if not is_dns1123_label(namespace):
        return (
            f"{namespace!r} is not a valid namespace: a lowercase RFC 1123 label must consist of lower "
            "case alphanumeric characters or '-', start and end with an alphanumeric character, and be "
            "at most 63 characters"
        )
    return None


def kind_folder(key: ObjectKey) -> str:
    kind = key.kind.lower()
    return f"{kind}.{key.group}" if key.group else kind


BUCKET_DIGITS = {0: 0, 16: 1, 256: 2, 4096: 3}
"""Hex digits of a bucket folder's name, by ``output.buckets`` (0: no bucket folders)."""
BUCKET_COUNTS = (16, 256, 4096)
"""The values ``output.buckets`` takes besides 0."""


def bucket_of(name: str, buckets: int) -> str:
    """The bucket folder of the object named ``name`` (``""`` when ``buckets`` is 0): the first hex digits of
    the SHA-256 of its UTF-8 name, the same on every machine and in every version."""
    digits = BUCKET_DIGITS[buckets]
    return hashlib.sha256(name.encode()).hexdigest()[:digits] if digits else ""


def is_bucket_of(folder: str, name: str) -> bool:
    """Whether ``folder`` is the bucket folder of the object ``name`` for one of the ``BUCKET_COUNTS``."""
    return any(folder == bucket_of(name, n) for n in BUCKET_COUNTS)


def object_path(key: ObjectKey, buckets: int = 0) -> str:
    """Where ``key`` lives inside a cluster folder (or the bindings folder), in ``buckets`` bucket folders
    (``RepoLayout.object_path`` answers with the fleet's own)."""
    return _object_path(key, buckets)


@functools.lru_cache(maxsize=65536)
def _object_path(key: ObjectKey, buckets: int = 0) -> str:
    # a run asks for each template's path once per cluster: compute it once per template
    namespace = key.namespace or CLUSTER_SCOPED_FOLDER
    if buckets:
        return f"{namespace}/{kind_folder(key)}/{bucket_of(key.name, buckets)}/{key.name}.yaml"
    return f"{namespace}/{kind_folder(key)}/{key.name}.yaml"


@functools.lru_cache(maxsize=65536)
def identity_path(identity: tuple[str, str, str, str], buckets: int = 0) -> str:
    """``object_path`` of the template with ``identity`` (group, kind, namespace, name): a run asks it for
    every template of the index, by identity, several times (no key need be made for a cache hit)."""
    return _object_path(key_of_identity(identity), buckets)


def manifest_path(clusters_dir: str, cluster: str, key: ObjectKey, buckets: int = 0) -> str:
    """The rendered manifest of ``key`` in ``cluster``'s folder."""
    return f"{clusters_dir}/{cluster}/{_object_path(key, buckets)}"


def binding_path(state_dir: str, key: ObjectKey, buckets: int = 0) -> str:
    """The binding record of the template ``key``."""
    return f"{state_dir}/{BINDINGS_FOLDER}/{_object_path(key, buckets)}"


def binding_name(key: ObjectKey) -> str:
    """Karmada's binding name: ``<name>-<kind>`` lower-cased with ``:`` replaced by ``.``."""
    return f"{key.name}-{key.kind}".lower().replace(":", ".")


def key_of_identity(identity: tuple[str, str, str, str]) -> ObjectKey:
    """An ObjectKey for paths and names of an identity (group, kind, namespace, name): the version, which
    no path or name holds, is a placeholder."""
    group, kind, namespace, name = identity
    return ObjectKey(f"{group}/v1" if group else "v1", kind, namespace, name)


@dataclass(frozen=True, slots=True)
class RepoLayout:
    """Where everything is in a fleet repository, from its ``gitops-karmada.yaml`` (the one place every path
    question is answered; the folders' defaults are ``model.config.OutputLayout``'s)."""

    clusters_dir: str
    state_dir: str
    snapshots_dir: str
    root: str = ""
    """The fleet's folder in the repository (``""``: its root; a subfolder of a monorepo)."""
    buckets: int = 0
    """``output.buckets``: bucket folders in each kind folder (0: none)."""

    @classmethod
    def of(cls, config: ToolConfig) -> RepoLayout:
        output = config.output
        return cls(
            output.clusters_dir, output.state_dir, output.snapshots_dir, config.fleet_root, output.buckets
        )

    @classmethod
    def default(cls) -> RepoLayout:
        """The layout of a fleet whose configuration sets no folder."""
        return cls.of(ToolConfig())

    @property
    def config_path(self) -> str:
        return config_path(self.root)

    @property
    def output_prefix(self) -> str:
        """Every rendered path starts with it (``clusters/``)."""
        return self.clusters_dir + "/"

    @property
    def state_prefix(self) -> str:
        return self.state_dir + "/"

    @property
    def snapshots_prefix(self) -> str:
        return self.snapshots_dir + "/"

    @property
    def watched_prefixes(self) -> tuple[str, str, str]:
        """What a run reads besides the inputs and the configuration: the two managed folders and the
        cluster snapshots."""
        return (self.output_prefix, self.state_prefix, self.snapshots_prefix)

    def cluster_folder(self, cluster: str) -> str:
        return f"{self.clusters_dir}/{cluster}"

    def cluster_of(self, path: str) -> str | None:
        """The cluster whose folder holds ``path``; None outside the cluster folders."""
        if not path.startswith(self.output_prefix):
            return None
        cluster = path[len(self.output_prefix) :].partition("/")[0]
        return cluster or None

    def identity_manifest_path(self, cluster: str, identity: tuple[str, str, str, str]) -> str:
        """``manifest_path`` of the template with ``identity`` (no key need be made for a cache hit)."""
        return f"{self.clusters_dir}/{cluster}/{identity_path(identity, self.buckets)}"

    def object_path(self, key: ObjectKey) -> str:
        """Where ``key`` lives inside a cluster folder (or the bindings folder), bucketed as configured."""
        return _object_path(key, self.buckets)

    def bucket(self, name: str) -> str:
        """The bucket folder of the object ``name`` (``""``: no bucket folders)."""
        return bucket_of(name, self.buckets)

    @property
    def object_depth(self) -> int:
        """Slashes in an object's path inside a cluster folder (``namespace/kind/name.yaml``: 2; one more in
        bucket folders)."""
        return 3 if self.buckets else 2

    @property
    def manifest_depth(self) -> int:
        """Slashes in a rendered manifest's path (``clusters/member/namespace/kind/name.yaml``: 4)."""
        return self.clusters_dir.count("/") + 2 + self.object_depth

    def manifest_parts(self, path: str) -> tuple[str, str] | None:
        """(cluster, namespace folder) of a rendered manifest path of this layout; None for any other."""
        if not self.is_output(path) or path.count("/") != self.manifest_depth or not path.endswith(".yaml"):
            return None
        cluster, namespace_folder = path[len(self.output_prefix) :].split("/")[:2]
        return cluster, namespace_folder

    def object_of(self, path: str) -> tuple[str, str, str, str] | None:
        """(cluster, namespace folder, kind folder, name) of a rendered manifest path, in a bucket folder or
        not: the same object in either layout (``output.buckets`` switched moves it); None for any other."""
        if not self.is_output(path) or not path.endswith(".yaml"):
            return None
        parts = path[len(self.output_prefix) :].split("/")
        name = parts[-1].removesuffix(".yaml")
        if len(parts) == 5 and is_bucket_of(parts[3], name):
            return (parts[0], parts[1], parts[2], name)
        return (parts[0], parts[1], parts[2], name) if len(parts) == 4 else None

    @staticmethod
    def unbucketed(path: str) -> str:
        """``path`` out of its bucket folder (the same object's path with ``output.buckets`` 0); itself
        when it is in none."""
        folder, _, file = path.rpartition("/")
        parent, _, bucket = folder.rpartition("/")
        return f"{parent}/{file}" if parent and is_bucket_of(bucket, file.removesuffix(".yaml")) else path

    def written_in(self, state_paths: Iterable[str]) -> RepoLayout:
        """This layout with the bucket folders the binding records among ``state_paths`` are in (the
        output as the last run wrote it, which ``output.buckets`` may since have changed); itself when
        there is no record."""
        prefix = self.bindings_dir + "/"
        for path in state_paths:
            if path.startswith(prefix) and path.endswith(".yaml"):
                parts = path[len(prefix) :].split("/")
                digits = len(parts[2]) if len(parts) == 4 else 0
                buckets = next((n for n, d in BUCKET_DIGITS.items() if d == digits), self.buckets)
                return self if buckets == self.buckets else replace(self, buckets=buckets)
        return self

    def holds_objects(self, folder: str) -> bool:
        """Whether ``folder`` is a kind folder or a bucket folder in one, in a cluster folder or the bindings
        folder: the folders ``output.buckets`` spreads."""
        for prefix, below in ((self.output_prefix, 0), (self.bindings_dir + "/", 1)):
            if folder.startswith(prefix) and folder[len(prefix) :].count("/") + below in (
                2,
                self.object_depth,
            ):
                return True
        return False

    @property
    def folders(self) -> tuple[str, str]:
        """The managed folders: the tool writes there, and only there."""
        return (self.clusters_dir, self.state_dir)

    @property
    def bindings_dir(self) -> str:
        return f"{self.state_dir}/{BINDINGS_FOLDER}"

    @property
    def quotas_dir(self) -> str:
        return f"{self.state_dir}/{QUOTAS_FOLDER}"

    @property
    def legacy_index_path(self) -> str:
        return f"{self.state_dir}/{INDEX_FILE}"

    @property
    def index_dir(self) -> str:
        return f"{self.state_dir}/{INDEX_FOLDER}"

    def index_shard_path(self, shard: str) -> str:
        return f"{self.index_dir}/{shard}.json"

    def index_shard(self, path: str) -> str | None:
        """The shard a file of the index folder holds (``core.incremental.state_index.shard_of``), or None."""
        folder, _, name = path.rpartition("/")
        return name[: -len(".json")] if folder == self.index_dir and name.endswith(".json") else None

    def is_index_file(self, path: str) -> bool:
        return path == self.legacy_index_path or self.index_shard(path) is not None

    @property
    def shards_path(self) -> str:
        """The record of the output shards' commits (``core.shards.ShardRecord``; sharded output modes)."""
        return f"{self.state_dir}/{SHARDS_FILE}"

    @property
    def released_path(self) -> str:
        return f"{self.state_dir}/{RELEASED_FILE}"

    @property
    def cluster_taints_path(self) -> str:
        """The taints ClusterTaintPolicies added (``core.failover.taints``)."""
        return f"{self.state_dir}/{CLUSTER_TAINTS_FILE}"

    @property
    def eviction_queue_path(self) -> str:
        """The failover controllers' eviction queue (``core.failover.eviction_queue``)."""
        return f"{self.state_dir}/{EVICTION_QUEUE_FILE}"

    def is_output(self, path: str) -> bool:
        return path.startswith(self.clusters_dir + "/")

    def is_state(self, path: str) -> bool:
        return path.startswith(self.state_dir + "/")

    def is_state_record(self, path: str) -> bool:
        """A file of the state folder the tool owns (records, quota records, the index)."""
        return self.is_state(path) and path.endswith(STATE_FILE_SUFFIXES)

    def is_binding_record(self, path: str) -> bool:
        return path.startswith(self.bindings_dir + "/") and path.endswith(STATE_FILE_SUFFIXES)

    def is_snapshot(self, path: str) -> bool:
        return path.startswith(self.snapshots_dir + "/")

    def is_managed(self, path: str) -> bool:
        return self.is_output(path) or self.is_state(path)

    def manifest_path(self, cluster: str, key: ObjectKey) -> str:
        return manifest_path(self.clusters_dir, cluster, key, self.buckets)

    def manifest_paths(self, clusters: Iterable[str], key: ObjectKey) -> ManifestPaths:
        """``manifest_path`` of ``key`` in each of ``clusters`` (the object's own path made once: a run asks
        it for every reused template on every cluster)."""
        return ManifestPaths(tuple(clusters), self.clusters_dir, _object_path(key, self.buckets))

    def binding_path(self, key: ObjectKey) -> str:
        return binding_path(self.state_dir, key, self.buckets)

    def record_path(self, identity: tuple[str, str, str, str]) -> str:
        """``binding_path`` of the template with ``identity``."""
        return f"{self.state_dir}/{BINDINGS_FOLDER}/{identity_path(identity, self.buckets)}"

    def quota_record_path(self, namespace: str, name: str) -> str:
        return f"{self.quotas_dir}/{namespace}/{name}.yaml"


class ManifestPaths(Mapping[str, str]):
    """Cluster → the path of one object in that cluster's folder, each path made when asked: a run holds
    this for every reused template, and at 20,000 templates × 200 clusters the 4 million strings made up
    front cost seconds and gigabytes that a run changing one template never reads."""

    __slots__ = ("_clusters", "_folder", "_inside", "_known")

    def __init__(self, clusters: tuple[str, ...], folder: str, inside: str) -> None:
        self._clusters, self._folder, self._inside = clusters, folder, inside
        self._known: frozenset[str] | None = None

    def __getitem__(self, cluster: str) -> str:
        if self._known is None:
            self._known = frozenset(self._clusters)
        if cluster not in self._known:
            raise KeyError(cluster)
        return f"{self._folder}/{cluster}/{self._inside}"

    def __iter__(self) -> Iterator[str]:
        return iter(self._clusters)

    def __len__(self) -> int:
        return len(self._clusters)
