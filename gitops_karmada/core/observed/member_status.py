"""What a member cluster reports, worked out from what its API answered, and the snapshot file's codec.

The rules are Karmada's cluster status controller's (``pkg/controllers/status/cluster_status_controller.go``):
the Ready condition from the health endpoint, the node summary, and the resource summary (allocatable
from the nodes, allocated and allocating from the pods, as ``util.Resource.AddPodRequest`` counts them).
The snapshot's YAML is canonical, so the same observation always gives the same bytes on the status
branch. Pure: callers bring the API's answers and the time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.codecs.yaml_input import YamlSyntaxError, load_yaml_documents
from gitops_karmada.model.clusters import Condition, NodeSummary, ResourceSummary
from gitops_karmada.model.diagnostics import field_path
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.quantity import Format, Quantity, QuantityError
from gitops_karmada.model.status import SNAPSHOT_KIND, STATUS_API_VERSION, ClusterStatusSnapshot

if TYPE_CHECKING:
    from gitops_karmada.model.base import ResourceList
    from gitops_karmada.model.diagnostics import SourceRef

READY = "Ready"
# Karmada's reasons and messages for the Ready condition (cluster_status_controller.go), kept verbatim.
CLUSTER_READY = "ClusterReady"
CLUSTER_HEALTHY = "cluster is healthy and ready to accept workloads"
CLUSTER_NOT_READY = "ClusterNotReady"
CLUSTER_UNHEALTHY = "cluster is reachable but health endpoint responded without ok"
CLUSTER_NOT_REACHABLE = "ClusterNotReachable"
CLUSTER_NOT_REACHABLE_MESSAGE = "cluster is not reachable"

NOT_FOUND = "not found"
"""``ObservedObject.error`` of an object the cluster does not have."""

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
"""An annotation that repeats the whole manifest: left out of observed objects."""


def ready_condition(*, online: bool, healthy: bool, now: str) -> Condition:
    """Karmada's ``generateReadyCondition``: not reachable, reachable but not ok, or ready."""
    if not online:
        return Condition(
            type=READY,
            status="False",
            reason=CLUSTER_NOT_REACHABLE,
            message=CLUSTER_NOT_REACHABLE_MESSAGE,
            last_transition_time=now,
        )
    if not healthy:
        return Condition(
            type=READY,
            status="False",
            reason=CLUSTER_NOT_READY,
            message=CLUSTER_UNHEALTHY,
            last_transition_time=now,
        )
    return Condition(
        type=READY, status="True", reason=CLUSTER_READY, message=CLUSTER_HEALTHY, last_transition_time=now
    )


def carry_over(
    previous: ClusterStatusSnapshot | None, current: ClusterStatusSnapshot
) -> ClusterStatusSnapshot:
    """``current`` as Karmada would leave Cluster.status after ``previous``: a condition whose status did not
    change keeps its ``lastTransitionTime`` (``meta.SetStatusCondition``), and a cluster that is not ready
    keeps the version, summaries and objects it last reported (Karmada then updates the Ready condition
    only, and the bindings keep the Works' last collected status)."""
    if previous is None:
        return current
    before = {c.type: c for c in previous.status.conditions}
    conditions = []
    for condition in current.status.conditions:
        old = before.get(condition.type)
        if old is not None and old.status == condition.status and old.last_transition_time:
            condition = condition.model_copy(update={"last_transition_time": old.last_transition_time})
        conditions.append(condition)
    update: dict[str, Any] = {"conditions": tuple(conditions)}
    ready = next((c for c in current.status.conditions if c.type == READY), None)
    if ready is None or ready.status != "True":
        last = previous.status
        update |= {
            "kubernetes_version": current.status.kubernetes_version or last.kubernetes_version,
            "node_summary": current.status.node_summary or last.node_summary,
            "resource_summary": current.status.resource_summary or last.resource_summary,
        }
        if not current.objects:
            # the Works' last collected status stays in the bindings while the cluster cannot be read:
            # state preservation reads the failed cluster's last report
            return current.model_copy(
                update={"status": current.status.model_copy(update=update), "objects": previous.objects}
            )
    return current.model_copy(update={"status": current.status.model_copy(update=update)})


def heartbeat_only(previous: ClusterStatusSnapshot, current: ClusterStatusSnapshot) -> bool:
    """Whether ``current`` would change nothing of ``previous``'s file but ``collectedAt``."""
    same_time = previous.model_copy(update={"collected_at": current.collected_at})
    return dump_snapshot(same_time) == dump_snapshot(current)


