"""A member cluster's scheduling state for the accurate estimator: its Nodes, Pods and ResourceQuotas.

Read from plain Kubernetes objects as ``kubectl get nodes,pods,resourcequotas -A -o yaml`` exports them (a
``v1 List``; ``NodeList``/``PodList``/``ResourceQuotaList`` and single objects work too), one folder per
cluster: ``cluster-snapshots/<cluster>/*.yaml`` (see docs/snapshots.md). Only what Karmada's
scheduler-estimator reads is kept. A pod's requests follow the pod-template rules of the interpreter
(limits stand in for missing requests, init containers by max, overhead added).

Pure: bytes or documents in, values out; a malformed object is an ``InputError`` naming the field.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from gitops_karmada.core.codecs.yaml_input import YamlSyntaxError, load_yaml_documents
from gitops_karmada.core.interpreter.requirements import pod_spec_totals
from gitops_karmada.core.interpreter.unstructured import FieldTypeError, is_json_array, json_type
from gitops_karmada.model.base import Taint, is_dns1123_label
from gitops_karmada.model.diagnostics import Diagnostic, SourceRef, error
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.quantity import Quantity, QuantityError

TERMINAL_POD_PHASES = frozenset({"Succeeded", "Failed"})
_LIST_ITEM_KINDS: dict[str, str | None] = {
    "List": None,
    "NodeList": "Node",
    "PodList": "Pod",
    "ResourceQuotaList": "ResourceQuota",
}
_MAX_CLUSTER_NAME = 48


class ScopeOperator(enum.StrEnum):
    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotNode:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Mapping[str, Quantity] = field(default_factory=dict)
    """``status.allocatable`` (what the scheduler counts; ``capacity`` is not read)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotPod:
    namespace: str
    name: str
    node_name: str = ""
    phase: str = ""
    requests: Mapping[str, Quantity] = field(default_factory=dict)
    """The pod's effective requests (containers summed, init containers by max, overhead added)."""

    @property
    def occupies_node(self) -> bool:
        """Bound to a node and not terminal: it holds resources and a pod slot there."""
        return bool(self.node_name) and self.phase not in TERMINAL_POD_PHASES


@dataclass(frozen=True, slots=True, kw_only=True)
class ScopeSelectorRequirement:
    """``spec.scopeSelector.matchExpressions[]`` (or a ``spec.scopes`` entry, which means Exists)."""

    scope_name: str
    operator: ScopeOperator
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotResourceQuota:
    namespace: str
    name: str
    scopes: tuple[str, ...] = ()
    scope_selector: tuple[ScopeSelectorRequirement, ...] = ()
    hard: Mapping[str, Quantity] = field(default_factory=dict)
    """``status.hard`` (Karmada's estimator reads the status, not ``spec.hard``)."""
    used: Mapping[str, Quantity] = field(default_factory=dict)
    """``status.used``."""

    @property
    def selectors(self) -> tuple[ScopeSelectorRequirement, ...]:
        """``getScopeSelectorsFromQuota``: each scope as an Exists requirement, then the scopeSelector."""
        return (
            *(ScopeSelectorRequirement(scope_name=s, operator=ScopeOperator.EXISTS) for s in self.scopes),
            *self.scope_selector,
        )


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """One cluster's objects; nodes sorted by name, pods and quotas by (namespace, name)."""

    nodes: tuple[SnapshotNode, ...] = ()
    pods: tuple[SnapshotPod, ...] = ()
    resource_quotas: tuple[SnapshotResourceQuota, ...] = ()

    def quotas_in(self, namespace: str) -> tuple[SnapshotResourceQuota, ...]:
        """The ResourceQuotas of ``namespace``; ``""`` lists every namespace, as a Go lister does."""
        return tuple(q for q in self.resource_quotas if not namespace or q.namespace == namespace)

    def resource_quota(self, namespace: str, name: str) -> SnapshotResourceQuota | None:
        return next((q for q in self.resource_quotas if (q.namespace, q.name) == (namespace, name)), None)


@dataclass(frozen=True, slots=True)
class SnapshotLoad:
    """Snapshots by cluster name, and one diagnostic per unusable file or document.

    A cluster with any error has no snapshot (its accurate estimate is then "no answer"), never a partial one.
    """

    snapshots: Mapping[str, ClusterSnapshot]
    diagnostics: tuple[Diagnostic, ...] = ()


