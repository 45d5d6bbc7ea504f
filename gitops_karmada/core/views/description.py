"""What ``describe`` shows of a binding, a propagation policy or a cluster, as plain data. Pure.

A description is kubectl-describe's shape: ``Field: value`` lines, then titled tables (placement,
conditions, the bindings a policy claims or a cluster holds); the adapter adds the events (the commits
that changed the object) as one more table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.diff.bound import bound_placement, claimed_policy, policy_label
from gitops_karmada.core.views.listing import binding_status, cluster_status
from gitops_karmada.core.views.status_summary import binding_ready, cluster_health, health_word

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Cluster, Condition
    from gitops_karmada.model.policies import ClusterPropagationPolicy, PropagationPolicy


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def to_dict(self) -> list[dict[str, str]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


@dataclass(frozen=True, slots=True)
class Description:
    fields: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...] = field(default=())

    def with_section(self, section: Section) -> Description:
        return Description(self.fields, (*self.sections, section))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.fields)
        for section in self.sections:
            data[section.title] = section.to_dict()
        return data


def _labels(labels: Mapping[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"


def conditions_section(conditions: Iterable[Condition]) -> Section:
    rows = tuple(
        (c.type, c.status, c.reason or "-", c.message or "-", c.last_transition_time or "-")
        for c in conditions
    )
    return Section("Conditions", ("TYPE", "STATUS", "REASON", "MESSAGE", "LAST TRANSITION"), rows)


def describe_binding(binding: ResourceBinding) -> Description:
    ref = binding.spec.resource
    annotations = binding.metadata.annotations
    placement = bound_placement(binding)
    rendered = set(applied_clusters(binding))
    claim = claimed_policy(binding)
    fields = (
        ("Name", binding.metadata.name),
        ("Namespace", ref.namespace or "<cluster-scoped>"),
        ("Kind", binding.kind),
        ("Resource", f"{placement.key} ({ref.api_version})"),
        ("Source", annotations.get("gitops-karmada.io/source", "-")),
        ("Policy", f"{claim[0]} {'/'.join(p for p in claim[1:] if p)}" if claim else "<none>"),
        ("Labels", _labels(binding.metadata.labels)),
        ("Replicas", str(binding.spec.replicas) if placement.has_replicas else "-"),
        ("Status", binding_status(binding).value),
        ("Last Scheduled", binding.status.last_scheduled_time or "-"),
        ("Ready", binding_ready(binding)),
        ("Health", health_word(cluster_health(binding))),
        (
            "Template Status",
            _compact(binding.status.template_status) if binding.status.template_status else "-",
        ),
    )
    rows = tuple(
        (
            cluster,
            str(count) if placement.has_replicas else "-",
            "yes" if cluster in rendered else "no",
        )
        for cluster, count in sorted(placement.replicas.items())
    )
    return Description(
        fields,
        (
            Section("Placement", ("CLUSTER", "REPLICAS", "RENDERED"), rows),
            _member_status_section(binding),
            conditions_section(binding.status.conditions),
        ),
    )


def _member_status_section(binding: ResourceBinding) -> Section:
    """What each observed cluster reported: whether it has the object, its health, its reflected status."""
    rows = tuple(
        (
            item.cluster_name,
            "yes" if item.applied else "no",
            item.health or "-",
            _compact(item.status) if item.status else (item.applied_message or "-"),
        )
        for item in binding.status.aggregated_status
    )
    return Section("Member Status", ("CLUSTER", "APPLIED", "HEALTH", "STATUS"), rows)


def _bindings_section(bindings: Sequence[ResourceBinding], cluster: str | None = None) -> Section:
    rows = []
    for binding in sorted(bindings, key=lambda b: str(bound_placement(b).key)):
        placement = bound_placement(binding)
        if cluster is not None:
            count = placement.replicas.get(cluster)
            if count is None:
                continue
            shown = str(count) if placement.has_replicas else "-"
        else:
            parts = (
                f"{c}={n}" if placement.has_replicas else c for c, n in sorted(placement.replicas.items())
            )
            shown = ",".join(parts) or "-"
        rows.append((str(placement.key), policy_label(binding) or "-", shown, binding_status(binding).value))
    return Section(
        "Bindings", ("RESOURCE", "POLICY", "REPLICAS" if cluster else "CLUSTERS", "STATUS"), tuple(rows)
    )


def describe_policy(
    policy: PropagationPolicy | ClusterPropagationPolicy, bindings: Sequence[ResourceBinding], source: str
) -> Description:
    spec = policy.spec
    claimed = [
        b
        for b in bindings
        if claimed_policy(b) == (policy.kind, policy.namespace, policy.name)
        or (policy.kind == "ClusterPropagationPolicy" and claimed_policy(b) == (policy.kind, "", policy.name))
    ]
    selectors = tuple(
        (
            s.api_version,
            s.kind,
            s.namespace or "-",
            s.name or "-",
            _selector_text(s.label_selector.to_api() if s.label_selector else None),
        )
        for s in spec.resource_selectors
    )
    fields = (
        ("Name", policy.name),
        ("Namespace", policy.namespace or "<cluster-scoped>"),
        ("Kind", policy.kind),
        ("Source", source),
        ("Labels", _labels(policy.metadata.labels)),
        ("Priority", str(spec.priority or 0)),
        ("Preemption", str(spec.preemption)),
        ("Conflict Resolution", str(spec.conflict_resolution or "Abort")),
        ("Placement", _compact(spec.placement.to_api())),
    )
    return Description(
        fields,
        (
            Section(
                "Resource Selectors",
                ("API VERSION", "KIND", "NAMESPACE", "NAME", "LABEL SELECTOR"),
                selectors,
            ),
            _bindings_section(claimed),
        ),
    )


def describe_cluster(cluster: Cluster, bindings: Sequence[ResourceBinding], source: str) -> Description:
    spec, status = cluster.spec, cluster.status
    summary = status.resource_summary
    fields = (
        ("Name", cluster.name),
        ("Source", source),
        ("Labels", _labels(cluster.labels)),
        ("Version", status.kubernetes_version or "-"),
        ("Sync Mode", spec.sync_mode),
        ("Provider", spec.provider or "-"),
        ("Region", spec.region or "-"),
        ("Zones", ",".join(spec.effective_zones()) or "-"),
        ("Taints", ",".join(f"{t.key}={t.value or ''}:{t.effect}" for t in spec.taints) or "<none>"),
        ("Status", cluster_status(cluster).value),
    )
    resources: list[tuple[str, str, str]] = []
    if summary is not None:
        for name in sorted(set(summary.allocatable) | set(summary.allocated)):
            resources.append(
                (name, str(summary.allocatable.get(name, "-")), str(summary.allocated.get(name, "-")))
            )
    return Description(
        fields,
        (
            Section("Resources", ("RESOURCE", "ALLOCATABLE", "ALLOCATED"), tuple(resources)),
            conditions_section(status.conditions),
            _bindings_section(bindings, cluster.name),
        ),
    )


def _selector_text(selector: Mapping[str, Any] | None) -> str:
    return "-" if selector is None else _compact(selector)


def _compact(value: Any) -> str:
    """A short one-line JSON form (``{"a":1}``) of a policy fragment."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
