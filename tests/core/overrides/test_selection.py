"""Which rules apply and in which order (spec §3.1 steps 1-3), and unused-policy warnings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.core.overrides import select_overriders, unused_override_policies
from gitops_karmada.core.selectors import ImplicitPriority
from tests.core.overrides.builders import cluster, cluster_override_policy, deployment, override_policy, rule

if TYPE_CHECKING:
    from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy

LABELS = {"labelsOverrider": [{"operator": "add", "value": {"k": "v"}}]}
OBJ = deployment("web", labels={"tier": "front"})
MEMBER1 = cluster("member1", {"env": "prod"}, region="eu")


def _selector(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", **fields}


def _order(
    cops: list[ClusterOverridePolicy], ops: list[OverridePolicy], obj: dict[str, Any] = OBJ
) -> list[str]:
    return [
        f"{b.policy.kind}/{b.policy.name}#{b.rule_index}" for b in select_overriders(obj, MEMBER1, cops, ops)
    ]


def test_cluster_override_policies_come_first_whatever_their_specificity() -> None:
    cop = cluster_override_policy(
        "z", resourceSelectors=[_selector(name="web")], overrideRules=[rule(LABELS)]
    )
    op = override_policy("a", overrideRules=[rule(LABELS)])
    assert _order([cop], [op]) == ["ClusterOverridePolicy/z#0", "OverridePolicy/a#0"]


def test_least_specific_first_then_by_name() -> None:
    ops = [
        override_policy("c-name", resourceSelectors=[_selector(name="web")], overrideRules=[rule(LABELS)]),
        override_policy("b-none", overrideRules=[rule(LABELS)]),
        override_policy(
            "a-labels",
            resourceSelectors=[_selector(labelSelector={"matchLabels": {"tier": "front"}})],
            overrideRules=[rule(LABELS)],
        ),
        override_policy(
            "a-empty-labels", resourceSelectors=[_selector(labelSelector={})], overrideRules=[rule(LABELS)]
        ),
        override_policy("a-kind", resourceSelectors=[_selector()], overrideRules=[rule(LABELS)]),
        override_policy("x-miss", resourceSelectors=[_selector(name="other")], overrideRules=[rule(LABELS)]),
    ]
    assert _order([], ops) == [
        "OverridePolicy/a-kind#0",
        "OverridePolicy/b-none#0",
        "OverridePolicy/a-empty-labels#0",
        "OverridePolicy/a-labels#0",
        "OverridePolicy/c-name#0",
    ]


def test_priority_is_the_best_of_a_policys_selectors() -> None:
    ops = [
        override_policy(
            "a",
            resourceSelectors=[_selector(name="other"), _selector(name="web")],
            overrideRules=[rule(LABELS)],
        ),
        override_policy("b", resourceSelectors=[_selector()], overrideRules=[rule(LABELS)]),
    ]
    blocks = select_overriders(OBJ, MEMBER1, [], ops)
    assert [(b.policy.name, b.implicit_priority) for b in blocks] == [
        ("b", ImplicitPriority.MATCH_ALL),
        ("a", ImplicitPriority.MATCH_NAME),
    ]


TARGETS = [
    ("no-target", None, True),
    ("cluster-names", {"clusterNames": ["member1"]}, True),
    ("other-cluster", {"clusterNames": ["member2"]}, False),
    ("label-selector", {"labelSelector": {"matchLabels": {"env": "prod"}}}, True),
    ("label-mismatch", {"labelSelector": {"matchLabels": {"env": "dev"}}}, False),
    (
        "field-selector",
        {"fieldSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]}},
        True,
    ),
    ("excluded", {"exclude": ["member1"]}, False),
    ("empty-affinity", {}, True),
]


@pytest.mark.parametrize(("target", "applies"), [t[1:] for t in TARGETS], ids=[t[0] for t in TARGETS])
def test_target_cluster_per_rule(target: dict[str, Any] | None, applies: bool) -> None:
    raw_rule: dict[str, Any] = {"overriders": LABELS}
    if target is not None:
        raw_rule["targetCluster"] = target
    op = override_policy("p", overrideRules=[raw_rule])
    assert bool(select_overriders(OBJ, MEMBER1, [], [op])) is applies


def test_a_policy_contributes_every_matching_rule_in_order() -> None:
    op = override_policy(
        "p",
        overrideRules=[
            rule(LABELS, ["member1"]),
            rule(LABELS, ["member2"]),
            rule(LABELS),
            rule(LABELS, ["member1"]),
        ],
    )
    assert _order([], [op]) == ["OverridePolicy/p#0", "OverridePolicy/p#2", "OverridePolicy/p#3"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"targetCluster": {"clusterNames": ["member1"]}, "overriders": LABELS}, ["OverridePolicy/p#0"]),
        ({"targetCluster": {"clusterNames": ["member2"]}, "overriders": LABELS}, []),
        ({"overriders": LABELS}, ["OverridePolicy/p#0"]),
        # an empty policy is still applied (and recorded) with empty overriders, as in Karmada
        ({}, ["OverridePolicy/p#0"]),
        ({"overrideRules": [rule(LABELS, ["member2"])], "overriders": LABELS}, []),
    ],
    ids=[
        "deprecated-pair",
        "deprecated-pair-other-cluster",
        "deprecated-overriders-only",
        "empty",
        "rules-win",
    ],
)
def test_deprecated_target_cluster_and_overriders(spec: dict[str, Any], expected: list[str]) -> None:
    blocks = select_overriders(OBJ, MEMBER1, [], [override_policy("p", **spec)])
    assert [f"OverridePolicy/{b.policy.name}#{b.rule_index}" for b in blocks] == expected
    assert all(b.from_deprecated_fields == ("overrideRules" not in spec) for b in blocks)


def test_override_policies_only_of_the_objects_namespace_and_never_for_cluster_scoped() -> None:
    ops = [
        override_policy("here", "default", overrideRules=[rule(LABELS)]),
        override_policy("there", "other", overrideRules=[rule(LABELS)]),
    ]
    cop = cluster_override_policy("cop", overrideRules=[rule(LABELS)])
    assert _order([cop], ops) == ["ClusterOverridePolicy/cop#0", "OverridePolicy/here#0"]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    assert _order([cop], ops, namespace) == ["ClusterOverridePolicy/cop#0"]


def test_unused_override_policies() -> None:
    templates = [
        OBJ,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "other"}},
    ]
    cops = [
        cluster_override_policy("all"),
        cluster_override_policy("cm", resourceSelectors=[{"apiVersion": "v1", "kind": "ConfigMap"}]),
        cluster_override_policy("svc", resourceSelectors=[{"apiVersion": "v1", "kind": "Service"}]),
    ]
    ops = [
        override_policy("cm-here", "default", resourceSelectors=[{"apiVersion": "v1", "kind": "ConfigMap"}]),
        override_policy("cm-there", "other", resourceSelectors=[{"apiVersion": "v1", "kind": "ConfigMap"}]),
        override_policy("everything", "default"),
    ]
    assert unused_override_policies(templates, cops, ops) == (
        "ClusterOverridePolicy/svc: resourceSelectors match no resource template",
        "OverridePolicy/default/cm-here: resourceSelectors match no resource template in namespace default",
    )