# -- field readers --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Reader:
    """Reads fields of one document, raising InputError with the document's source and the field path."""

    source: SourceRef | None

    def fail(self, where: str, message: str) -> InputError:
        return InputError(message, self.source, where)

    def mapping(self, value: Any, where: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(where, f"must be an object, not {json_type(value)}")
        return value

    def array(self, value: Any, where: str) -> Sequence[Any]:
        if value is None:
            return ()
        if not is_json_array(value):
            raise self.fail(where, f"must be an array, not {json_type(value)}")
        return value  # type: ignore[no-any-return]

    def string(self, value: Any, where: str, *, required: bool = False) -> str:
        if value is None or value == "":
            if required:
                raise self.fail(where, "is required")
            return ""
        if not isinstance(value, str):
            raise self.fail(where, f"must be a string, not {json_type(value)}")
        return value

    def boolean(self, value: Any, where: str) -> bool:
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.fail(where, f"must be a boolean, not {json_type(value)}")
        return value

    def strings(self, value: Any, where: str) -> tuple[str, ...]:
        return tuple(self.string(v, f"{where}[{i}]") for i, v in enumerate(self.array(value, where)))

    def string_map(self, value: Any, where: str) -> dict[str, str]:
        return {str(k): self.string(v, f"{where}.{k}") for k, v in self.mapping(value, where).items()}

    def resources(self, value: Any, where: str) -> dict[str, Quantity]:
        out: dict[str, Quantity] = {}
        for name, raw in self.mapping(value, where).items():
            try:
                out[str(name)] = Quantity.parse(raw)
            except QuantityError as err:
                raise self.fail(f"{where}.{name}", str(err)) from None
        return {name: out[name] for name in sorted(out)}

    def metadata(self, obj: Mapping[str, Any], where: str, *, namespaced: bool) -> tuple[str, str]:
        meta = self.mapping(obj.get("metadata"), f"{where}metadata")
        name = self.string(meta.get("name"), f"{where}metadata.name", required=True)
        namespace = self.string(meta.get("namespace"), f"{where}metadata.namespace") if namespaced else ""
        return namespace or ("default" if namespaced else ""), name


def _node(reader: _Reader, obj: Mapping[str, Any], where: str) -> SnapshotNode:
    _, name = reader.metadata(obj, where, namespaced=False)
    meta = reader.mapping(obj.get("metadata"), f"{where}metadata")
    spec = reader.mapping(obj.get("spec"), f"{where}spec")
    status = reader.mapping(obj.get("status"), f"{where}status")
    taints = []
    for i, raw in enumerate(reader.array(spec.get("taints"), f"{where}spec.taints")):
        try:
            taints.append(Taint.model_validate(raw))
        except ValidationError as err:
            problem = err.errors()[0]
            path = ".".join(str(p) for p in problem["loc"])
            raise reader.fail(
                f"{where}spec.taints[{i}]" + (f".{path}" if path else ""), problem["msg"]
            ) from None
    return SnapshotNode(
        name=name,
        labels=reader.string_map(meta.get("labels"), f"{where}metadata.labels"),
        taints=tuple(taints),
        unschedulable=reader.boolean(spec.get("unschedulable"), f"{where}spec.unschedulable"),
        allocatable=reader.resources(status.get("allocatable"), f"{where}status.allocatable"),
    )


def _pod(reader: _Reader, obj: Mapping[str, Any], where: str) -> SnapshotPod:
    namespace, name = reader.metadata(obj, where, namespaced=True)
    spec = reader.mapping(obj.get("spec"), f"{where}spec")
    status = reader.mapping(obj.get("status"), f"{where}status")
    try:
        requests = pod_spec_totals(spec).resource_list()
    except (FieldTypeError, QuantityError) as err:
        raise reader.fail(f"{where}spec", str(err)) from None
    requests.pop("pods", None)  # a pod takes one slot; a container "requesting pods" means nothing
    return SnapshotPod(
        namespace=namespace,
        name=name,
        node_name=reader.string(spec.get("nodeName"), f"{where}spec.nodeName"),
        phase=reader.string(status.get("phase"), f"{where}status.phase"),
        requests=requests,
    )


def _scope_requirement(reader: _Reader, raw: Any, where: str) -> ScopeSelectorRequirement:
    item = reader.mapping(raw, where)
    scope_name = reader.string(item.get("scopeName"), f"{where}.scopeName", required=True)
    operator_text = reader.string(item.get("operator"), f"{where}.operator", required=True)
    try:
        operator = ScopeOperator(operator_text)
    except ValueError:
        allowed = ", ".join(op.value for op in ScopeOperator)
        raise reader.fail(f"{where}.operator", f"{operator_text!r} is not one of {allowed}") from None
    values = reader.strings(item.get("values"), f"{where}.values")
    if operator in (ScopeOperator.IN, ScopeOperator.NOT_IN) and not values:
        raise reader.fail(f"{where}.values", f"must be non-empty for operator {operator}")
    if operator in (ScopeOperator.EXISTS, ScopeOperator.DOES_NOT_EXIST) and values:
        raise reader.fail(f"{where}.values", f"must be empty for operator {operator}")
    return ScopeSelectorRequirement(scope_name=scope_name, operator=operator, values=values)


def _resource_quota(reader: _Reader, obj: Mapping[str, Any], where: str) -> SnapshotResourceQuota:
    namespace, name = reader.metadata(obj, where, namespaced=True)
    spec = reader.mapping(obj.get("spec"), f"{where}spec")
    status = reader.mapping(obj.get("status"), f"{where}status")
    selector = reader.mapping(spec.get("scopeSelector"), f"{where}spec.scopeSelector")
    expressions_at = f"{where}spec.scopeSelector.matchExpressions"
    return SnapshotResourceQuota(
        namespace=namespace,
        name=name,
        scopes=reader.strings(spec.get("scopes"), f"{where}spec.scopes"),
        scope_selector=tuple(
            _scope_requirement(reader, raw, f"{expressions_at}[{i}]")
            for i, raw in enumerate(reader.array(selector.get("matchExpressions"), expressions_at))
        ),
        hard=reader.resources(status.get("hard"), f"{where}status.hard"),
        used=reader.resources(status.get("used"), f"{where}status.used"),
    )


def _add_object(reader: _Reader, obj: Any, where: str, implied_kind: str | None, into: _Collected) -> None:
    item = reader.mapping(obj, where.rstrip(".") or "document")
    kind = reader.string(item.get("kind"), f"{where}kind") or implied_kind or ""
    if not kind:
        raise reader.fail(f"{where}kind", "is required")
    api_version = reader.string(item.get("apiVersion"), f"{where}apiVersion")
    if kind in ("Node", "Pod", "ResourceQuota") and api_version not in ("", "v1"):
        raise reader.fail(f"{where}apiVersion", f"a {kind} is apiVersion v1, not {api_version!r}")
    if kind == "Node":
        into.nodes.append(_node(reader, item, where))
    elif kind == "Pod":
        into.pods.append(_pod(reader, item, where))
    elif kind == "ResourceQuota":
        into.resource_quotas.append(_resource_quota(reader, item, where))
    else:
        raise reader.fail(
            f"{where}kind", f"a cluster snapshot holds Node, Pod and ResourceQuota objects, not {kind!r}"
        )


@dataclass(slots=True)
class _Collected:
    nodes: list[SnapshotNode] = field(default_factory=list)
    pods: list[SnapshotPod] = field(default_factory=list)
    resource_quotas: list[SnapshotResourceQuota] = field(default_factory=list)


def parse_snapshot_document(body: Any, source: SourceRef | None = None) -> ClusterSnapshot:
    """One YAML document: a List of Nodes/Pods/ResourceQuotas, a typed list, or a single object."""
    reader = _Reader(source)
    document = reader.mapping(body, "document")
    kind = reader.string(document.get("kind"), "kind", required=True)
    collected = _Collected()
    if kind in _LIST_ITEM_KINDS:
        for i, item in enumerate(reader.array(document.get("items"), "items")):
            _add_object(reader, item, f"items[{i}].", _LIST_ITEM_KINDS[kind], collected)
    else:
        _add_object(reader, document, "", None, collected)
    return merge_snapshots(
        [ClusterSnapshot(tuple(collected.nodes), tuple(collected.pods), tuple(collected.resource_quotas))]
    )


def _unique(keys: Sequence[tuple[str, ...]], what: str) -> None:
    seen: set[tuple[str, ...]] = set()
    for key in keys:
        if key in seen:
            raise InputError(f"{what} {'/'.join(k for k in key if k)!r} appears more than once")
        seen.add(key)


def merge_snapshots(parts: Sequence[ClusterSnapshot]) -> ClusterSnapshot:
    """The union of several documents' objects, sorted; an object listed twice is an InputError."""
    nodes = sorted((n for p in parts for n in p.nodes), key=lambda n: n.name)
    pods = sorted((pod for p in parts for pod in p.pods), key=lambda pod: (pod.namespace, pod.name))
    quotas = sorted((q for p in parts for q in p.resource_quotas), key=lambda q: (q.namespace, q.name))
    _unique([(n.name,) for n in nodes], "node")
    _unique([(p.namespace, p.name) for p in pods], "pod")
    _unique([(q.namespace, q.name) for q in quotas], "resourcequota")
    return ClusterSnapshot(tuple(nodes), tuple(pods), tuple(quotas))


def load_cluster_snapshot(files: Mapping[str, bytes]) -> ClusterSnapshot:
    """One cluster's snapshot from its YAML files (path → bytes); raises InputError on the first problem."""
    parts = []
    for path in sorted(files):
        for document in load_yaml_documents(files[path]):
            if document.body is not None:
                parts.append(parse_snapshot_document(document.body, SourceRef(path, document.index)))
    return merge_snapshots(parts)


def _cluster_folder(path: str, root: str) -> str:
    """The cluster a snapshot file belongs to, or "" when it is not inside ``<root>/<cluster>/``."""
    relative = path[len(root) + 1 :]
    cluster, slash, _ = relative.partition("/")
    return cluster if slash else ""


def load_cluster_snapshots(files: Mapping[str, bytes], *, root: str) -> SnapshotLoad:
    """Every cluster's snapshot from repository files (POSIX path → bytes, ``<root>/<cluster>/<any name>
    .yaml``, ``root`` the layout's snapshots folder); files outside ``root`` ignored.

    Only ``.yaml``/``.yml`` files count. Each problem is one diagnostic, and a cluster with a problem gets
    no snapshot.
    """
    by_cluster: dict[str, dict[str, bytes]] = {}
    diagnostics: list[Diagnostic] = []
    for path in sorted(files):
        if not path.startswith(root + "/") or not path.endswith((".yaml", ".yml")):
            continue
        cluster = _cluster_folder(path, root)
        if not cluster:
            diagnostics.append(
                error(f"snapshot files go in {root}/<cluster>/, one folder per cluster", SourceRef(path))
            )
        elif len(cluster) > _MAX_CLUSTER_NAME or not is_dns1123_label(cluster):
            diagnostics.append(
                error(
                    f"folder {cluster!r} is not a cluster name (a DNS-1123 label of at most 48 characters)",
                    SourceRef(path),
                )
            )
        else:
            by_cluster.setdefault(cluster, {})[path] = files[path]
    snapshots: dict[str, ClusterSnapshot] = {}
    for cluster in sorted(by_cluster):
        parts: list[ClusterSnapshot] = []
        failed = False
        for path, data in sorted(by_cluster[cluster].items()):
            try:
                documents = load_yaml_documents(data)
            except YamlSyntaxError as err:
                diagnostics.append(error(err.message, SourceRef(path, err.doc_index)))
                failed = True
                continue
            for document in documents:
                if document.body is None:
                    continue
                try:
                    parts.append(parse_snapshot_document(document.body, SourceRef(path, document.index)))
                except InputError as err:
                    diagnostics.append(error(err.message, err.source, err.field))
                    failed = True
        if failed:
            continue
        try:
            snapshots[cluster] = merge_snapshots(parts)
        except InputError as err:
            diagnostics.append(error(err.message, subject=f"{root}/{cluster}"))
    return SnapshotLoad(snapshots, tuple(diagnostics))
