"""Which placement inputs changed, and which templates and clusters each change touches.

Inputs compared: PropagationPolicies, ClusterPropagationPolicies, OverridePolicies, ClusterOverridePolicies,
FederatedResourceQuotas, ResourceInterpreterCustomizations, Clusters and the tool configuration. A change
touches the templates it selects at either side (by its resource selectors, or by the claim a binding
records) whose rendered output changes; a Cluster change touches the changed templates placed on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.diff.model import ChangeKind, InputChange
from gitops_karmada.core.selectors import ImplicitPriority, resource_match_selectors_priority

if TYPE_CHECKING:
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest

InputKey = tuple[str, str, str]
"""(kind, namespace, name)."""
Selects = Callable[[Any, "Manifest"], bool]

KIND_ORDER = (
    "PropagationPolicy",
    "ClusterPropagationPolicy",
    "OverridePolicy",
    "ClusterOverridePolicy",
    "FederatedResourceQuota",
    "ResourceInterpreterCustomization",
    "Cluster",
    "Config",
)
CONFIG_NAME = "gitops-karmada.yaml"


def _selects_by_resource_selectors(policy: Any, template: Manifest) -> bool:
    if policy.namespace and template.key.namespace != policy.namespace:
        return False  # namespaced policies only see their own namespace's templates
    selectors = policy.spec.resource_selectors
    if not selectors:
        return True  # an override policy without selectors applies to everything in its scope
    return resource_match_selectors_priority(template.body, selectors) is not ImplicitPriority.MISMATCH


def _selects_namespace(quota: Any, template: Manifest) -> bool:
    return bool(template.key.namespace == quota.namespace)


def _selects_target(customization: Any, template: Manifest) -> bool:
    target = customization.spec.target
    return bool(target.api_version == template.key.api_version and target.kind == template.key.kind)


def _objects(inputs: Inputs | None) -> dict[InputKey, tuple[Any, Selects | None]]:
    if inputs is None:
        return {}
    found: dict[InputKey, tuple[Any, Selects | None]] = {}
    groups: tuple[tuple[Iterable[Any], Selects | None], ...] = (
        (inputs.propagation_policies, _selects_by_resource_selectors),
        (inputs.cluster_propagation_policies, _selects_by_resource_selectors),
        (inputs.override_policies, _selects_by_resource_selectors),
        (inputs.cluster_override_policies, _selects_by_resource_selectors),
        (inputs.quotas, _selects_namespace),
        (inputs.customizations, _selects_target),
        (inputs.clusters, None),
    )
    for objects, selects in groups:
        for obj in objects:
            namespace = "" if obj.kind == "Cluster" else (obj.metadata.namespace or "")
            found[(obj.kind, namespace, obj.metadata.name)] = (obj, selects)
    return found


def input_changes(
    base: Inputs | None,
    head: Inputs | None,
    *,
    touched: Mapping[str, frozenset[str]],
    placed: Mapping[str, frozenset[str]],
    claims: Mapping[InputKey, frozenset[str]],
) -> tuple[InputChange, ...]:
    """The changed inputs with what they touch.

    ``touched``: template → clusters where its placement or manifests change; ``placed``: template →
    clusters it is placed on at either side; ``claims``: policy → templates whose binding claims it.
    """
    if base is None or head is None:
        return ()  # a side that does not load has no inputs to compare: its errors are the report
    old, new = _objects(base), _objects(head)
    changes: list[InputChange] = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (KIND_ORDER.index(k[0]), k[1], k[2])):
        before, after = old.get(key), new.get(key)
        if (
            before is not None
            and after is not None
            and (before[0] is after[0] or before[0].to_api() == after[0].to_api())
        ):
            continue
        kind, namespace, name = key
        if kind == "Cluster":
            templates = sorted(
                t for t, clusters in touched.items() if name in clusters or name in placed.get(t, ())
            )
        else:
            selected = set(claims.get(key, frozenset()))
            for side, entry in ((base, before), (head, after)):
                if entry is None:
                    continue
                obj, selects = entry
                assert selects is not None
                selected.update(
                    str(t.key) for t in side.templates if str(t.key) in touched and selects(obj, t)
                )
            templates = sorted(selected & touched.keys())
        changes.append(_change(kind, namespace, name, before is None, after is None, templates, touched))
    if base.config.to_api() != head.config.to_api():
        changes.append(_change("Config", "", CONFIG_NAME, False, False, sorted(touched), touched))
    return tuple(changes)


def _change(
    kind: str,
    namespace: str,
    name: str,
    added: bool,
    removed: bool,
    templates: list[str],
    touched: Mapping[str, frozenset[str]],
) -> InputChange:
    clusters = sorted({cluster for template in templates for cluster in touched[template]})
    return InputChange(
        kind=kind,
        namespace=namespace,
        name=name,
        change=ChangeKind.ADDED if added else ChangeKind.REMOVED if removed else ChangeKind.MODIFIED,
        templates=tuple(templates),
        clusters=tuple(clusters),
    )
