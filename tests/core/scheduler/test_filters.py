"""The filter plugins: toleration matching, implicit taints, affinity, spread, API, eviction, FitError."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.cluster_index import ClusterFacts, effective_taints, implicit_taints
from gitops_karmada.core.scheduler.filters import (
    API_REASON,
    EVICTION_REASON,
    NO_OVERFLOW,
    AffinityInForce,
    FilterInput,
    FilterPlugin,
    FilterVerdict,
    affinity_in_force,
    api_enablement_reason,
    cluster_affinity_reason,
    cluster_eviction_reason,
    fit_error_message,
    overflow_order,
    run_filters,
    spread_constraint_reason,
    taint_to_string,
    taint_toleration_reason,
    tolerates,
)
from gitops_karmada.model.base import Taint, Toleration
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.policies import ClusterAffinity, Placement, SpreadConstraint
from tests.core.scheduler.builders import cluster

TOLERATION_TABLE = [
    # toleration, taint, tolerated
    ({"operator": "Exists"}, {"key": "k", "value": "v", "effect": "NoExecute"}, True),
    ({"key": "k", "operator": "Exists"}, {"key": "k", "value": "v", "effect": "NoSchedule"}, True),
    ({"key": "k", "operator": "Exists"}, {"key": "other", "value": "v", "effect": "NoSchedule"}, False),
    (
        {"key": "k", "operator": "Equal", "value": "v"},
        {"key": "k", "value": "v", "effect": "NoSchedule"},
        True,
    ),
    (
        {"key": "k", "operator": "Equal", "value": "v"},
        {"key": "k", "value": "w", "effect": "NoSchedule"},
        False,
    ),
    ({"key": "k", "value": "v"}, {"key": "k", "value": "v", "effect": "NoExecute"}, True),
    ({"key": "k"}, {"key": "k", "effect": "NoSchedule"}, True),
    ({"key": "k"}, {"key": "k", "value": "v", "effect": "NoSchedule"}, False),
    (
        {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
        {"key": "k", "value": "v", "effect": "NoExecute"},
        False,
    ),
    ({"key": "k", "operator": "Exists", "effect": "NoExecute"}, {"key": "k", "effect": "NoExecute"}, True),
    (
        {"operator": "Exists", "effect": "NoSchedule"},
        {"key": "any", "value": "x", "effect": "NoSchedule"},
        True,
    ),
    (
        {"operator": "Exists", "effect": "NoSchedule"},
        {"key": "any", "value": "x", "effect": "NoExecute"},
        False,
    ),
    # Karmada's artifacts/example/propagationpolicy_taintToleration.yaml: no key, no operator
    ({"effect": "NoSchedule"}, {"key": "any", "effect": "NoSchedule"}, True),
    ({"effect": "NoSchedule"}, {"key": "any", "value": "x", "effect": "NoSchedule"}, False),
]
TOLERATION_IDS = [
    "empty-key-exists-tolerates-all",
    "key-exists",
    "key-exists-other-key",
    "equal-same-value",
    "equal-other-value",
    "empty-operator-means-equal",
    "empty-operator-empty-value",
    "empty-operator-value-differs",
    "effect-mismatch",
    "exists-with-effect",
    "empty-key-exists-one-effect",
    "empty-key-exists-other-effect",
    "keyless-equal-matches-any-key-with-empty-value",
    "keyless-equal-needs-the-same-value",
]


@pytest.mark.parametrize(("toleration", "taint", "tolerated"), TOLERATION_TABLE, ids=TOLERATION_IDS)
def test_toleration_matching(toleration: dict[str, Any], taint: dict[str, Any], tolerated: bool) -> None:
    assert tolerates(Toleration.model_validate(toleration), Taint.model_validate(taint)) is tolerated


@pytest.mark.parametrize(
    ("taint", "text"),
    [
        ({"key": "k", "value": "v", "effect": "NoSchedule"}, "k=v:NoSchedule"),
        ({"key": "k", "effect": "NoExecute"}, "k:NoExecute"),
    ],
    ids=["with-value", "without-value"],
)
def test_taint_to_string(taint: dict[str, Any], text: str) -> None:
    assert taint_to_string(Taint.model_validate(taint)) == text


def _facts(**kwargs: Any) -> ClusterFacts:
    return ClusterFacts.of(cluster("member1", **kwargs))


TAINT_FILTER_TABLE = [
    ([{"key": "a", "effect": "PreferNoSchedule"}], [], False, ""),
    (
        [{"key": "a", "value": "1", "effect": "NoSchedule"}],
        [],
        False,
        "cluster(s) had untolerated taint {a=1:NoSchedule}",
    ),
    ([{"key": "a", "effect": "NoExecute"}], [], False, "cluster(s) had untolerated taint {a:NoExecute}"),
    ([{"key": "a", "effect": "NoExecute"}], [], True, ""),
    (
        [{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "NoSchedule"}],
        [{"key": "a", "operator": "Exists"}],
        False,
        "cluster(s) had untolerated taint {b:NoSchedule}",
    ),
    (
        [{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "NoSchedule"}],
        [],
        False,
        "cluster(s) had untolerated taint {a:NoSchedule}",
    ),
]


@pytest.mark.parametrize(
    ("taints", "tolerations", "scheduled", "reason"),
    TAINT_FILTER_TABLE,
    ids=[
        "prefer-no-schedule-ignored",
        "no-schedule-rejects",
        "no-execute-rejects",
        "already-scheduled-passes",
        "first-untolerated-reported",
        "first-of-several",
    ],
)
def test_taint_toleration_filter(
    taints: list[dict[str, Any]], tolerations: list[dict[str, Any]], scheduled: bool, reason: str
) -> None:
    facts = _facts(taints=taints)
    given = [Toleration.model_validate(t) for t in tolerations]
    assert taint_toleration_reason(facts.scheduling_taints, given, scheduled) == reason


def _with_ready(status: str | None, taints: list[dict[str, Any]] | None = None) -> Cluster:
    conditions = [] if status is None else [{"type": "Ready", "status": status}]
    return cluster("member1", taints=taints, status={"conditions": conditions})


@pytest.mark.parametrize(
    ("ready", "taints", "implicit"),
    [
        ("True", None, []),
        (None, None, []),
        ("False", None, ["cluster.karmada.io/not-ready:NoSchedule"]),
        ("Unknown", None, ["cluster.karmada.io/unreachable:NoSchedule"]),
        ("False", [{"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}], []),
        (
            "False",
            [{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}],
            ["cluster.karmada.io/not-ready:NoSchedule"],
        ),
    ],
    ids=["ready", "no-condition", "not-ready", "unknown", "already-tainted", "same-key-other-effect"],
)
def test_implicit_controller_taints(
    ready: str | None, taints: list[dict[str, Any]] | None, implicit: list[str]
) -> None:
    subject = _with_ready(ready, taints)
    assert [taint_to_string(t) for t in implicit_taints(subject)] == implicit
    assert len(effective_taints(subject)) == len(taints or []) + len(implicit)


def test_a_not_ready_cluster_is_rejected_unless_the_taint_is_tolerated() -> None:
    facts = ClusterFacts.of(_with_ready("False"))
    reason = taint_toleration_reason(facts.scheduling_taints, [], already_scheduled=False)
    assert reason == "cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}"
    toleration = Toleration.model_validate({"key": "cluster.karmada.io/not-ready", "operator": "Exists"})
    assert taint_toleration_reason(facts.scheduling_taints, [toleration], already_scheduled=False) == ""


@pytest.mark.parametrize(
    ("enablements", "scheduled", "reason"),
    [
        (None, False, ""),
        (
            [{"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}],
            False,
            "",
        ),
        (
            [{"groupVersion": "apps/v1", "resources": [{"name": "statefulsets", "kind": "StatefulSet"}]}],
            False,
            API_REASON,
        ),
        (
            [{"groupVersion": "apps/v1beta1", "resources": [{"name": "deployments", "kind": "Deployment"}]}],
            False,
            API_REASON,
        ),
        ([], False, API_REASON),
        ([], True, ""),
    ],
    ids=["absent-passes", "listed", "kind-missing", "version-differs", "empty-list", "already-scheduled"],
)
def test_api_enablement(enablements: list[dict[str, Any]] | None, scheduled: bool, reason: str) -> None:
    status: dict[str, Any] = {} if enablements is None else {"apiEnablements": enablements}
    facts = ClusterFacts.of(cluster("member1", status=status))
    assert api_enablement_reason(facts, "apps/v1", "Deployment", scheduled) == reason


FIELD_TABLE = [
    ({"key": "provider", "operator": "In", "values": ["aws"]}, {"provider": "aws"}, True),
    ({"key": "provider", "operator": "In", "values": ["aws"]}, {}, False),
    ({"key": "provider", "operator": "NotIn", "values": ["aws"]}, {}, True),
    ({"key": "provider", "operator": "NotIn", "values": ["aws"]}, {"provider": "aws"}, False),
    ({"key": "region", "operator": "In", "values": ["eu", "us"]}, {"region": "us"}, True),
    ({"key": "region", "operator": "NotIn", "values": ["eu"]}, {"region": "us"}, True),
    ({"key": "zone", "operator": "In", "values": ["z1"]}, {"zones": ["z2", "z1"]}, True),
    ({"key": "zone", "operator": "In", "values": ["z1"]}, {}, False),
    ({"key": "zone", "operator": "NotIn", "values": ["z1"]}, {}, True),
    ({"key": "zone", "operator": "NotIn", "values": ["z1"]}, {"zones": ["z2", "z1"]}, False),
]


@pytest.mark.parametrize(
    ("expression", "fields", "matches"),
    FIELD_TABLE,
    ids=[
        "provider-in",
        "provider-in-absent",
        "provider-notin-absent",
        "provider-notin-present",
        "region-in",
        "region-notin",
        "zone-in-any",
        "zone-in-no-zones",
        "zone-notin-no-zones",
        "zone-notin-one-listed",
    ],
)
def test_field_selector_operators(expression: dict[str, Any], fields: dict[str, Any], matches: bool) -> None:
    affinity = ClusterAffinity.model_validate({"fieldSelector": {"matchExpressions": [expression]}})
    subject = cluster("member1", **fields)
    assert (cluster_affinity_reason(subject, AffinityInForce(primary=affinity)) == "") is matches


def test_deprecated_single_zone_counts_as_zones() -> None:
    subject = Cluster.model_validate(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "m"},
            "spec": {"zone": "z1"},
        }
    )
    affinity = ClusterAffinity.model_validate(
        {"fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}}
    )
    assert cluster_affinity_reason(subject, AffinityInForce(primary=affinity)) == ""
    assert (
        spread_constraint_reason(ClusterFacts.of(subject), [SpreadConstraint(spread_by_field="zone")]) == ""
    )


TERMS = {
    "clusterAffinities": [
        {
            "affinityName": "primary",
            "clusterNames": ["a"],
            "overflowAffinities": [
                {"affinityName": "burst", "clusterNames": ["b"]},
                {"affinityName": "last", "clusterNames": ["b", "c"]},
            ],
        },
        {"affinityName": "backup", "clusterNames": ["d"]},
    ]
}


@pytest.mark.parametrize(
    ("placement", "observed", "workload", "name", "fits", "order"),
    [
        ({"clusterAffinity": {"clusterNames": ["a"]}}, "", True, "a", True, 0),
        ({"clusterAffinity": {"clusterNames": ["a"]}}, "", True, "b", False, 0),
        ({"clusterAffinity": {"exclude": ["a"]}}, "", True, "a", False, 0),
        ({}, "", True, "a", True, 0),
        (TERMS, "primary", True, "a", True, 0),
        (TERMS, "primary", True, "b", True, 1),
        (TERMS, "primary", True, "c", True, 2),
        (TERMS, "primary", True, "d", False, NO_OVERFLOW),
        (TERMS, "primary", False, "b", False, 0),
        (TERMS, "backup", True, "d", True, 0),
        (TERMS, "backup", True, "a", False, 0),
        (TERMS, "unknown", True, "z", True, 0),
    ],
    ids=[
        "affinity-match",
        "affinity-miss",
        "excluded",
        "no-affinity",
        "term-primary",
        "overflow-first",
        "overflow-second",
        "overflow-none",
        "overflow-only-for-workloads",
        "observed-second-term",
        "other-term-ignored",
        "observed-name-unknown-passes",
    ],
)
def test_cluster_affinity_terms(
    placement: dict[str, Any], observed: str, workload: bool, name: str, fits: bool, order: int
) -> None:
    affinity = affinity_in_force(Placement.model_validate(placement), observed, workload)
    subject = cluster(name)
    assert (cluster_affinity_reason(subject, affinity) == "") is fits
    assert overflow_order(subject, affinity) == order


@pytest.mark.parametrize(
    ("field", "fields", "reason"),
    [
        ("provider", {}, "cluster(s) did not have provider property"),
        ("region", {}, "cluster(s) did not have region property"),
        ("zone", {}, "cluster(s) did not have zones property"),
        ("provider", {"provider": "aws"}, ""),
        ("region", {"region": "eu"}, ""),
        ("zone", {"zones": ["z"]}, ""),
        ("cluster", {}, ""),
    ],
    ids=[
        "provider-missing",
        "region-missing",
        "zones-missing",
        "provider",
        "region",
        "zones",
        "cluster-never-filters",
    ],
)
def test_spread_constraint_filter(field: str, fields: dict[str, Any], reason: str) -> None:
    facts = ClusterFacts.of(cluster("member1", **fields))
    constraint = SpreadConstraint.model_validate({"spreadByField": field})
    assert spread_constraint_reason(facts, [constraint]) == reason


def test_spread_by_label_never_filters() -> None:
    facts = ClusterFacts.of(cluster("member1"))
    assert spread_constraint_reason(facts, [SpreadConstraint(spread_by_label="topology")]) == ""


def test_cluster_eviction_filter() -> None:
    assert cluster_eviction_reason("member1", {"member1"}) == EVICTION_REASON
    assert cluster_eviction_reason("member2", {"member1"}) == ""


def _given(placement: dict[str, Any] | None = None, **overrides: Any) -> FilterInput:
    fields: dict[str, Any] = {
        "api_version": "apps/v1",
        "kind": "Deployment",
        "placement": Placement.model_validate(placement or {}),
        "affinity": AffinityInForce(),
        "previous_clusters": frozenset(),
        "evicted_clusters": frozenset(),
    }
    fields.update(overrides)
    return FilterInput(**fields)


def test_first_rejecting_plugin_decides() -> None:
    facts = ClusterFacts.of(
        cluster("member1", taints=[{"key": "k", "effect": "NoSchedule"}], status={"apiEnablements": []})
    )
    verdict = run_filters(facts, _given(evicted_clusters=frozenset({"member1"})))
    assert verdict == FilterVerdict("member1", FilterPlugin.API_ENABLEMENT, API_REASON)


def test_deleting_clusters_are_skipped_not_rejected() -> None:
    verdict = run_filters(ClusterFacts.of(cluster("member1", deleting=True)), _given())
    assert verdict.skipped and not verdict.fits and verdict.plugin is None


def test_previous_clusters_pass_taint_and_api_filters_but_not_eviction() -> None:
    facts = ClusterFacts.of(
        cluster("member1", taints=[{"key": "k", "effect": "NoExecute"}], status={"apiEnablements": []})
    )
    assert run_filters(facts, _given(previous_clusters=frozenset({"member1"}))).fits
    evicted = _given(previous_clusters=frozenset({"member1"}), evicted_clusters=frozenset({"member1"}))
    assert run_filters(facts, evicted).plugin is FilterPlugin.CLUSTER_EVICTION


@pytest.mark.parametrize(
    ("total", "verdicts", "message"),
    [
        (
            3,
            [
                FilterVerdict(
                    "a", FilterPlugin.TAINT_TOLERATION, "cluster(s) had untolerated taint {k:NoSchedule}"
                ),
                FilterVerdict(
                    "b",
                    FilterPlugin.CLUSTER_AFFINITY,
                    "cluster(s) did not match the placement cluster affinity constraint",
                ),
                FilterVerdict(
                    "c",
                    FilterPlugin.CLUSTER_AFFINITY,
                    "cluster(s) did not match the placement cluster affinity constraint",
                ),
            ],
            "0/3 clusters are available: 1 cluster(s) had untolerated taint {k:NoSchedule}, "
            "2 cluster(s) did not match the placement cluster affinity constraint.",
        ),
        (
            12,
            [FilterVerdict(f"e{i}", FilterPlugin.CLUSTER_EVICTION, EVICTION_REASON) for i in range(10)]
            + [
                FilterVerdict("x", FilterPlugin.API_ENABLEMENT, API_REASON),
                FilterVerdict("y", FilterPlugin.API_ENABLEMENT, API_REASON),
            ],
            "0/12 clusters are available: 10 cluster(s) is in the process of eviction, "
            "2 cluster(s) did not have the API resource.",
        ),
        (
            2,
            [
                FilterVerdict("gone", skipped=True),
                FilterVerdict("b", FilterPlugin.API_ENABLEMENT, API_REASON),
            ],
            "0/2 clusters are available: 1 cluster(s) did not have the API resource.",
        ),
    ],
    ids=["sorted-as-strings", "ten-sorts-before-two", "deleting-counted-in-total-only"],
)
def test_fit_error_histogram(total: int, verdicts: list[FilterVerdict], message: str) -> None:
    assert fit_error_message(total, verdicts) == message