def needs_recording(
    previous: ClusterStatusSnapshot | None,
    current: ClusterStatusSnapshot,
    *,
    grace_seconds: float,
    interval_seconds: float = 0.0,
) -> bool:
    """Whether a collector that runs every ``interval_seconds`` should record ``current`` over the recorded
    ``previous``.

    Anything but the heartbeat changed: yes. The heartbeat alone: only once the recorded one would be more
    than half the monitor grace period old at the next round. Looking one interval ahead keeps the heartbeat
    on the branch at most grace/2 old (plus however late a round runs) whatever the interval; checking its
    age now only would let it reach twice the interval when the interval is just below grace/2, the grace
    period itself. An unchanged fleet then costs one status commit per grace/2 instead of one per interval.
    An observation older than the recorded one (another replica's collector got there first) never
    replaces it.
    """
    if previous is None:
        return True
    age = (parse_time(current.collected_at) - parse_time(previous.collected_at)).total_seconds()
    if age < 0:
        return False
    return age + interval_seconds > grace_seconds / 2 or not heartbeat_only(previous, current)


# -- nodes and pods: the node and resource summaries ----------------------------------------------------


def node_is_ready(node: Mapping[str, Any]) -> bool:
    """``helper.NodeReady``: the node's Ready condition is True (no condition: not ready)."""
    status = node.get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    for condition in conditions if isinstance(conditions, list) else ():
        if isinstance(condition, Mapping) and condition.get("type") == READY:
            return condition.get("status") == "True"
    return False


def _is_scalar_resource(name: str) -> bool:
    """``IsScalarResourceName``: extended (``example.com/gpu``), prefixed native (``kubernetes.io/...``),
    huge pages and attachable volumes; other unprefixed names are not counted in a pod's request."""
    return "/" in name or name.startswith(("hugepages-", "attachable-volumes-"))


def _quantities(value: object) -> dict[str, Quantity]:
    """A ResourceList from JSON; entries that are not quantities are skipped (Kubernetes validated them)."""
    found: dict[str, Quantity] = {}
    for name, raw in value.items() if isinstance(value, Mapping) else ():
        try:
            found[str(name)] = Quantity.parse(raw)
        except QuantityError:
            continue
    return found


