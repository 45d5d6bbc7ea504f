"""JSON patch with evanphx/json-patch v5 semantics (spec §3.2), on decoded objects and on JSON text."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitops_karmada.core.overrides.patch import (
    InvalidDocumentError,
    PatchError,
    PatchOperation,
    PatchOperator,
    apply_patch,
    apply_patch_to_json,
)

ADD, REMOVE, REPLACE = PatchOperator.ADD, PatchOperator.REMOVE, PatchOperator.REPLACE
DOC: dict[str, Any] = {"a": {"b": 1, "c": [10, 20, 30]}, "n": None, "s": "text", "k~/": 1}

# (id, op, path, value, expected document)
APPLIES = [
    ("add-replaces-existing-member", ADD, "/a/b", 2, {**DOC, "a": {"b": 2, "c": [10, 20, 30]}}),
    ("add-new-member", ADD, "/a/x", {"y": 1}, {**DOC, "a": {"b": 1, "c": [10, 20, 30], "x": {"y": 1}}}),
    ("add-dash-appends", ADD, "/a/c/-", 40, {**DOC, "a": {"b": 1, "c": [10, 20, 30, 40]}}),
    ("add-index-0-inserts", ADD, "/a/c/0", 5, {**DOC, "a": {"b": 1, "c": [5, 10, 20, 30]}}),
    ("add-index-len-appends", ADD, "/a/c/3", 40, {**DOC, "a": {"b": 1, "c": [10, 20, 30, 40]}}),
    ("add-atoi-plus-sign", ADD, "/a/c/+1", 15, {**DOC, "a": {"b": 1, "c": [10, 15, 20, 30]}}),
    ("add-atoi-leading-zero", ADD, "/a/c/01", 15, {**DOC, "a": {"b": 1, "c": [10, 15, 20, 30]}}),
    ("add-negative-1-appends", ADD, "/a/c/-1", 40, {**DOC, "a": {"b": 1, "c": [10, 20, 30, 40]}}),
    ("add-negative-len+1-prepends", ADD, "/a/c/-4", 0, {**DOC, "a": {"b": 1, "c": [0, 10, 20, 30]}}),
    ("add-value-null", ADD, "/z", None, {**DOC, "z": None}),
    ("remove-member", REMOVE, "/a/b", None, {**DOC, "a": {"c": [10, 20, 30]}}),
    ("remove-negative-index", REMOVE, "/a/c/-1", None, {**DOC, "a": {"b": 1, "c": [10, 20]}}),
    ("remove-null-member", REMOVE, "/n", None, {k: v for k, v in DOC.items() if k != "n"}),
    ("replace-member", REPLACE, "/s", ["x"], {**DOC, "s": ["x"]}),
    ("replace-null-member", REPLACE, "/n", 1, {**DOC, "n": 1}),
    ("replace-negative-index", REPLACE, "/a/c/-3", 0, {**DOC, "a": {"b": 1, "c": [0, 20, 30]}}),
    ("escaped-key", REPLACE, "/k~0~1", 2, {**DOC, "k~/": 2}),
]


@pytest.mark.parametrize(
    ("op", "path", "value", "expected"), [a[1:] for a in APPLIES], ids=[a[0] for a in APPLIES]
)
def test_operation_applies(op: PatchOperator, path: str, value: Any, expected: dict[str, Any]) -> None:
    document = copy.deepcopy(DOC)
    apply_patch(document, [PatchOperation(op, path, value)])
    assert document == expected


# (id, op, path, message fragment)
FAILURES = [
    ("add-missing-parent", ADD, "/x/y", "add operation does not apply: doc is missing path"),
    ("add-through-scalar", ADD, "/s/x", "doc is missing path"),
    ("add-through-null", ADD, "/n/x", "doc is missing path"),
    ("add-index-beyond-len", ADD, "/a/c/4", "Unable to access invalid index: 4"),
    ("add-negative-beyond", ADD, "/a/c/-5", "Unable to access invalid index: -5"),
    ("add-not-an-index", ADD, "/a/c/x", "value was not a proper array index: 'x'"),
    ("remove-missing-key", REMOVE, "/a/zz", "unable to remove nonexistent key: zz"),
    ("remove-index-len", REMOVE, "/a/c/3", "Unable to access invalid index: 3"),
    ("remove-missing-parent", REMOVE, "/x/y", "remove operation does not apply"),
    ("replace-missing-key", REPLACE, "/a/zz", "replace operation does not apply: doc is missing key: /a/zz"),
    ("replace-dash", REPLACE, "/a/c/-", "doc is missing key"),
    ("replace-index-len", REPLACE, "/a/c/3", "doc is missing key"),
    ("replace-missing-parent", REPLACE, "/q/zz", "doc is missing path"),
    ("whole-document", REPLACE, "", "whole document"),
]


@pytest.mark.parametrize(("op", "path", "message"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES])
def test_operation_fails(op: PatchOperator, path: str, message: str) -> None:
    document = copy.deepcopy(DOC)
    with pytest.raises(PatchError) as raised:
        apply_patch(document, [PatchOperation(op, path, 1)])
    assert message in str(raised.value)
    assert raised.value.path == path


def test_operations_apply_in_order_each_seeing_the_previous() -> None:
    document: dict[str, Any] = {"list": []}
    apply_patch(
        document,
        [
            PatchOperation(ADD, "/list/-", {"name": "a"}),
            PatchOperation(ADD, "/list/0/tags", ["x"]),
            PatchOperation(REPLACE, "/list/0/name", "b"),
        ],
    )
    assert document == {"list": [{"name": "b", "tags": ["x"]}]}


def test_added_values_are_copies() -> None:
    value = {"nested": [1]}
    document: dict[str, Any] = {}
    apply_patch(document, [PatchOperation(ADD, "/v", value)])
    document["v"]["nested"].append(2)
    assert value == {"nested": [1]}


# JSON text: (id, text, operations, expected text)
TEXTS = [
    (
        "compacts-and-keeps-key-order",
        '{ "z": 1, "a": {"y": [1, 2], "b": 2} }',
        [PatchOperation(REPLACE, "/a/b", 3)],
        '{"z":1,"a":{"y":[1,2],"b":3}}',
    ),
    (
        "untouched-numbers-keep-their-text",
        '{"f": 1.50, "e": 1E3, "z": -0, "x": 0}',
        [PatchOperation(REPLACE, "/x", 1.5)],
        '{"f":1.50,"e":1E3,"z":-0,"x":1.5}',
    ),
    (
        "untouched-string-escapes-stay",
        '{"s": "caf\\u00e9 \\/", "x": 0}',
        [PatchOperation(REMOVE, "/x")],
        '{"s":"caf\\u00e9 \\/"}',
    ),
    (
        "html-escaped-in-raw-and-added-values",
        '{"s": "<a & b>"}',
        [PatchOperation(ADD, "/t", "x<y>")],
        '{"s":"\\u003ca \\u0026 b\\u003e","t":"x\\u003cy\\u003e"}',
    ),
    (
        "added-objects-have-sorted-keys",
        '{"list": []}',
        [PatchOperation(ADD, "/list/-", {"name": "n", "image": "i"})],
        '{"list":[{"image":"i","name":"n"}]}',
    ),
    (
        "parsed-keys-are-re-encoded",
        '{"\\u0041": {"b": 1}}',
        [PatchOperation(ADD, "/A/c", 2)],
        '{"A":{"b":1,"c":2}}',
    ),
    (
        "add-on-existing-key-keeps-position",
        '{"a": 1, "b": 2, "c": 3}',
        [PatchOperation(ADD, "/a", 9)],
        '{"a":9,"b":2,"c":3}',
    ),
    ("array-root", "[1, 2]", [PatchOperation(ADD, "/-", 3)], "[1,2,3]"),
    ("empty-document-is-returned-untouched", "", [PatchOperation(REPLACE, "/a", 1)], ""),
    ("float-values-in-go-style", "{}", [PatchOperation(ADD, "/f", 1e21)], '{"f":1e+21}'),
]


@pytest.mark.parametrize(
    ("text", "operations", "expected"), [t[1:] for t in TEXTS], ids=[t[0] for t in TEXTS]
)
def test_json_text_patch(text: str, operations: list[PatchOperation], expected: str) -> None:
    assert apply_patch_to_json(text, operations) == expected


@pytest.mark.parametrize(
    "text",
    ["{", "nope", '"a string"', "5", "null", " [1]", '{"a": NaN}'],
    ids=["truncated", "not-json", "string", "number", "null", "array-after-whitespace", "nan"],
)
def test_json_text_that_is_not_a_patchable_document(text: str) -> None:
    with pytest.raises(InvalidDocumentError):
        apply_patch_to_json(text, [PatchOperation(ADD, "/a", 1)])


def test_json_text_error_carries_the_operation_path() -> None:
    with pytest.raises(PatchError) as raised:
        apply_patch_to_json('{"a": 1}', [PatchOperation(REMOVE, "/b/c")])
    assert raised.value.path == "/b/c"
