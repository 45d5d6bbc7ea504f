"""Selector semantics shared by matching, scheduling and overriding (``pkg/util/selector.go``).

* label selectors with Kubernetes semantics (``matchLabels`` + In/NotIn/Exists/DoesNotExist);
* ``resource_selector_priority``: Karmada's implicit priority of a ResourceSelector for a template;
* ``cluster_matches``: ClusterAffinity against a Cluster (exclude, labels, provider/region/zone, names).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gitops_karmada.model.base import LabelSelector, SelectorOperator
from gitops_karmada.model.versions import KarmadaVersion

if TYPE_CHECKING:
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.policies import ClusterAffinity, FieldSelectorRequirement, ResourceSelector


class ImplicitPriority(enum.IntEnum):
    """How precisely a selector matched (``pkg/apis/policy/v1alpha1`` ImplicitPriority)."""

    MISMATCH = 0
    MATCH_ALL = 1
    MATCH_LABEL_SELECTOR = 2
    MATCH_NAME = 3


def labels_match(selector: LabelSelector, labels: Mapping[str, str]) -> bool:
    """Kubernetes label-selector semantics; an empty selector matches everything, an invalid one nothing."""
    if selector.problem is not None:
        return False
    for key, value in selector.match_labels.items():
        if labels.get(key) != value:
            return False
    for requirement in selector.match_expressions:
        present = requirement.key in labels
        match requirement.operator:
            case SelectorOperator.IN:
                ok = present and labels[requirement.key] in requirement.values
            case SelectorOperator.NOT_IN:
                ok = not present or labels[requirement.key] not in requirement.values
            case SelectorOperator.EXISTS:
                ok = present
            case SelectorOperator.DOES_NOT_EXIST:
                ok = not present
            case _:  # unreachable: ``problem`` names any other operator
                return False
        if not ok:
            return False
    return True


def _metadata(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = resource.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def resource_selector_priority(resource: Mapping[str, Any], selector: ResourceSelector) -> ImplicitPriority:
    """The implicit priority with which ``selector`` selects ``resource`` (MISMATCH if it does not)."""
    if resource.get("apiVersion") != selector.api_version or resource.get("kind") != selector.kind:
        return ImplicitPriority.MISMATCH
    meta = _metadata(resource)
    if selector.namespace and selector.namespace != (meta.get("namespace") or ""):
        return ImplicitPriority.MISMATCH
    if selector.name:
        # a name wins outright: the label selector is ignored even when it would not match
        return ImplicitPriority.MATCH_NAME if selector.name == meta.get("name") else ImplicitPriority.MISMATCH
    if selector.label_selector is None:
        return ImplicitPriority.MATCH_ALL
    labels = meta.get("labels")
    if labels_match(selector.label_selector, labels if isinstance(labels, Mapping) else {}):
        return ImplicitPriority.MATCH_LABEL_SELECTOR
    return ImplicitPriority.MISMATCH


def resource_match_selectors_priority(
    resource: Mapping[str, Any], selectors: Iterable[ResourceSelector]
) -> ImplicitPriority:
    """The highest implicit priority over ``selectors`` (MISMATCH for none)."""
    return max(
        (resource_selector_priority(resource, s) for s in selectors), default=ImplicitPriority.MISMATCH
    )


class ZoneMatching(enum.Enum):
    """How ``In`` matches a cluster in several zones (``matchZones``, v1.18.0, not back-ported)."""

    ANY = "any"
    """v1.18+: at least one of its zones is listed."""
    ALL = "all"
    """v1.12-v1.17: every one of its zones is listed."""

    @classmethod
    def of(cls, version: KarmadaVersion) -> ZoneMatching:
        return cls.ANY if version.at_least(KarmadaVersion.V1_18) else cls.ALL


def match_zones(
    requirement: FieldSelectorRequirement, zones: Sequence[str], matching: ZoneMatching = ZoneMatching.ANY
) -> bool:
    """A ``zone`` field-selector expression against a cluster's zones (``matchZones``): ``In`` needs zones
    and, by ``matching``, any or all of them listed; NotIn: none listed; Exists/DoesNotExist: zones or not."""
    match requirement.operator:
        case "In":
            if matching is ZoneMatching.ALL:
                return bool(zones) and all(zone in requirement.values for zone in zones)
            return bool(zones) and any(zone in requirement.values for zone in zones)
        case "NotIn":
            return not any(zone in requirement.values for zone in zones)
        case "Exists":
            return bool(zones)
        case "DoesNotExist":
            return not zones
    return False


def _field_requirement_matches(requirement: FieldSelectorRequirement, fields: Mapping[str, str]) -> bool:
    present = requirement.key in fields
    match requirement.operator:
        case "In":
            return present and fields[requirement.key] in requirement.values
        case "NotIn":
            return not present or fields[requirement.key] not in requirement.values
        case "Exists":
            return present
        case "DoesNotExist":
            return not present
    return False


def cluster_matches(
    cluster: Cluster, affinity: ClusterAffinity, zones: ZoneMatching = ZoneMatching.ANY
) -> bool:
    """Whether ``cluster`` satisfies ``affinity``; all parts are AND-ed (``ClusterMatches``); ``zones``: how
    ``zone In`` treats a cluster in several zones (the Karmada version followed)."""
    if cluster.name in affinity.exclude:
        return False
    if affinity.label_selector is not None and not labels_match(affinity.label_selector, cluster.labels):
        return False
    if affinity.field_selector is not None:
        fields = {
            k: v for k, v in (("provider", cluster.spec.provider), ("region", cluster.spec.region)) if v
        }
        for requirement in affinity.field_selector.match_expressions:
            if requirement.key == "zone":
                if not match_zones(requirement, cluster.spec.effective_zones(), zones):
                    return False
            elif not _field_requirement_matches(requirement, fields):
                return False
    return not affinity.cluster_names or cluster.name in affinity.cluster_names
