"""Karmada's validating webhook (``pkg/util/validation``) for the rules that need more than one field, the
policy's namespace or the Karmada version followed: every error is collected (as upstream), each a
``FieldError`` at Karmada's field path with Karmada's wording. The loader reports them as input errors naming
the file, the document and the field, in ``validate`` and ``reconcile`` alike; the pydantic models keep the
rules of a single field.

Version boundaries (karmada-1.17-1.19.md §1.2, §2.2, §7): workloadAffinity exists from v1.17, its keys
checked; a selector's namespace must be the policy's from v1.17; overflowAffinities exist from v1.18, with
their rules; ``Lt``/``Gt`` tolerations and a fieldOverrider with neither json nor yaml are rejected from
v1.18. A field a version does not have is rejected as its API server would reject an unknown field.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.model.base import TolerationOperator, qualified_name_problem
from gitops_karmada.model.policies import ReplicaDivisionPreference, ReplicaSchedulingType
from gitops_karmada.model.versions import KarmadaVersion

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.model.base import Toleration
    from gitops_karmada.model.overrides import OverrideSpec
    from gitops_karmada.model.policies import (
        ClusterAffinity,
        ClusterAffinityTerm,
        Placement,
        PropagationSpec,
        ReplicaSchedulingStrategy,
        ResourceSelector,
        WorkloadAffinity,
    )


class ErrorType(enum.StrEnum):
    INVALID = "Invalid value"
    REQUIRED = "Required value"
    UNSUPPORTED = "Unsupported value"
    FORBIDDEN = "Forbidden"


@dataclass(frozen=True, slots=True)
class FieldError:
    """``field.Error``: ``str()`` is Karmada's text (``<path>: <type>: <value>: <detail>``)."""

    path: str
    type: ErrorType
    detail: str
    value: Any = None

    @property
    def message(self) -> str:
        """The text after the path."""
        if self.type is ErrorType.INVALID:
            return f"{self.type}: {_shown(self.value)}: {self.detail}"
        if self.type is ErrorType.UNSUPPORTED:
            return f"{self.type}: {_shown(self.value)}: {self.detail}"
        return f"{self.type}: {self.detail}"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _shown(value: Any) -> str:
    """A value as Go's field errors print it: strings quoted, objects as JSON."""
    if hasattr(value, "to_api"):
        value = value.to_api()
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _unknown_before(since: KarmadaVersion, version: KarmadaVersion, path: str) -> FieldError:
    return FieldError(
        path,
        ErrorType.FORBIDDEN,
        f"unknown field in Karmada {version.value}: added in {since.value} "
        f"(follow a newer Karmada with karmadaVersion in gitops-karmada.yaml)",
    )


def _label_key(key: str, path: str) -> list[FieldError]:
    problem = qualified_name_problem(key)
    return [FieldError(path, ErrorType.INVALID, problem, key)] if problem else []


# -- placement -----------------------------------------------------------------------------------------------


def validate_workload_affinity(affinity: WorkloadAffinity | None, path: str) -> list[FieldError]:
    """``ValidateWorkloadAffinity`` (v1.17): both group keys are label keys, and not the same key."""
    if affinity is None:
        return []
    errors: list[FieldError] = []
    if affinity.affinity is not None:
        errors += _label_key(affinity.affinity.group_by_label_key, f"{path}.affinity.groupByLabelKey")
    if affinity.anti_affinity is not None:
        errors += _label_key(
            affinity.anti_affinity.group_by_label_key, f"{path}.antiAffinity.groupByLabelKey"
        )
    if (
        affinity.affinity is not None
        and affinity.anti_affinity is not None
        and affinity.affinity.group_by_label_key == affinity.anti_affinity.group_by_label_key
    ):
        errors.append(
            FieldError(
                path,
                ErrorType.INVALID,
                "affinity and antiAffinity must not use the same groupByLabelKey",
                affinity,
            )
        )
    return errors


def validate_cluster_tolerations(
    tolerations: Sequence[Toleration], path: str, version: KarmadaVersion
) -> list[FieldError]:
    """``validateClusterTolerations`` (v1.18): ``Lt``/``Gt`` are not supported (they never tolerate)."""
    if not version.at_least(KarmadaVersion.V1_18):
        return []
    return [
        FieldError(
            f"{path}[{i}].operator",
            ErrorType.UNSUPPORTED,
            'supported values: "", "Exists", "Equal"',
            toleration.operator.value,
        )
        for i, toleration in enumerate(tolerations)
        if toleration.operator in (TolerationOperator.LESS_THAN, TolerationOperator.GREATER_THAN)
    ]


def is_overflow_scheduling_allowed(strategy: ReplicaSchedulingStrategy | None) -> bool:
    """``IsOverflowSchedulingAllowed``: Divided, and Aggregated or Weighted by a dynamic weight."""
    if strategy is None or strategy.replica_scheduling_type is not ReplicaSchedulingType.DIVIDED:
        return False
    preference = strategy.replica_division_preference
    if preference is ReplicaDivisionPreference.AGGREGATED:
        return True
    weights = strategy.weight_preference
    return (
        preference is ReplicaDivisionPreference.WEIGHTED
        and weights is not None
        and weights.dynamic_weight is not None
    )


