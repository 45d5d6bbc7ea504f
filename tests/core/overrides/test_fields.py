"""fieldOverrider (spec §3.7): YAML through sigs.k8s.io/yaml, JSON through json-patch v5, errors."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.fields import apply_field_overrider
from gitops_karmada.core.overrides.provenance import ChangeOperation
from gitops_karmada.model.overrides import FieldOverrider
from tests.core.overrides.builders import config_map

# The v1.12 release note's example (fieldOverrider on a ConfigMap holding YAML)
RELEASE_NOTE_YAML = "app:\n  database:\n    port: 5432\n    ip: 127.0.0.1\n    name: example\n  zone: zone1\n"
RELEASE_NOTE_STRING_RESULT = (
    'app:\n  database:\n    ip: 127.0.0.1\n    name: example\n    port: "3306"\n  zone: zone1\n'
)
RELEASE_NOTE_NUMBER_RESULT = (
    "app:\n  database:\n    ip: 127.0.0.1\n    name: example\n    port: 3306\n  zone: zone1\n"
)


def _field(mode: str, path: str, *operations: tuple[str, str, Any]) -> FieldOverrider:
    ops = [
        {"subPath": sub_path, "operator": operator, **({} if value is None else {"value": value})}
        for sub_path, operator, value in operations
    ]
    return FieldOverrider.model_validate({"fieldPath": path, mode: ops})


def _apply(text: str, overrider: FieldOverrider, key: str = "f") -> str:
    obj = config_map("c", {key: text})
    apply_field_overrider(obj, overrider)
    value: str = obj["data"][key]
    return value


@pytest.mark.parametrize(
    ("value", "expected"),
    [("3306", RELEASE_NOTE_STRING_RESULT), (3306, RELEASE_NOTE_NUMBER_RESULT)],
    ids=["string-value-is-quoted", "number-value"],
)
def test_release_note_example(value: Any, expected: str) -> None:
    obj = config_map("example-configmap", {"config.yaml": RELEASE_NOTE_YAML})
    overrider = _field("yaml", "/data/config.yaml", ("/app/database/port", "replace", value))
    outcome = apply_field_overrider(obj, overrider)
    assert obj["data"]["config.yaml"] == expected
    assert [(c.path, c.operation, c.old, c.new) for c in outcome.document_changes] == [
        ("/app/database/port", ChangeOperation.REPLACE, 5432, value)
    ]


YAML_CASES = [
    (
        "unit-test-example",
        "\nkey: \n  key1: value\n",
        [("/key/key1", "replace", "updated_value")],
        "key:\n  key1: updated_value\n",
    ),
    (
        "yaml11-scalars-become-json-types",
        "a: yes\nb: on\nc: 0o17\nd: '1'\n",
        [("/e", "add", 1)],
        'a: true\nb: true\nc: 15\nd: "1"\ne: 1\n',
    ),
    (
        "keys-resorted-comments-dropped",
        "z: 1 # c\na: [x,  w]\n",
        [("/m", "add", {"k": "v"})],
        "a:\n- x\n- w\nm:\n  k: v\nz: 1\n",
    ),
    ("y-is-a-yaml11-boolean", "a: [x, y]\n", [("/b", "add", "y")], 'a:\n- x\n- true\nb: "y"\n'),
    ("array-root", "- a\n- b\n", [("/0", "replace", "c")], "- c\n- b\n"),
    ("remove", "a: 1\nb: 2\n", [("/a", "remove", None)], "b: 2\n"),
    ("multi-line-value", "a: x\n", [("/a", "replace", "l1\nl2\n")], "a: |\n  l1\n  l2\n"),
    ("json-value-with-html", "a: x\n", [("/a", "replace", "<b>&")], "a: <b>&\n"),
    ("float-value", "a: x\n", [("/a", "replace", 2.0)], "a: 2\n"),
]


@pytest.mark.parametrize(
    ("text", "operations", "expected"), [c[1:] for c in YAML_CASES], ids=[c[0] for c in YAML_CASES]
)
def test_yaml_mode(text: str, operations: list[tuple[str, str, Any]], expected: str) -> None:
    assert _apply(text, _field("yaml", "/data/f", *operations)) == expected


JSON_CASES = [
    (
        "unit-test-example",
        '{"key":{"key1":"value"}}',
        [("/key/key1", "replace", "updated_value")],
        '{"key":{"key1":"updated_value"}}',
    ),
    (
        "compact-order-kept",
        '{ "z": 1,\n  "a": { "c": 1.50, "b": [ ] } }',
        [("/a/b/-", "add", 1)],
        '{"z":1,"a":{"c":1.50,"b":[1]}}',
    ),
    ("html-escaped", '{"a": "<x>"}', [("/b", "add", "&")], '{"a":"\\u003cx\\u003e","b":"\\u0026"}'),
    ("empty-field-untouched", "", [("/a", "add", 1)], ""),
]


@pytest.mark.parametrize(
    ("text", "operations", "expected"), [c[1:] for c in JSON_CASES], ids=[c[0] for c in JSON_CASES]
)
def test_json_mode(text: str, operations: list[tuple[str, str, Any]], expected: str) -> None:
    assert _apply(text, _field("json", "/data/f", *operations)) == expected


def test_field_path_is_a_json_pointer() -> None:
    obj = config_map("c", {"a/b.json": '{"x": 1}'})
    apply_field_overrider(obj, _field("json", "/data/a~1b.json", ("/x", "replace", 2)))
    assert obj["data"]["a/b.json"] == '{"x":2}'


ERRORS = [
    (
        "missing-field",
        {"f": "a: 1"},
        _field("yaml", "/data/nope", ("/a", "add", 1)),
        "/data/nope",
        "",
        "fieldPath does not exist",
    ),
    ("not-a-string", {"f": "a: 1"}, _field("yaml", "/data", ("/a", "add", 1)), "/data", "", "is not string"),
    (
        "invalid-yaml",
        {"f": "a: [1"},
        _field("yaml", "/data/f", ("/a", "add", 1)),
        "/data/f",
        "",
        "not valid YAML",
    ),
    (
        "yaml-scalar",
        {"f": "just text"},
        _field("yaml", "/data/f", ("/a", "add", 1)),
        "/data/f",
        "",
        "does not hold a YAML object",
    ),
    (
        "invalid-json",
        {"f": "{nope"},
        _field("json", "/data/f", ("/a", "add", 1)),
        "/data/f",
        "",
        "does not hold a JSON object",
    ),
    (
        "missing-sub-path",
        {"f": "a: 1"},
        _field("yaml", "/data/f", ("/b/c", "replace", 1)),
        "/data/f",
        "/b/c",
        "doc is missing path",
    ),
    (
        "failing-second-op",
        {"f": '{"a": 1}'},
        _field("json", "/data/f", ("/a", "remove", None), ("/a", "remove", None)),
        "/data/f",
        "/a",
        "nonexistent key",
    ),
]


@pytest.mark.parametrize(
    ("data", "overrider", "path", "sub_path", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_errors_name_field_and_sub_path(
    data: dict[str, Any], overrider: FieldOverrider, path: str, sub_path: str, message: str
) -> None:
    with pytest.raises(OverriderError) as raised:
        apply_field_overrider(config_map("c", data), overrider)
    assert (raised.value.path, raised.value.sub_path) == (path, sub_path)
    assert message in raised.value.detail
