"""Which override rules apply to a template on a cluster, in Karmada's order.

Follows ``getOverridersFromOverridePolicies`` (``pkg/util/overridemanager/overridemanager.go``).

Per set (ClusterOverridePolicies; then the OverridePolicies of the template's namespace, namespaced
templates only): keep policies with no resourceSelectors (they match everything, counted as MatchAll) or
with a matching selector; order them by implicit priority ascending, then name, so the most specific one
applies last and wins. Each policy contributes, in rule order, every rule whose targetCluster is unset or
matches the cluster; with no overrideRules the deprecated ``targetCluster``/``overriders`` pair is one rule
(even an empty one: Karmada still records the policy as applied). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.overrides.provenance import PolicyKind, PolicyRef
from gitops_karmada.core.selectors import (
    ImplicitPriority,
    ZoneMatching,
    cluster_matches,
    resource_match_selectors_priority,
)
from gitops_karmada.model.overrides import (
    AnyOverridePolicy,
    ClusterOverridePolicy,
    OverridePolicy,
    Overriders,
)

if TYPE_CHECKING:
    from gitops_karmada.model.clusters import Cluster

__all__ = [
    "MatchedOverriders",
    "Rankings",
    "cluster_overriders",
    "namespace_of",
    "namespaced_overriders",
    "policy_priority",
    "policy_ref",
    "select_overriders",
    "unused_override_policies",
]  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchedOverriders:
    """One rule of one policy that applies: its overriders, where they come from and why it sorted there."""

    policy: AnyOverridePolicy
    rule_index: int
    overriders: Overriders
    implicit_priority: ImplicitPriority
    from_deprecated_fields: bool = False

    @property
    def policy_ref(self) -> PolicyRef:
        return policy_ref(self.policy)


def policy_ref(policy: AnyOverridePolicy) -> PolicyRef:
    kind = (
        PolicyKind.CLUSTER_OVERRIDE_POLICY
        if isinstance(policy, ClusterOverridePolicy)
        else PolicyKind.OVERRIDE_POLICY
    )
    return PolicyRef(kind=kind, namespace=policy.namespace, name=policy.name)


def namespace_of(obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    return namespace if isinstance(namespace, str) else ""


def policy_priority(obj: Mapping[str, Any], policy: AnyOverridePolicy) -> ImplicitPriority:
    """How specifically ``policy`` selects ``obj``; no resourceSelectors counts as MatchAll."""
    selectors = policy.spec.resource_selectors
    if not selectors:
        return ImplicitPriority.MATCH_ALL
    return resource_match_selectors_priority(obj, selectors)


Ranking = tuple[tuple[ImplicitPriority, AnyOverridePolicy], ...]
"""The policies that select an object, in application order, with how specifically each does."""

Rankings = dict[tuple[object, ...], Ranking]
"""Rankings already made for one template and one run's policies, by what the selectors read of the object
(``_ranking_key``): a template rendered for fifty clusters is ranked once, not fifty times."""


def _ranking_key(obj: Mapping[str, Any], stage: str) -> tuple[object, ...] | None:
    """Everything ``policy_priority`` reads of ``obj``; None when its labels cannot be a key."""
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    labels = metadata.get("labels")
    try:  # labels are read as a set (their order selects nothing); odd values may not be hashable
        items = frozenset(labels.items()) if isinstance(labels, Mapping) else labels
        key = (
            stage,
            obj.get("apiVersion"),
            obj.get("kind"),
            metadata.get("namespace"),
            metadata.get("name"),
            items,
        )
        hash(key)
    except TypeError:
        return None
    return key


def _ranking(
    obj: Mapping[str, Any], policies: Sequence[AnyOverridePolicy], rankings: Rankings | None, stage: str
) -> Ranking:
    key = _ranking_key(obj, stage) if rankings is not None else None
    if key is not None and rankings is not None and key in rankings:
        return rankings[key]
    ranked = [(policy_priority(obj, policy), policy) for policy in policies]
    ranking = tuple(
        sorted(
            ((priority, policy) for priority, policy in ranked if priority is not ImplicitPriority.MISMATCH),
            key=lambda item: (item[0], item[1].name),
        )
    )
    if key is not None and rankings is not None:
        rankings[key] = ranking
    return ranking


def _ordered_overriders(
    obj: Mapping[str, Any],
    cluster: Cluster,
    policies: Sequence[AnyOverridePolicy],
    rankings: Rankings | None = None,
    stage: str = "",
    zones: ZoneMatching = ZoneMatching.ANY,
) -> tuple[MatchedOverriders, ...]:
    matching = _ranking(obj, policies, rankings, stage)
    blocks = []
    for priority, policy in matching:
        spec = policy.spec
        if spec.override_rules:
            rules = [
                (index, rule.target_cluster, rule.overriders)
                for index, rule in enumerate(spec.override_rules)
            ]
        else:
            rules = [(0, spec.target_cluster, spec.overriders or Overriders())]
        for index, target, overriders in rules:
            if target is None or cluster_matches(cluster, target, zones):
                blocks.append(
                    MatchedOverriders(
                        policy=policy,
                        rule_index=index,
                        overriders=overriders,
                        implicit_priority=priority,
                        from_deprecated_fields=not spec.override_rules,
                    )
                )
    return tuple(blocks)


def cluster_overriders(
    obj: Mapping[str, Any],
    cluster: Cluster,
    cluster_override_policies: Sequence[ClusterOverridePolicy],
    rankings: Rankings | None = None,
    zones: ZoneMatching = ZoneMatching.ANY,
) -> tuple[MatchedOverriders, ...]:
    """The ClusterOverridePolicy rules for ``obj`` on ``cluster``, in application order (``rankings``:
    those made for the same template and policies, see ``Rankings``; ``zones``: how a rule's ``zone In``
    matches a multi-zone cluster)."""
    return _ordered_overriders(obj, cluster, cluster_override_policies, rankings, "cluster", zones)


def namespaced_overriders(
    obj: Mapping[str, Any],
    cluster: Cluster,
    override_policies: Sequence[OverridePolicy],
    rankings: Rankings | None = None,
    zones: ZoneMatching = ZoneMatching.ANY,
) -> tuple[MatchedOverriders, ...]:
    """The rules of the OverridePolicies in ``obj``'s namespace (none for cluster-scoped objects)."""
    namespace = namespace_of(obj)
    if not namespace:
        return ()
    mine = [p for p in override_policies if p.namespace == namespace]
    return _ordered_overriders(obj, cluster, mine, rankings, "namespaced", zones)


