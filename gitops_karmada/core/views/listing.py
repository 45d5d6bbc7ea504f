"""What ``get`` lists: bindings, clusters, policies, overrides and quotas as rows of named cells. Pure.

Each listed object keeps its namespace, labels, the clusters it concerns and a status word, so the CLI
filters by ``-n``/``-l``/``--cluster``/``--status`` without knowing the kinds, and its API form for
``-o yaml|json``. Columns follow ``kubectl get`` of the same Karmada kinds, plus what a fleet repository
adds (the policy that claims a binding, replicas per cluster, the file an input came from).
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.diff.bound import bound_placement, policy_label
from gitops_karmada.core.diff.placement import QUOTA_EXCEEDED_REASON
from gitops_karmada.core.layout import binding_name
from gitops_karmada.core.rollout.state import read_state
from gitops_karmada.core.selectors import labels_match
from gitops_karmada.core.views.status_summary import binding_ready, cluster_health, health_word
from gitops_karmada.model.keys import ObjectKey

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from gitops_karmada.model.base import LabelSelector
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.diagnostics import SourceRef
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy
    from gitops_karmada.model.policies import ClusterPropagationPolicy, PropagationPolicy
    from gitops_karmada.model.quotas import FederatedResourceQuota


class ListedKind(enum.StrEnum):
    """The kinds ``get`` lists (kubectl-style plural names)."""

    BINDINGS = "bindings"
    CLUSTERS = "clusters"
    POLICIES = "policies"
    OVERRIDES = "overrides"
    QUOTAS = "quotas"
    ROLLOUTS = "rollouts"


KIND_ALIASES: Mapping[str, tuple[ListedKind, str | None]] = {
    **{kind.value: (kind, None) for kind in ListedKind},
    **dict.fromkeys(("binding", "resourcebindings", "clusterresourcebindings"), (ListedKind.BINDINGS, None)),
    "rb": (ListedKind.BINDINGS, "ResourceBinding"),
    "crb": (ListedKind.BINDINGS, "ClusterResourceBinding"),
    "cluster": (ListedKind.CLUSTERS, None),
    "policy": (ListedKind.POLICIES, None),
    "pp": (ListedKind.POLICIES, "PropagationPolicy"),
    "propagationpolicies": (ListedKind.POLICIES, "PropagationPolicy"),
    "cpp": (ListedKind.POLICIES, "ClusterPropagationPolicy"),
    "clusterpropagationpolicies": (ListedKind.POLICIES, "ClusterPropagationPolicy"),
    "override": (ListedKind.OVERRIDES, None),
    "op": (ListedKind.OVERRIDES, "OverridePolicy"),
    "overridepolicies": (ListedKind.OVERRIDES, "OverridePolicy"),
    "cop": (ListedKind.OVERRIDES, "ClusterOverridePolicy"),
    "clusteroverridepolicies": (ListedKind.OVERRIDES, "ClusterOverridePolicy"),
    **dict.fromkeys(
        ("quota", "frq", "federatedresourcequotas"), (ListedKind.QUOTAS, "FederatedResourceQuota")
    ),
    **dict.fromkeys(("rollout", "ro", "rolloutpolicies"), (ListedKind.ROLLOUTS, "RolloutPolicy")),
}
"""kubectl's names and short names; the second part narrows a listing to one API kind."""

CLUSTER_SCOPED_KINDS = frozenset(
    {"ClusterResourceBinding", "ClusterPropagationPolicy", "ClusterOverridePolicy", "Cluster"}
)

NAMESPACED: frozenset[ListedKind] = frozenset(
    {ListedKind.BINDINGS, ListedKind.POLICIES, ListedKind.OVERRIDES, ListedKind.QUOTAS, ListedKind.ROLLOUTS}
)
"""Listings with namespaced objects; a namespace filter leaves their cluster-scoped ones out, as
``kubectl get rb -n shop`` leaves out ClusterResourceBindings."""


class BindingStatus(enum.StrEnum):
    """One word for a binding record's state, for the STATUS column and ``--status``."""

    OK = "ok"
    UNSCHEDULABLE = "unschedulable"
    QUOTA_BLOCKED = "quota-blocked"
    NOT_RENDERED = "not-rendered"
    """Scheduled, but the manifest is missing from a target folder (the Rendered condition says why)."""
    ROLLING_OUT = "rolling-out"
    """A RolloutPolicy's rollout is in flight: some folders wait for their wave (``get rollouts``)."""