def _empty(affinity: ClusterAffinity) -> bool:
    return (
        affinity.label_selector is None
        and affinity.field_selector is None
        and not affinity.cluster_names
        and not affinity.exclude
    )


def validate_overflow_affinities(term: ClusterAffinityTerm, path: str) -> list[FieldError]:
    """``ValidateOverflowAffinities`` (v1.18) for the term at ``path``: overflow tiers need the term's inline
    affinity (the primary tier); each tier's name is a label key, unique within the term."""
    overflow = term.overflow_affinities
    if overflow is None:
        return []
    errors: list[FieldError] = []
    if _empty(term):
        errors.append(
            FieldError(
                f"{path}.overflowAffinities",
                ErrorType.INVALID,
                "overflowAffinities can only be used together with the inline ClusterAffinity",
                [o.to_api() for o in overflow],
            )
        )
    names = {term.affinity_name}
    for k, tier in enumerate(overflow):
        where = f"{path}.overflowAffinities[{k}].affinityName"
        errors += _label_key(tier.affinity_name, where)
        if tier.affinity_name in names:
            errors.append(
                FieldError(
                    where,
                    ErrorType.INVALID,
                    "overflow affinity name must be unique and must not duplicate the primary group's "
                    "affinityName",
                    tier.affinity_name,
                )
            )
        names.add(tier.affinity_name)
    return errors


def validate_placement(placement: Placement, path: str, version: KarmadaVersion) -> list[FieldError]:
    """The placement rules of ``ValidatePlacement`` that span fields or versions (the single-field ones are
    the model's)."""
    errors: list[FieldError] = []
    overflow_allowed = is_overflow_scheduling_allowed(placement.replica_scheduling)
    for i, term in enumerate(placement.cluster_affinities):
        where = f"{path}.clusterAffinities[{i}]"
        errors += _label_key(term.affinity_name, f"{where}.affinityName")
        if term.overflow_affinities is None:
            continue
        if not version.at_least(KarmadaVersion.V1_18):
            errors.append(_unknown_before(KarmadaVersion.V1_18, version, f"{where}.overflowAffinities"))
            continue
        if not overflow_allowed:
            errors.append(
                FieldError(
                    f"{where}.overflowAffinities",
                    ErrorType.INVALID,
                    "overflowAffinities can only be used together with dynamic weight or aggregated "
                    "scheduling",
                    [o.to_api() for o in term.overflow_affinities],
                )
            )
        errors += validate_overflow_affinities(term, where)
    errors += validate_cluster_tolerations(
        placement.cluster_tolerations, f"{path}.clusterTolerations", version
    )
    if placement.workload_affinity is not None:
        if version.at_least(KarmadaVersion.V1_17):
            errors += validate_workload_affinity(placement.workload_affinity, f"{path}.workloadAffinity")
        else:
            errors.append(_unknown_before(KarmadaVersion.V1_17, version, f"{path}.workloadAffinity"))
    return errors


# -- policies ------------------------------------------------------------------------------------------------


def validate_resource_selectors(
    selectors: Sequence[ResourceSelector], policy_namespace: str, path: str, version: KarmadaVersion
) -> list[FieldError]:
    """``validateResourceSelectors`` (v1.17): a namespaced policy's selectors name its own namespace (an
    empty one is defaulted to it first, by the mutating webhook); cluster-scoped policies pass ""."""
    if not policy_namespace or not version.at_least(KarmadaVersion.V1_17):
        return []
    return [
        FieldError(
            f"{path}[{i}].namespace",
            ErrorType.INVALID,
            "namespace of resource selector must be the same as the namespace of the policy",
            selector.namespace,
        )
        for i, selector in enumerate(selectors)
        if selector.namespace and selector.namespace != policy_namespace
    ]


def validate_propagation_spec(
    spec: PropagationSpec, policy_namespace: str, version: KarmadaVersion
) -> list[FieldError]:
    """``ValidatePropagationSpec(spec, namespace)``: ``policy_namespace`` is "" for a
    ClusterPropagationPolicy."""
    return [
        *validate_resource_selectors(
            spec.resource_selectors, policy_namespace, "spec.resourceSelectors", version
        ),
        *validate_placement(spec.placement, "spec.placement", version),
    ]


def validate_override_spec(
    spec: OverrideSpec, policy_namespace: str, version: KarmadaVersion
) -> list[FieldError]:
    """``ValidateOverrideSpec(spec, namespace)``: selectors, and (v1.18) a fieldOverrider of
    ``overrideRules`` must set json or yaml (the deprecated top-level ``overriders`` are not checked)."""
    errors = validate_resource_selectors(
        spec.resource_selectors, policy_namespace, "spec.resourceSelectors", version
    )
    if version.at_least(KarmadaVersion.V1_18):
        for r, rule in enumerate(spec.override_rules):
            for f, overrider in enumerate(rule.overriders.field_overrider):
                if not overrider.json_ and not overrider.yaml:
                    errors.append(
                        FieldError(
                            f"spec.overrideRules[{r}].overriders.fieldOverrider[{f}]",
                            ErrorType.REQUIRED,
                            "FieldOverrider must have either JSON or YAML set",
                        )
                    )
    return errors