def select_overriders(
    obj: Mapping[str, Any],
    cluster: Cluster,
    cluster_override_policies: Sequence[ClusterOverridePolicy],
    override_policies: Sequence[OverridePolicy],
    zones: ZoneMatching = ZoneMatching.ANY,
) -> tuple[MatchedOverriders, ...]:
    """All rules that apply to ``obj`` on ``cluster``: ClusterOverridePolicies first, then OverridePolicies.

    Evaluated on ``obj`` as given. ``apply_overrides`` matches the OverridePolicies against the object as
    the ClusterOverridePolicies left it, as Karmada does (a label a COP adds can select an OP).
    """
    return cluster_overriders(obj, cluster, cluster_override_policies, zones=zones) + namespaced_overriders(
        obj, cluster, override_policies, zones=zones
    )


def unused_override_policies(
    templates: Sequence[Mapping[str, Any]],
    cluster_override_policies: Sequence[ClusterOverridePolicy],
    override_policies: Sequence[OverridePolicy],
) -> tuple[str, ...]:
    """A warning per policy whose resourceSelectors select no template (policies without selectors never).

    An OverridePolicy only ever applies to templates of its own namespace, so only those are considered.
    """
    warnings = []
    for policy in sorted(cluster_override_policies, key=lambda p: p.name):
        selectors = policy.spec.resource_selectors
        if selectors and not any(
            resource_match_selectors_priority(t, selectors) is not ImplicitPriority.MISMATCH
            for t in templates
        ):
            warnings.append(f"{policy_ref(policy)}: resourceSelectors match no resource template")
    for namespaced in sorted(override_policies, key=lambda p: (p.namespace, p.name)):
        selectors = namespaced.spec.resource_selectors
        if selectors and not any(
            namespace_of(t) == namespaced.namespace
            and resource_match_selectors_priority(t, selectors) is not ImplicitPriority.MISMATCH
            for t in templates
        ):
            where = f"in namespace {namespaced.namespace}"
            warnings.append(f"{policy_ref(namespaced)}: resourceSelectors match no resource template {where}")
    return tuple(warnings)