class ClusterStatusWord(enum.StrEnum):
    READY = "ready"
    NOT_READY = "not-ready"
    UNKNOWN = "unknown"


STATUS_WORDS: Mapping[ListedKind, tuple[str, ...]] = {
    ListedKind.BINDINGS: tuple(s.value for s in BindingStatus),
    ListedKind.CLUSTERS: tuple(s.value for s in ClusterStatusWord),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Listed:
    """One object of a listing."""

    kind: str
    """The object's API kind (``ResourceBinding``, ``ClusterPropagationPolicy``, ...)."""
    namespace: str
    name: str
    labels: Mapping[str, str]
    cells: Mapping[str, str]
    """Column → text, the wide columns included."""
    api: Mapping[str, Any]
    """The object as its API form (``-o yaml|json``)."""
    clusters: frozenset[str] = frozenset()
    """The member clusters the object concerns (``--cluster``)."""
    status: str = ""

    @property
    def kind_name(self) -> str:
        """``kind/name`` with kubectl's lowercase kind (``-o name``)."""
        return f"{self.kind.lower()}/{self.name}"


@dataclass(frozen=True, slots=True)
class Listing:
    kind: ListedKind
    columns: tuple[str, ...]
    wide_columns: tuple[str, ...]
    items: tuple[Listed, ...]
    totals: Mapping[str, int] = field(default_factory=dict)
    """What the listing adds up to (objects, replicas, ...), for the table's last line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ListFilter:
    namespace: str | None = None
    """None: every namespace (``-A``)."""
    api_kind: str | None = None
    """Only objects of this API kind (``rb``, ``cpp``, ...)."""
    selector: LabelSelector | None = None
    cluster: str | None = None
    statuses: frozenset[str] = frozenset()

    def keeps(self, item: Listed) -> bool:
        if self.api_kind is not None and item.kind != self.api_kind:
            return False
        if self.namespace is not None and item.namespace != self.namespace:
            return False
        if self.selector is not None and not labels_match(self.selector, item.labels):
            return False
        if self.cluster is not None and self.cluster not in item.clusters:
            return False
        return not self.statuses or item.status in self.statuses


def filtered(listing: Listing, keep: ListFilter) -> Listing:
    """The listing restricted to what ``keep`` admits, its totals recounted."""
    items = tuple(item for item in listing.items if keep.keeps(item))
    return Listing(listing.kind, listing.columns, listing.wide_columns, items, _TOTALS[listing.kind](items))


# -- bindings ---------------------------------------------------------------------------------------------


def binding_status(binding: ResourceBinding) -> BindingStatus:
    scheduled = binding.condition("Scheduled")
    if scheduled is not None and scheduled.status == "False":
        if scheduled.reason == QUOTA_EXCEEDED_REASON:
            return BindingStatus.QUOTA_BLOCKED
        return BindingStatus.UNSCHEDULABLE
    rollout = read_state(binding.metadata.annotations)
    if rollout is not None and rollout.in_flight:
        return BindingStatus.ROLLING_OUT
    rendered = binding.condition("Rendered")
    if rendered is not None and rendered.status == "False":
        return BindingStatus.NOT_RENDERED
    return BindingStatus.OK


def _condition_text(binding: ResourceBinding, condition_type: str) -> str:
    condition = binding.condition(condition_type)
    return "-" if condition is None else condition.status


def _placement_text(binding: ResourceBinding) -> tuple[str, int]:
    placement = bound_placement(binding)
    if not placement.replicas:
        return "-", 0
    if placement.has_replicas:
        parts = (f"{cluster}={count}" for cluster, count in sorted(placement.replicas.items()))
        return ",".join(parts), sum(placement.replicas.values())
    return ",".join(sorted(placement.replicas)), 0


def binding_listing(bindings: Iterable[ResourceBinding]) -> Listing:
    items: list[Listed] = []
    for binding in bindings:
        ref = binding.spec.resource
        key = ObjectKey(ref.api_version, ref.kind, ref.namespace, ref.name)
        clusters, replicas = _placement_text(binding)
        status = binding_status(binding)
        annotations = binding.metadata.annotations
        cells = {
            "NAMESPACE": ref.namespace or "-",
            "NAME": binding.metadata.name or binding_name(key),
            "RESOURCE": f"{key.kind}.{key.group}/{ref.name}" if key.group else f"{key.kind}/{ref.name}",
            "POLICY": policy_label(binding) or "-",
            "REPLICAS": str(replicas) if replicas else "-",
            "CLUSTERS": clusters,
            "STATUS": status.value,
            "READY": binding_ready(binding),
            "HEALTH": health_word(cluster_health(binding)),
            "SCHEDULED": _condition_text(binding, "Scheduled"),
            "RENDERED": _condition_text(binding, "Rendered"),
            "LAST-SCHEDULED": binding.status.last_scheduled_time or "-",
            "SOURCE": annotations.get("gitops-karmada.io/source", "-"),
        }
        items.append(
            Listed(
                kind=binding.kind,
                namespace=ref.namespace,
                name=cells["NAME"],
                labels=binding.metadata.labels,
                cells=cells,
                api=binding.to_api(),
                clusters=frozenset(t.name for t in binding.spec.clusters),
                status=status.value,
            )
        )
    items.sort(key=lambda i: (i.namespace, i.cells["RESOURCE"]))
    columns = ("NAMESPACE", "NAME", "RESOURCE", "POLICY", "REPLICAS", "CLUSTERS", "STATUS")
    wide = ("READY", "HEALTH", "SCHEDULED", "RENDERED", "LAST-SCHEDULED", "SOURCE")
    return Listing(ListedKind.BINDINGS, columns, wide, tuple(items), _binding_totals(items))


def _binding_totals(items: Sequence[Listed]) -> dict[str, int]:
    totals = {
        "bindings": len(items),
        "replicas": sum(int(i.cells["REPLICAS"]) for i in items if i.cells["REPLICAS"] != "-"),
    }
    for status, count in sorted(Counter(i.status for i in items if i.status != BindingStatus.OK).items()):
        totals[status] = count
    return totals


# -- clusters ---------------------------------------------------------------------------------------------


def cluster_status(cluster: Cluster) -> ClusterStatusWord:
    ready = cluster.condition("Ready")
    if ready is None or ready.status == "Unknown":
        return ClusterStatusWord.UNKNOWN
    return ClusterStatusWord.READY if ready.status == "True" else ClusterStatusWord.NOT_READY


def cluster_listing(clusters: Iterable[Cluster], bindings: Iterable[ResourceBinding]) -> Listing:
    placed: Counter[str] = Counter()
    replicas: Counter[str] = Counter()
    for binding in bindings:
        placement = bound_placement(binding)
        for name, count in placement.replicas.items():
            placed[name] += 1
            replicas[name] += count
    items: list[Listed] = []
    for cluster in sorted(clusters, key=lambda c: c.name):
        spec, status = cluster.spec, cluster.status
        ready = cluster.condition("Ready")
        summary = status.resource_summary
        cells = {
            "NAME": cluster.name,
            "VERSION": status.kubernetes_version or "-",
            "MODE": spec.sync_mode,
            "READY": "-" if ready is None else ready.status,
            "BINDINGS": str(placed[cluster.name]),
            "REPLICAS": str(replicas[cluster.name]),
            "PROVIDER": spec.provider or "-",
            "REGION": spec.region or "-",
            "ZONES": ",".join(spec.effective_zones()) or "-",
            "TAINTS": ",".join(f"{t.key}={t.value or ''}:{t.effect}" for t in spec.taints) or "-",
            "ALLOCATABLE": _resources(summary.allocatable if summary else {}),
            "LABELS": ",".join(f"{k}={v}" for k, v in sorted(cluster.labels.items())) or "-",
        }
        items.append(
            Listed(
                kind="Cluster",
                namespace="",
                name=cluster.name,
                labels=cluster.labels,
                cells=cells,
                api=cluster.to_api(),
                clusters=frozenset({cluster.name}),
                status=cluster_status(cluster).value,
            )
        )
    columns = ("NAME", "VERSION", "MODE", "READY", "BINDINGS", "REPLICAS")
    wide = ("PROVIDER", "REGION", "ZONES", "TAINTS", "ALLOCATABLE", "LABELS")
    return Listing(ListedKind.CLUSTERS, columns, wide, tuple(items), _cluster_totals(items))


def _resources(resources: Mapping[str, Any]) -> str:
    shown = ("cpu", "memory", "pods")
    return ",".join(f"{name}={resources[name]}" for name in shown if name in resources) or "-"


def _cluster_totals(items: Sequence[Listed]) -> dict[str, int]:
    totals = {"clusters": len(items)}
    for status, count in sorted(
        Counter(i.status for i in items if i.status != ClusterStatusWord.READY).items()
    ):
        totals[status] = count
    return totals


# -- policies and overrides -------------------------------------------------------------------------------


def _selectors_text(selectors: Iterable[Any]) -> str:
    parts = []
    for selector in selectors:
        target = selector.kind + (f"/{selector.namespace}" if selector.namespace else "")
        target += f"/{selector.name}" if selector.name else ("/[labels]" if selector.label_selector else "/*")
        parts.append(target)
    return ",".join(parts) or "-"


def policy_listing(
    policies: Iterable[PropagationPolicy | ClusterPropagationPolicy],
    bindings: Iterable[ResourceBinding],
    sources: Mapping[tuple[str, str, str], SourceRef],
) -> Listing:
    claimed: Counter[str] = Counter()
    clusters_of: dict[str, set[str]] = {}
    for binding in bindings:
        label = policy_label(binding)
        if label:
            scope = label if label.startswith("cpp/") else f"{binding.spec.resource.namespace}/{label}"
            claimed[scope] += 1
            clusters_of.setdefault(scope, set()).update(t.name for t in binding.spec.clusters)
    items: list[Listed] = []
    for policy in policies:
        short = "cpp" if policy.is_cluster_scoped else "pp"
        scope = f"cpp/{policy.name}" if policy.is_cluster_scoped else f"{policy.namespace}/pp/{policy.name}"
        spec = policy.spec
        placement = spec.placement
        strategy = (
            placement.replica_scheduling.replica_scheduling_type
            if placement.replica_scheduling
            else "Duplicated"
        )
        source = sources.get((policy.kind, policy.namespace, policy.name))
        cells = {
            "NAMESPACE": policy.namespace or "-",
            "NAME": f"{short}/{policy.name}",
            "PRIORITY": str(spec.priority or 0),
            "PREEMPTION": str(spec.preemption),
            "SCHEDULING": str(strategy),
            "BINDINGS": str(claimed[scope]),
            "SELECTORS": _selectors_text(spec.resource_selectors),
            "CLUSTERS": ",".join(sorted(clusters_of.get(scope, ()))) or "-",
            "SOURCE": f"{source.path}[{source.doc_index}]" if source else "-",
        }
        items.append(
            Listed(
                kind=policy.kind,
                namespace=policy.namespace,
                name=policy.name,
                labels=policy.metadata.labels,
                cells=cells,
                api=policy.to_api(),
                clusters=frozenset(clusters_of.get(scope, ())),
            )
        )
    items.sort(key=lambda i: (i.namespace, i.kind, i.name))
    columns = ("NAMESPACE", "NAME", "PRIORITY", "PREEMPTION", "SCHEDULING", "BINDINGS")
    wide = ("SELECTORS", "CLUSTERS", "SOURCE")
    return Listing(ListedKind.POLICIES, columns, wide, tuple(items), _policy_totals(items))


def _policy_totals(items: Sequence[Listed]) -> dict[str, int]:
    return {"policies": len(items), "bindings": sum(int(i.cells["BINDINGS"]) for i in items)}


def override_listing(
    overrides: Iterable[OverridePolicy | ClusterOverridePolicy],
    sources: Mapping[tuple[str, str, str], SourceRef],
) -> Listing:
    items: list[Listed] = []
    for policy in overrides:
        short = "cop" if policy.kind == "ClusterOverridePolicy" else "op"
        rules = policy.spec.effective_rules()
        # the API names of the overriders the rules set (annotationsOverrider, plaintext, ...)
        overriders = sorted(
            {name for rule in rules for name, value in rule.overriders.to_api().items() if value}
        )
        source = sources.get((policy.kind, policy.namespace, policy.name))
        cells = {
            "NAMESPACE": policy.namespace or "-",
            "NAME": f"{short}/{policy.name}",
            "RULES": str(len(rules)),
            "OVERRIDERS": ",".join(overriders) or "-",
            "SELECTORS": _selectors_text(policy.spec.resource_selectors),
            "SOURCE": f"{source.path}[{source.doc_index}]" if source else "-",
        }
        items.append(
            Listed(
                kind=policy.kind,
                namespace=policy.namespace,
                name=policy.name,
                labels=policy.metadata.labels,
                cells=cells,
                api=policy.to_api(),
            )
        )
    items.sort(key=lambda i: (i.namespace, i.kind, i.name))
    columns = ("NAMESPACE", "NAME", "RULES", "OVERRIDERS")
    return Listing(
        ListedKind.OVERRIDES, columns, ("SELECTORS", "SOURCE"), tuple(items), _override_totals(items)
    )


def _override_totals(items: Sequence[Listed]) -> dict[str, int]:
    return {"overrides": len(items), "rules": sum(int(i.cells["RULES"]) for i in items)}


# -- quotas -----------------------------------------------------------------------------------------------


def quota_listing(quotas: Iterable[FederatedResourceQuota]) -> Listing:
    """Quotas as their records hold them (status computed by the last reconcile)."""
    items: list[Listed] = []
    for quota in quotas:
        namespace = quota.metadata.namespace or ""
        overall = quota.spec.overall
        used = quota.status.overall_used
        cells = {
            "NAMESPACE": namespace or "-",
            "NAME": quota.metadata.name,
            "OVERALL": ",".join(f"{k}={v}" for k, v in sorted(overall.items())) or "-",
            "USED": ",".join(f"{k}={used.get(k, 0)}" for k in sorted(overall)) or "-",
            "STATIC": ",".join(a.cluster_name for a in quota.spec.static_assignments) or "-",
        }
        items.append(
            Listed(
                kind="FederatedResourceQuota",
                namespace=namespace,
                name=quota.metadata.name,
                labels=quota.metadata.labels,
                cells=cells,
                api=quota.to_api(),
                clusters=frozenset(a.cluster_name for a in quota.spec.static_assignments),
            )
        )
    items.sort(key=lambda i: (i.namespace, i.name))
    return Listing(
        ListedKind.QUOTAS,
        ("NAMESPACE", "NAME", "OVERALL", "USED"),
        ("STATIC",),
        tuple(items),
        _quota_totals(items),
    )


def _quota_totals(items: Sequence[Listed]) -> dict[str, int]:
    return {"quotas": len(items)}


def rollout_totals(items: Sequence[Listed]) -> dict[str, int]:
    """Rollouts (``core.views.rollouts``), and the templates whose rollout is in flight."""
    return {"rollouts": len(items), "progressing": sum(int(i.cells.get("PROGRESSING", "0")) for i in items)}


_TOTALS: Mapping[ListedKind, Callable[[Sequence[Listed]], dict[str, int]]] = {
    ListedKind.BINDINGS: _binding_totals,
    ListedKind.CLUSTERS: _cluster_totals,
    ListedKind.POLICIES: _policy_totals,
    ListedKind.OVERRIDES: _override_totals,
    ListedKind.QUOTAS: _quota_totals,
    ListedKind.ROLLOUTS: rollout_totals,
}


def listing_of(
    kind: ListedKind,
    inputs: Inputs,
    bindings: Sequence[ResourceBinding],
    quotas: Sequence[FederatedResourceQuota],
) -> Listing:
    """The full listing of ``kind`` from the loaded inputs and the committed records."""
    match kind:
        case ListedKind.BINDINGS:
            return binding_listing(bindings)
        case ListedKind.CLUSTERS:
            return cluster_listing(inputs.clusters, bindings)
        case ListedKind.POLICIES:
            policies: list[PropagationPolicy | ClusterPropagationPolicy] = [
                *inputs.propagation_policies,
                *inputs.cluster_propagation_policies,
            ]
            return policy_listing(policies, bindings, inputs.sources)
        case ListedKind.OVERRIDES:
            overrides: list[OverridePolicy | ClusterOverridePolicy] = [
                *inputs.override_policies,
                *inputs.cluster_override_policies,
            ]
            return override_listing(overrides, inputs.sources)
        case ListedKind.QUOTAS:
            return quota_listing(quotas)
        case ListedKind.ROLLOUTS:
            raise ValueError("rollouts are listed by core.views.rollouts.rollout_listing")
