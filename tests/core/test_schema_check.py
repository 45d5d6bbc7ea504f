"""The schema checker: version choice, problem paths and messages, CRD schemas (OpenAPI v3 → JSON Schema)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gitops_karmada.adapters.kubernetes_schemas import packaged_schemas
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.schema_check import (
    SchemaChecker,
    SchemaProblem,
    check_rendered,
    crd_schemas,
    minor_version,
)
from tests.builders import cluster, deployment, manifest


def _checker(**kwargs: Any) -> SchemaChecker:
    return SchemaChecker(native=packaged_schemas(), crds={}, default_version=None, **kwargs)


def test_versions_cover_supported_kubernetes_releases() -> None:
    versions = packaged_schemas().versions()
    assert versions[0] <= (1, 25) and versions[-1] >= (1, 31)
    assert versions == sorted(versions)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("v1.31.4", (1, 31)), ("1.28", (1, 28)), ("v1.30.0-eks-1234", (1, 30)), ("", None), ("latest", None)],
)
def test_minor_version(text: str, expected: tuple[int, int] | None) -> None:
    assert minor_version(text) == expected


def test_a_cluster_is_checked_against_the_newest_schema_not_newer_than_it() -> None:
    checker = _checker()
    versions = packaged_schemas().versions()
    assert checker.version_for("v1.28.9") == (1, 28)
    assert checker.version_for("v1.10.0") == versions[0]  # older than any schema: the oldest
    assert checker.version_for("v1.99.0") == versions[-1]
    assert checker.version_for("") == versions[-1]  # no version reported, none configured: the newest
    assert SchemaChecker(packaged_schemas(), {}, (1, 27)).version_for("") == (1, 27)


def test_problems_point_at_the_offending_field() -> None:
    body = deployment("web")
    body["spec"]["replica"] = 2  # unknown
    body["spec"]["template"]["spec"]["containers"][0]["image"] = 7  # wrong type
    del body["spec"]["selector"]  # required
    verdict = _checker().check(body, "v1.31.0")
    assert verdict.checked_against == "Kubernetes 1.31"
    found = {p.field: p.message for p in verdict.problems}
    assert found["spec.replica"] == "unknown field"
    assert found["spec.template.spec.containers[0].image"] == "must be of type string, not integer"
    assert found["spec.selector"] == "required field is missing"
    assert _checker().check(deployment("web"), "v1.31.0").problems == ()
    # non-strict schemas let unknown fields through (kubectl --validate=warn), types still count
    lenient = _checker(strict=False).check(body, "v1.31.0")
    assert "spec.replica" not in {p.field for p in lenient.problems}
    assert "spec.template.spec.containers[0].image" in {p.field for p in lenient.problems}


def test_kinds_without_a_schema_are_reported_as_unchecked() -> None:
    assert _checker().check({"apiVersion": "example.com/v1", "kind": "Widget"}, "").checked_against == ""
    # a schema file that is not an object kind (Affinity) is not a kind
    assert _checker().check({"apiVersion": "v1", "kind": "Affinity"}, "").checked_against == ""
    assert _checker().check({"kind": "NoVersion"}, "").checked_against == ""


def test_problem_field_paths() -> None:
    assert SchemaProblem("/spec/a~1b/containers/0/x", "m").field == "spec.a/b.containers[0].x"
    assert SchemaProblem("", "m").field == ""


def _crd(openapi: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": openapi}},
                {"name": "v2", "served": True, "storage": False},  # no schema: not a schema source
            ],
        },
    }


def test_crd_schemas_follow_the_api_servers_structural_rules() -> None:
    openapi = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"x-kubernetes-int-or-string": True},
                    "note": {"type": "string", "nullable": True},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            }
        },
    }
    schemas = crd_schemas([manifest(_crd(openapi))])
    assert set(schemas) == {("example.com", "v1", "Widget")}
    checker = SchemaChecker(native=None, crds=schemas, default_version=None)

    def problems(spec: dict[str, Any]) -> dict[str, str]:
        body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}
        verdict = checker.check(body, "")
        assert verdict.checked_against == "CustomResourceDefinition widgets.example.com"
        return {p.field: p.message for p in verdict.problems}

    assert problems({"size": 3, "note": None, "free": {"x": {"y": 1}}, "labels": {"a": "b"}}) == {}
    assert problems({"size": "50%"}) == {}
    assert problems({}) == {"spec.size": "required field is missing"}
    assert problems({"size": 1, "extra": True}) == {"spec.extra": "unknown field"}
    assert problems({"size": 1, "labels": {"a": 1}}) == {
        "spec.labels.a": "must be of type string, not integer"
    }
    assert "spec.size" in problems({"size": [1]})
    # a version without a schema is not checked
    unknown = checker.check({"apiVersion": "example.com/v2", "kind": "Widget"}, "")
    assert unknown.checked_against == ""


def test_check_rendered_reads_every_document_of_the_cluster_folders() -> None:
    files = {
        "clusters/member1/default/configmap/a.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "clusters/member1/default/configmap/b.yaml": (
            b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {count: 1}\n---\n"
            b"apiVersion: example.com/v1\nkind: Widget\n"
        ),
        "clusters/member1/notes.txt": b"not a manifest",
        "clusters/member1/bad.yaml": b"key: [unclosed\n",
        "elsewhere/x.yaml": b"apiVersion: v1\nkind: ConfigMap\ndata: {n: 1}\n",
    }
    found, checked, unchecked = check_rendered(
        files, RepoLayout.default(), {"member1": cluster("member1")}, _checker()
    )
    assert (checked, unchecked) == (2, 1)
    assert [(d.source.path, d.source.doc_index) for d in found if d.source] == [
        ("clusters/member1/bad.yaml", 0),
        ("clusters/member1/default/configmap/b.yaml", 0),
    ]
    assert all(d.code == "schema" for d in found)


@pytest.mark.parametrize(
    ("openapi", "said"),
    [
        ({"type": "objectx"}, "is invalid"),
        ({"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}}, "is invalid"),
    ],
)
def test_an_invalid_crd_schema_fails_its_resources_with_a_clear_problem(
    openapi: dict[str, Any], said: str
) -> None:
    checker = SchemaChecker(native=None, crds=crd_schemas([manifest(_crd(openapi))]), default_version=None)
    verdict = checker.check({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"n": 2}}, "")
    assert verdict.checked_against == "CustomResourceDefinition widgets.example.com"
    assert len(verdict.problems) == 1 and said in verdict.problems[0].message
    assert "the schema of CustomResourceDefinition widgets.example.com" in verdict.problems[0].message


# -- the Rust gate agrees with jsonschema -----------------------------------------------------------------

_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "3", "50%", "Always", "TCP", "nginx:1", "1Gi", "2026-01-02T03:04:05Z"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "name", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [path, *(p for key, item in value.items() for p in _leaves(item, (*path, key)))]
    if isinstance(value, list):
        return [path, *(p for i, item in enumerate(value) for p in _leaves(item, (*path, i)))]
    return [path]


def _mutated(body: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """``body`` with a few fields replaced by arbitrary JSON, added, or deleted."""
    for _ in range(data.draw(st.integers(1, 3))):
        # apiVersion and kind choose the schema: they stay
        paths = [p for p in _leaves(body) if p and p[0] not in ("apiVersion", "kind")]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent: Any = body
        for part in path[:-1]:
            parent = parent[part]
        action = data.draw(st.sampled_from(["replace", "add", "delete"]))
        if action == "replace":
            parent[path[-1]] = data.draw(_JSON_VALUES)
        elif action == "add" and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["extra", "replicas", "name", "value", "protocol"]))] = (
                data.draw(_JSON_VALUES)
            )
        elif isinstance(parent, dict):
            del parent[path[-1]]
    return body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), strict=st.booleans(), version=st.sampled_from(["v1.25.0", "v1.31.0", ""]))
def test_the_rust_gate_passes_exactly_the_manifests_jsonschema_finds_no_problem_in(
    data: st.DataObject, strict: bool, version: str
) -> None:
    """The gate only saves time: a manifest it passes must be one the Python validator passes too (else a
    problem would go unreported), and one it fails must have problems to report."""
    checker = _checker(strict=strict)
    body = _mutated(deployment("web", replicas=3), data)
    verdict = checker.check(body, version)
    key = ("apps/v1", "Deployment", checker.version_for(version))
    gate, compiled = checker._gates[key], checker._validators[key]
    assert gate is not None and compiled is not None, "every packaged schema compiles in Rust"
    validator = compiled[1]
    assert not isinstance(validator, SchemaProblem)
    python_valid = not any(True for _ in validator.iter_errors(body))
    event("valid" if python_valid else "invalid")
    assert gate.is_valid(body) == python_valid
    assert (verdict.problems == ()) == python_valid
