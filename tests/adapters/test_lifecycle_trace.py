"""Reading the override policies a rendered manifest records in Karmada's applied-overrides annotations."""

from __future__ import annotations

import json

import pytest

from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.usecases.trace import applied_overrides

CLUSTER_OVERRIDES = "policy.karmada.io/applied-cluster-overrides"
OVERRIDES = "policy.karmada.io/applied-overrides"


def manifest(annotations: dict[str, str]) -> bytes:
    header = (
        "# Rendered by gitops-karmada from apps/web.yaml[0] via PropagationPolicy shop/web; do not edit.\n"
    )
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "annotations": annotations}}
    return (header + dump_yaml(body)).encode()


def shadows(*items: tuple[str, list[str]]) -> str:
    return json.dumps([{"policyName": name, "overriders": {k: [] for k in kinds}} for name, kinds in items])


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({}, []),
        ({OVERRIDES: shadows(("eu", ["labelsOverrider"]))}, ["OverridePolicy shop/eu (labelsOverrider)"]),
        (
            {
                OVERRIDES: shadows(("a", ["imageOverrider", "annotationsOverrider"]), ("b", [])),
                CLUSTER_OVERRIDES: shadows(("prod", ["plaintext"])),
            },
            [
                "ClusterOverridePolicy prod (plaintext)",
                "OverridePolicy shop/a (annotationsOverrider, imageOverrider)",
                "OverridePolicy shop/b (no overriders)",
            ],
        ),
        ({OVERRIDES: "not json"}, []),
        ({OVERRIDES: json.dumps({"policyName": "not-a-list"})}, []),
        ({OVERRIDES: json.dumps([{"overriders": {}}, "junk"])}, []),
    ],
    ids=["none", "one", "cluster-first-then-sorted-overriders", "not-json", "not-a-list", "no-names"],
)
def test_applied_overrides(annotations: dict[str, str], expected: list[str]) -> None:
    assert [str(o) for o in applied_overrides(manifest(annotations), "shop")] == expected


def test_cluster_override_policies_have_no_namespace() -> None:
    (found,) = applied_overrides(manifest({CLUSTER_OVERRIDES: shadows(("p", ["labelsOverrider"]))}), "shop")
    assert (found.kind, found.namespace, found.name) == ("ClusterOverridePolicy", "", "p")
    assert found.to_dict() == {
        "kind": "ClusterOverridePolicy",
        "namespace": "",
        "name": "p",
        "overriders": ["labelsOverrider"],
    }


def test_content_that_is_not_yaml_has_no_overrides() -> None:
    assert applied_overrides(b"key: [unclosed\n", "shop") == ()
