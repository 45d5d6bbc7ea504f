"""apply_overrides end to end: order, errors, warnings, provenance, annotations, explain text."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.core.overrides import (
    ChangeOperation,
    OverridePolicyError,
    OverriderKind,
    annotate_applied_overrides,
    apply_overrides,
    describe_override_result,
)
from gitops_karmada.model.errors import OverrideError
from gitops_karmada.model.wellknown import APPLIED_CLUSTER_OVERRIDES_ANNOTATION, APPLIED_OVERRIDES_ANNOTATION
from tests.core.overrides.builders import (
    cluster,
    cluster_override_policy,
    config_map,
    deployment,
    override_policy,
    rule,
)

if TYPE_CHECKING:
    from gitops_karmada.core.overrides.selection import Rankings
    from gitops_karmada.model.overrides import OverridePolicy

MEMBER1, MEMBER2 = cluster("member1"), cluster("member2")
IMAGE = "/spec/template/spec/containers/0/image"


def _labels(operator: str, **value: str) -> dict[str, Any]:
    return {"labelsOverrider": [{"operator": operator, "value": value}]}


def test_release_note_example_on_member1_only() -> None:
    cm = config_map(
        "example-configmap", {"config.yaml": "app:\n  database:\n    port: 5432\n    ip: 127.0.0.1\n"}
    )
    op = override_policy(
        "example",
        resourceSelectors=[{"apiVersion": "v1", "kind": "ConfigMap", "name": "example-configmap"}],
        overrideRules=[
            rule(
                {
                    "fieldOverrider": [
                        {
                            "fieldPath": "/data/config.yaml",
                            "yaml": [
                                {"subPath": "/app/database/port", "operator": "replace", "value": "3306"}
                            ],
                        }
                    ]
                },
                ["member1"],
            )
        ],
    )
    on_member1 = apply_overrides(cm, MEMBER1, [], [op])
    on_member2 = apply_overrides(cm, MEMBER2, [], [op])
    assert (
        on_member1.object["data"]["config.yaml"] == 'app:\n  database:\n    ip: 127.0.0.1\n    port: "3306"\n'
    )
    assert on_member2.object == cm
    assert on_member2.applied_overrides == () and on_member2.changes == () and on_member2.warnings == ()


def test_the_most_specific_policy_applies_last_and_wins() -> None:
    ops = [
        override_policy(
            "a-by-name",
            resourceSelectors=[{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
            overrideRules=[rule(_labels("add", team="by-name"))],
        ),
        override_policy("z-for-all", overrideRules=[rule(_labels("add", team="for-all"))]),
    ]
    cop = cluster_override_policy("cop", overrideRules=[rule(_labels("add", team="cluster"))])
    result = apply_overrides(deployment(), MEMBER1, [cop], ops)
    assert result.object["metadata"]["labels"] == {"team": "by-name"}
    assert [c.policy.name for c in result.changes] == ["cop", "z-for-all", "a-by-name"]


def _gold_only() -> OverridePolicy:
    """An OverridePolicy selecting Deployments labelled ``tier: gold``, setting 5 replicas."""
    return override_policy(
        "gold-only",
        resourceSelectors=[
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "labelSelector": {"matchLabels": {"tier": "gold"}},
            }
        ],
        overrideRules=[rule({"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 5}]})],
    )


def test_rankings_kept_across_a_templates_clusters_change_nothing() -> None:
    """A template rendered for several clusters ranks the policies selecting it once per distinct object
    metadata: a cluster override policy that adds a label on one cluster makes its own ranking there, so
    the OverridePolicy selecting that label applies on that cluster only, exactly as without rankings."""
    cop = cluster_override_policy("cop", overrideRules=[rule(_labels("add", tier="gold"), ["member1"])])
    op = _gold_only()
    rankings: Rankings = {}
    clusters = [MEMBER2, MEMBER1, MEMBER2, cluster("member3")]
    kept = [apply_overrides(deployment(), c, [cop], [op], rankings=rankings) for c in clusters]
    alone = [apply_overrides(deployment(), c, [cop], [op]) for c in clusters]
    assert kept == alone
    assert [r.object["spec"]["replicas"] for r in kept] == [2, 5, 2, 2]
    assert len(rankings) == 3, "the clusters' ranking, the namespaced one without and with the label"


@pytest.mark.parametrize(
    ("labels", "kept"),
    [({1: "a", "tier": "gold"}, True), ({"tier": "gold", "odd": ["not", "hashable"]}, False)],
    ids=["keys-of-two-types", "unhashable-value"],
)
def test_odd_labels_do_not_trip_the_rankings(labels: dict[Any, Any], kept: bool) -> None:
    """Labels that cannot be sorted or hashed (not valid Kubernetes, but YAML allows them) do not crash
    the rankings and give the same result; an unhashable one is ranked afresh each time."""
    template = deployment()
    template["metadata"]["labels"] = labels
    rankings: Rankings = {}
    result = apply_overrides(template, MEMBER1, [], [_gold_only()], rankings=rankings)
    assert result == apply_overrides(template, MEMBER1, [], [_gold_only()])
    assert result.object["spec"]["replicas"] == 5
    assert ("namespaced" in {key[0] for key in rankings}) is kept


def test_override_policies_see_what_cluster_override_policies_did() -> None:
    cop = cluster_override_policy("cop", overrideRules=[rule(_labels("add", tier="gold"))])
    op = _gold_only()
    result = apply_overrides(deployment(), MEMBER1, [cop], [op])
    assert result.object["spec"]["replicas"] == 5
    assert [a.policy_name for a in result.applied_overrides] == ["gold-only"]


def test_overrider_order_within_a_rule() -> None:
    overriders = {
        "plaintext": [
            {"path": IMAGE, "operator": "replace", "value": "plain:1"},
            {"path": "/metadata/annotations/order", "operator": "replace", "value": "plaintext"},
        ],
        "annotationsOverrider": [{"operator": "add", "value": {"order": "annotations"}}],
        "imageOverrider": [{"component": "Tag", "operator": "replace", "value": "2"}],
        "labelsOverrider": [{"operator": "add", "value": {"l": "1"}}],
        "argsOverrider": [{"containerName": "nginx", "operator": "add", "value": ["--b"]}],
        "commandOverrider": [{"containerName": "nginx", "operator": "add", "value": ["run"]}],
    }
    result = apply_overrides(
        deployment(), MEMBER1, [cluster_override_policy("c", overrideRules=[rule(overriders)])], []
    )
    assert [c.overrider for c in result.changes] == [
        OverriderKind.IMAGE,
        OverriderKind.COMMAND,
        OverriderKind.ARGS,
        OverriderKind.LABELS,
        OverriderKind.ANNOTATIONS,
        OverriderKind.PLAINTEXT,
        OverriderKind.PLAINTEXT,
    ]
    assert result.object["spec"]["template"]["spec"]["containers"][0]["image"] == "plain:1"
    assert result.object["metadata"]["annotations"] == {"order": "plaintext"}


def test_provenance_records_every_changed_field() -> None:
    overriders = {
        "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "mirror.io"}],
        "labelsOverrider": [{"operator": "add", "value": {"a": "1", "b": "2"}}],
        "plaintext": [{"path": "/spec/replicas", "operator": "remove"}],
    }
    op = override_policy("p", overrideRules=[rule(_labels("add", x="y")), rule(overriders, ["member1"])])
    result = apply_overrides(deployment(labels={"a": "0"}), MEMBER1, [], [op])
    assert [c.to_dict() for c in result.changes] == [
        _change("/metadata/labels/x", "add", None, "y", 0, "labelsOverrider", 0),
        _change(IMAGE, "replace", "nginx:1.27", "mirror.io/nginx:1.27", 1, "imageOverrider", 0),
        _change("/metadata/labels/a", "replace", "0", "1", 1, "labelsOverrider", 0),
        _change("/metadata/labels/b", "add", None, "2", 1, "labelsOverrider", 0),
        _change("/spec/replicas", "remove", 2, None, 1, "plaintext", 0),
    ]


def _change(
    path: str, operation: str, old: Any, new: Any, rule_index: int, kind: str, index: int
) -> dict[str, Any]:
    change: dict[str, Any] = {"path": path, "operation": operation}
    if operation != "add":
        change["old"] = old
    if operation != "remove":
        change["new"] = new
    change.update(
        policy={"kind": "OverridePolicy", "namespace": "default", "name": "p"},
        ruleIndex=rule_index,
        overrider=kind,
        overriderIndex=index,
    )
    return change


def test_field_overrider_provenance_points_into_the_document() -> None:
    cm = config_map("c", {"f.json": '{"a": {"b": 1}, "c": 2}'})
    overriders = {
        "fieldOverrider": [
            {
                "fieldPath": "/data/f.json",
                "json": [
                    {"subPath": "/a/b", "operator": "replace", "value": 3},
                    {"subPath": "/c", "operator": "remove"},
                ],
            }
        ]
    }
    result = apply_overrides(
        cm, MEMBER1, [cluster_override_policy("c", overrideRules=[rule(overriders)])], []
    )
    assert [(c.location, c.operation, c.old, c.new) for c in result.changes] == [
        ("/data/f.json#/a/b", ChangeOperation.REPLACE, 1, 3),
        ("/data/f.json#/c", ChangeOperation.REMOVE, 2, None),
    ]


ERRORS = [
    (
        "image",
        {
            "imageOverrider": [
                {
                    "component": "Tag",
                    "operator": "replace",
                    "value": "2",
                    "predicate": {"path": "/spec/nope/image"},
                }
            ]
        },
        "imageOverrider[0]",
        "/spec/nope/image",
    ),
    (
        "command",
        {"commandOverrider": [{"containerName": "nginx", "operator": "add", "value": ["x"]}]},
        "commandOverrider[0]",
        "/spec/template/spec/containers/0/command",
    ),
    (
        "labels",
        {"labelsOverrider": [{"operator": "add", "value": {"a": "1"}}]},
        "labelsOverrider[0]",
        "/metadata/labels",
    ),
    (
        "field",
        {
            "fieldOverrider": [
                {"fieldPath": "/spec/replicas", "yaml": [{"subPath": "/a", "operator": "remove"}]}
            ]
        },
        "fieldOverrider[0]",
        "/spec/replicas",
    ),
    (
        "plaintext-missing",
        {"plaintext": [{"path": "/spec/x/y", "operator": "add", "value": 1}]},
        "plaintext[0]",
        "/spec/x/y",
    ),
    (
        "plaintext-second",
        {
            "plaintext": [
                {"path": "/spec/replicas", "operator": "replace", "value": 1},
                {"path": "/metadata/labels/absent", "operator": "replace", "value": "x"},
            ]
        },
        "plaintext[1]",
        "/metadata/labels/absent",
    ),
    ("plaintext-kind", {"plaintext": [{"path": "/kind", "operator": "remove"}]}, "plaintext[0]", "/kind"),
]


@pytest.mark.parametrize(
    ("overriders", "overrider", "path"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_errors_name_policy_rule_overrider_cluster_template_and_path(
    overriders: dict[str, Any], overrider: str, path: str
) -> None:
    obj = deployment(labels={"a": "b"})
    obj["spec"]["template"]["spec"]["containers"][0]["command"] = "not-a-list"  # malformed on purpose
    if overrider == "labelsOverrider[0]":
        obj["metadata"]["labels"] = {"a": 1}  # malformed on purpose
    first_rule = rule({"annotationsOverrider": [{"operator": "add", "value": {"ok": "1"}}]})
    op = override_policy("broken", "default", overrideRules=[first_rule, rule(overriders)])
    before = copy.deepcopy(obj)
    with pytest.raises(OverridePolicyError) as raised:
        apply_overrides(obj, MEMBER1, [], [op])
    message = str(raised.value)
    for fragment in (
        "OverridePolicy/default/broken",
        "rule 1",
        overrider,
        "cluster member1",
        "Deployment.apps/default/nginx",
        path,
    ):
        assert fragment in message
    assert (raised.value.policy.name, raised.value.rule_index, raised.value.cluster, raised.value.path) == (
        "broken",
        1,
        "member1",
        path,
    )
    assert isinstance(raised.value, OverrideError)
    assert obj == before


def test_sub_path_errors_name_the_sub_path() -> None:
    cm = config_map("c", {"f": "a: 1\n"})
    overriders = {
        "fieldOverrider": [
            {"fieldPath": "/data/f", "yaml": [{"subPath": "/x/y", "operator": "replace", "value": 1}]}
        ]
    }
    with pytest.raises(
        OverridePolicyError,
        match="ClusterOverridePolicy/c rule 0 fieldOverrider\\[0\\] on cluster "
        "member1 for ConfigMap/default/c at /data/f#/x/y: replace operation does not apply",
    ):
        apply_overrides(cm, MEMBER1, [cluster_override_policy("c", overrideRules=[rule(overriders)])], [])


IDLE = [
    (
        "label-remove-absent",
        {"labelsOverrider": [{"operator": "remove", "value": {"zz": ""}}]},
        "labelsOverrider[0]",
        "",
    ),
    (
        "tag-add-invalid",
        {"imageOverrider": [{"component": "Tag", "operator": "add", "value": "/bad"}]},
        "imageOverrider[0]",
        "",
    ),
    (
        "same-value",
        {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 2}]},
        "plaintext[0]",
        "",
    ),
    (
        "image-on-configmap",
        {"imageOverrider": [{"component": "Tag", "operator": "replace", "value": "2"}]},
        "imageOverrider[0]",
        "(Karmada only rewrites containers of Pods and pod-template workloads, not ConfigMap)",
    ),
    (
        "args-no-such-container",
        {"argsOverrider": [{"containerName": "x", "operator": "add", "value": ["a"]}]},
        "argsOverrider[0]",
        "",
    ),
]


@pytest.mark.parametrize(("overriders", "overrider", "hint"), [i[1:] for i in IDLE], ids=[i[0] for i in IDLE])
def test_an_overrider_that_changes_nothing_is_a_warning(
    overriders: dict[str, Any], overrider: str, hint: str
) -> None:
    obj = config_map("nginx", {}) if "ConfigMap" in hint else deployment()
    result = apply_overrides(
        obj, MEMBER1, [cluster_override_policy("idle", overrideRules=[rule(overriders)])], []
    )
    template = "ConfigMap/default/nginx" if "ConfigMap" in hint else "Deployment.apps/default/nginx"
    expected = (
        f"ClusterOverridePolicy/idle rule 0 {overrider} changed nothing on cluster member1 for {template}"
    )
    assert result.warnings == ((expected + (f" {hint}" if hint else "")),)
    assert result.changes == ()
    assert [a.policy_name for a in result.applied_cluster_overrides] == ["idle"]


def test_applied_override_annotations_in_karmadas_format() -> None:
    cops = [
        cluster_override_policy(
            "z-cop",
            overrideRules=[
                rule(
                    {
                        "plaintext": [
                            {
                                "path": "/metadata/annotations",
                                "operator": "add",
                                "value": {"b": "<x>", "a": 1.0},
                            },
                            {"path": "/spec/paused", "operator": "remove"},
                        ]
                    }
                )
            ],
        ),
        cluster_override_policy(
            "a-cop",
            overrideRules=[
                rule(
                    {
                        "imageOverrider": [
                            {
                                "component": "Tag",
                                "operator": "replace",
                                "value": "2",
                                "predicate": {"path": IMAGE},
                            }
                        ]
                    }
                )
            ],
        ),
    ]
    ops = [
        override_policy(
            "p",
            overrideRules=[
                rule(_labels("add", b="2", a="1")),
                rule({"commandOverrider": [{"containerName": "nginx", "operator": "remove"}]}),
            ],
        )
    ]
    obj = deployment()
    obj["spec"]["paused"] = False
    result = apply_overrides(obj, MEMBER1, cops, ops)
    annotations = annotate_applied_overrides(result.object, result)["metadata"]["annotations"]
    assert annotations[APPLIED_CLUSTER_OVERRIDES_ANNOTATION] == (
        '[{"policyName":"a-cop","overriders":{"imageOverrider":[{"predicate":{"path":"' + IMAGE + '"},'
        '"component":"Tag","operator":"replace","value":"2"}]}},'
        '{"policyName":"z-cop","overriders":{"plaintext":[{"path":"/metadata/annotations","operator":"add",'
        '"value":{"a":1,"b":"\\u003cx\\u003e"}},{"path":"/spec/paused","operator":"remove","value":null}]}}]'
    )
    assert annotations[APPLIED_OVERRIDES_ANNOTATION] == (
        '[{"policyName":"p","overriders":{"labelsOverrider":[{"operator":"add","value":{"a":"1","b":"2"}}]}},'
        '{"policyName":"p","overriders":{"commandOverrider":[{"containerName":"nginx","operator":"remove"}]}}]'
    )
    assert result.object["metadata"]["annotations"] == {
        "a": 1,
        "b": "<x>",
    }  # the result itself is not annotated


def test_annotations_only_when_something_applied_and_deprecated_empty_policy_is_recorded() -> None:
    nothing = apply_overrides(deployment(), MEMBER1, [], [])
    assert annotate_applied_overrides(nothing.object, nothing) == deployment()
    empty = apply_overrides(deployment(), MEMBER1, [], [override_policy("empty")])
    annotations = annotate_applied_overrides(empty.object, empty)["metadata"]["annotations"]
    assert annotations == {APPLIED_OVERRIDES_ANNOTATION: '[{"policyName":"empty","overriders":{}}]'}


def test_result_to_dict_is_json_and_explain_text() -> None:
    op = override_policy(
        "p",
        overrideRules=[
            rule(
                {
                    "imageOverrider": [{"component": "Registry", "operator": "add", "value": "r.io"}],
                    "labelsOverrider": [{"operator": "remove", "value": {"absent": ""}}],
                }
            )
        ],
    )
    result = apply_overrides(deployment(), MEMBER1, [], [op])
    assert json.loads(json.dumps(result.to_dict()))["appliedOverrides"] == [
        {
            "policyName": "p",
            "overriders": {
                "imageOverrider": [{"component": "Registry", "operator": "add", "value": "r.io"}],
                "labelsOverrider": [{"operator": "remove", "value": {"absent": ""}}],
            },
        }
    ]
    assert describe_override_result(result) == (
        "cluster member1, Deployment.apps/default/nginx: 1 field change(s) by p\n"
        f'  {IMAGE}: "nginx:1.27" -> "r.io/nginx:1.27"  [OverridePolicy/default/p rule 0 imageOverrider[0]]\n'
        "  warning: OverridePolicy/default/p rule 0 labelsOverrider[0] changed nothing on cluster member1 "
        "for Deployment.apps/default/nginx"
    )


def test_the_input_is_never_mutated_and_the_result_shares_nothing_with_it() -> None:
    obj = deployment(labels={"a": "b"})
    frozen = copy.deepcopy(obj)
    value = {"nested": ["x"]}
    cop = cluster_override_policy(
        "c", overrideRules=[rule({"plaintext": [{"path": "/spec/extra", "operator": "add", "value": value}]})]
    )
    result = apply_overrides(obj, MEMBER1, [cop], [])
    assert obj == frozen
    result.object["metadata"]["labels"]["a"] = "changed"
    result.object["spec"]["extra"]["nested"].append("y")
    assert obj == frozen
    assert cop.spec.override_rules[0].overriders.plaintext[0].value == {"nested": ["x"]}