@dataclass(slots=True)
class _Resource:
    """Karmada's ``util.Resource``: CPU in milli-units, everything else in whole units (rounded up)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    pods: int = 0
    scalars: dict[str, int] = field(default_factory=dict)

    def add(self, requests: Mapping[str, Quantity]) -> None:
        for name, quantity in requests.items():
            if name == "cpu":
                self.milli_cpu += quantity.milli_value()
            elif name == "memory":
                self.memory += quantity.ceil_value()
            elif name == "ephemeral-storage":
                self.ephemeral_storage += quantity.ceil_value()
            elif name == "pods":
                self.pods += quantity.ceil_value()
            elif _is_scalar_resource(name):
                self.scalars[name] = self.scalars.get(name, 0) + quantity.ceil_value()

    def set_max(self, requests: Mapping[str, Quantity]) -> None:
        for name, quantity in requests.items():
            if name == "cpu":
                self.milli_cpu = max(self.milli_cpu, quantity.milli_value())
            elif name == "memory":
                self.memory = max(self.memory, quantity.ceil_value())
            elif name == "ephemeral-storage":
                self.ephemeral_storage = max(self.ephemeral_storage, quantity.ceil_value())
            elif _is_scalar_resource(name):
                self.scalars[name] = max(self.scalars.get(name, 0), quantity.ceil_value())

    def add_resource(self, other: _Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.pods += other.pods
        for name, value in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + value

    def resource_list(self) -> dict[str, Quantity]:
        """``Resource.ResourceList``: the four basic resources always, then the scalars; names sorted."""
        found = {
            "cpu": Quantity(Fraction(self.milli_cpu, 1000), Format.DECIMAL_SI),
            "memory": Quantity(self.memory, Format.BINARY_SI),
            "ephemeral-storage": Quantity(self.ephemeral_storage, Format.BINARY_SI),
            "pods": Quantity(self.pods, Format.DECIMAL_SI),
        }
        for name, value in self.scalars.items():
            found[name] = Quantity(
                value, Format.BINARY_SI if name.startswith("hugepages-") else Format.DECIMAL_SI
            )
        return dict(sorted(found.items()))


def _container_requests(container: object) -> dict[str, Quantity]:
    resources = container.get("resources") if isinstance(container, Mapping) else None
    return _quantities(resources.get("requests") if isinstance(resources, Mapping) else None)


def pod_request(spec: Mapping[str, Any]) -> _Resource:
    """``AddPodRequest``: the sum of the containers' requests, at least each init container's, plus the
    pod overhead."""
    result = _Resource()
    for container in spec.get("containers") or ():
        result.add(_container_requests(container))
    for container in spec.get("initContainers") or ():
        result.set_max(_container_requests(container))
    result.add(_quantities(spec.get("overhead")))
    return result


_TERMINATED_PHASES = frozenset({"Succeeded", "Failed"})


@dataclass(slots=True)
class SummaryBuilder:
    """Accumulates nodes and pods page by page (a cluster's pods need not fit in memory at once)."""

    total_nodes: int = 0
    ready_nodes: int = 0
    allocatable: dict[str, Quantity] = field(default_factory=dict)
    allocated: _Resource = field(default_factory=_Resource)
    allocating: _Resource = field(default_factory=_Resource)

    def add_nodes(self, nodes: Iterable[Mapping[str, Any]]) -> None:
        """``getNodeSummary`` and ``getClusterAllocatable``: every node's allocatable is summed, ready or
        not, as Karmada does (the estimators subtract what is allocated)."""
        for node in nodes:
            self.total_nodes += 1
            self.ready_nodes += 1 if node_is_ready(node) else 0
            status = node.get("status")
            for name, quantity in _quantities(
                status.get("allocatable") if isinstance(status, Mapping) else None
            ).items():
                held = self.allocatable.get(name)
                self.allocatable[name] = quantity if held is None else held + quantity

    def add_pods(self, pods: Iterable[Mapping[str, Any]]) -> None:
        """``getAllocatedResource`` (pods bound to a node and not terminated) and ``getAllocatingResource``
        (pods not bound yet); each counts its pods under ``pods``."""
        for pod in pods:
            spec, status = pod.get("spec"), pod.get("status")
            if not isinstance(spec, Mapping):
                continue
            phase = status.get("phase") if isinstance(status, Mapping) else None
            if phase in _TERMINATED_PHASES:
                continue
            target = self.allocated if spec.get("nodeName") else self.allocating
            target.add_resource(pod_request(spec))
            target.pods += 1

    def node_summary(self) -> NodeSummary:
        return NodeSummary(total_num=self.total_nodes, ready_num=self.ready_nodes)

    def resource_summary(self, *, with_pods: bool) -> ResourceSummary:
        allocatable: ResourceList = dict(sorted(self.allocatable.items()))
        if not with_pods:
            return ResourceSummary(allocatable=allocatable)
        return ResourceSummary(
            allocatable=allocatable,
            allocating=self.allocating.resource_list(),
            allocated=self.allocated.resource_list(),
        )


# -- observed objects -------------------------------------------------------------------------------------


def _sorted(value: Any) -> Any:
    """``value`` with every mapping's keys sorted, as ``kubectl get -o yaml`` shows an object."""
    if isinstance(value, Mapping):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def trim_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    """What a snapshot keeps of a member object: apiVersion, kind, metadata (name, namespace, generation,
    labels, annotations but the last-applied copy of the manifest), spec and status; keys sorted."""
    metadata = obj.get("metadata")
    meta = metadata if isinstance(metadata, Mapping) else {}
    kept_meta: dict[str, Any] = {key: meta[key] for key in ("name", "namespace", "generation") if key in meta}
    for key in ("labels", "annotations"):
        values = meta.get(key)
        if isinstance(values, Mapping):
            values = {k: v for k, v in values.items() if k != LAST_APPLIED}
            if values:
                kept_meta[key] = values
    trimmed: dict[str, Any] = {key: obj[key] for key in ("apiVersion", "kind") if key in obj}
    trimmed["metadata"] = kept_meta
    trimmed.update({key: obj[key] for key in ("spec", "status") if key in obj})
    return {key: _sorted(value) for key, value in sorted(trimmed.items())}


# -- the snapshot file -----------------------------------------------------------------------------------


def snapshot_document(snapshot: ClusterStatusSnapshot) -> dict[str, Any]:
    """The snapshot as its YAML file holds it: defaults left out, free-form maps with sorted keys."""
    body = snapshot.model_dump(by_alias=True, exclude_defaults=True, mode="json")
    body.pop("apiVersion", None)
    body.pop("kind", None)
    summary = body.get("status", {}).get("resourceSummary")
    for key in ("allocatable", "allocating", "allocated"):
        if summary and key in summary:
            summary[key] = _sorted(summary[key])
    metadata = body.get("metadata", {})
    for key in ("labels", "annotations"):
        if key in metadata:
            metadata[key] = _sorted(metadata[key])
    for item in body.get("objects", ()):
        if "observed" in item:
            item["observed"] = _sorted(item["observed"])
    return {"apiVersion": STATUS_API_VERSION, "kind": SNAPSHOT_KIND, **body}


def dump_snapshot(snapshot: ClusterStatusSnapshot) -> bytes:
    """The snapshot's canonical YAML: the same snapshot always gives the same bytes."""
    return dump_yaml(snapshot_document(snapshot)).encode("utf-8")


def parse_snapshot(raw: bytes, source: SourceRef, where: str) -> ClusterStatusSnapshot:
    """One ClusterStatusSnapshot document; an ``InputError`` naming ``source``, the field and ``where``
    (the status branch, or the file given on the command line) otherwise."""
    try:
        documents = [doc for doc in load_yaml_documents(raw) if doc.body is not None]
    except YamlSyntaxError as err:
        raise InputError(f"{err} ({where})", source) from None
    if len(documents) != 1 or not isinstance(documents[0].body, Mapping):
        raise InputError(f"must hold one ClusterStatusSnapshot document ({where})", source)
    try:
        return ClusterStatusSnapshot.model_validate(documents[0].body)
    except ValidationError as err:
        first = err.errors()[0]
        loc = [part for part in first["loc"] if not (isinstance(part, str) and part.startswith("function-"))]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise InputError(f"{message} ({where})", source, field_path(loc)) from None
