"""client-go JSONPath templates: syntax, printing (Go's float64 %v, json.Marshal), errors and bounds.

Expected outputs are worked out from k8s.io/client-go/util/jsonpath (parser.go, jsonpath.go) over data as
Karmada decodes it (every number a float64).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.codecs.jsonpath import (
    MAX_NESTING,
    MAX_RESULT_BYTES,
    MAX_STEPS,
    MAX_TEMPLATE_LENGTH,
    JSONPathError,
    _Parser,
    evaluate_template,
    go_format_float,
    go_json_float,
)

DATA: dict[str, Any] = {
    "kind": "List",
    "nulls": [{"z": None}],
    "items": [
        {
            "name": "a",
            "replicas": 1,
            "ready": True,
            "tags": ["x", "y"],
            "labels": {"app.kubernetes.io/name": "web", "tier": "fe"},
        },
        {"name": "b", "replicas": 3, "ready": False, "tags": [], "labels": {}},
    ],
    "status": {
        "conditions": [
            {"type": "Ready", "status": "True", "reason": "Up"},
            {"type": "Synced", "status": "False", "reason": "Lag"},
        ],
        "count": 1000000,
        "ratio": 0.5,
        "phase": None,
        "empty": "",
        "nested": {"b": [1, {"z": None}], "a": "<x&y>"},
    },
}


def _cases(table: list[tuple[str, str, str]]) -> list[Any]:
    return [pytest.param(template, expected, id=name) for name, template, expected in table]


LITERAL_TEXT = [
    ("empty-template", "", ""),
    ("plain", "true", "true"),
    ("closing-brace-outside-action", "a } b", "a } b"),
    ("text-around-action", "a{.kind}b", "aListb"),
    ("blocks-concatenate", "{.kind}{.kind}", "ListList"),
    ("blocks-with-text-between", "{.kind}-{.items[0].name}", "List-a"),
    ("double-quoted-newline", '{"\\n"}', "\n"),
    ("single-quoted", "{'x'}", "x"),
    ("quoted-tab", '{"a\\tb"}', "a\tb"),
    ("quoted-unicode-escape", "{'\\u00e9'}", "é"),
    ("quoted-hex-escape", '{"\\x41"}', "A"),
    ("quoted-octal-escape", '{"\\101"}', "A"),
    ("other-quote-inside", '{"it\'s"}', "it's"),
    ("escaped-own-quote", '{"say \\"hi\\""}', 'say "hi"'),
    ("quoted-braces", "{'{}'}", "{}"),
    ("literal-int", "{1}", "1"),
    ("literal-float", "{2.50}", "2.5"),
    ("literal-bool", "{true}{false}", "truefalse"),
    ("literal-per-input", "{.items[*] 7}", "7 7"),
]

FIELDS = [
    ("field", "{.kind}", "List"),
    ("nested-field", "{.items[0].name}", "a"),
    ("leading-dollar", "{$.kind}", "List"),
    ("current-node", "{@.kind}", "List"),
    ("spaces-inside", "{ .kind }", "List"),
    ("space-continues-path", "{.items[0] .name}", "a"),
    ("bracket-key", "{['kind']}", "List"),
    ("bracket-keys-chained", "{.items[0]['labels']['tier']}", "fe"),
    ("escaped-dots", "{.items[0].labels.app\\.kubernetes\\.io/name}", "web"),
    ("bracket-key-escaped-dots", "{.items[0].labels['app\\.kubernetes\\.io/name']}", "web"),
    # a bracket key is re-parsed as .key, so its dots separate fields as in client-go
    ("bracket-key-dots-are-a-path", "{['status.ratio']}", "0.5"),
    ("numeric-key", "{.m.0}", "zero"),
    ("empty-string-value", "{.status.empty}", ""),
]

ARRAYS = [
    ("index", "{.items[1].name}", "b"),
    ("negative-index", "{.items[-1].name}", "b"),
    ("negative-index-2", "{.items[-2].name}", "a"),
    ("empty-brackets-mean-0", "{.items[].name}", "a"),
    ("star", "{.items[*].name}", "a b"),
    ("slice", "{.items[0:1].name}", "a"),
    ("slice-open-end", "{.items[1:].name}", "b"),
    ("slice-open-start", "{.items[:1].name}", "a"),
    ("slice-negative-end", "{.items[:-1].name}", "a"),
    ("slice-step", "{.items[::2].name}", "a"),
    ("slice-full", "{.items[0:2:1].name}", "a b"),
    ("slice-empty", "{.items[1:1].name}", ""),
    ("star-on-empty-list", "{.items[1].tags[*]}", ""),
    # client-go returns from evalArray on the first empty selection, dropping later inputs' elements
    ("empty-selection-stops-the-rest", "{.items[*].tags[*]}", "x y"),
    ("union-indexes", "{.items[0,1].name}", "a b"),
    ("union-order-kept", "{.items[1,0].name}", "b a"),
    ("union-keys", "{.items[0]['name','replicas']}", "a 1"),
    ("union-keys-with-spaces", "{.items[0]['name', 'replicas']}", "a 1"),
    ("union-by-member-then-input", "{.items[*]['name','replicas']}", "a b 1 3"),
]

WILDCARD_AND_RECURSION = [
    ("map-wildcard-sorted-keys", "{.items[0].labels.*}", "web fe"),
    ("list-wildcard", "{.items[0].tags.*}", "x y"),
    ("string-wildcard-yields-bytes", "{.kind.*}", "76 105 115 116"),
    ("recursive-field", "{..reason}", "Up Lag"),
    ("recursive-nulls", "{..z}", "<nil> <nil>"),
    ("recursive-then-index", "{.status.nested..b[0]}", "1"),
    ("recursive-field-names", "{.items..name}", "a b"),
]

FILTERS = [
    ("equal-string", '{.status.conditions[?(@.type=="Ready")].reason}', "Up"),
    ("single-quoted-operand", "{.status.conditions[?(@.type=='Synced')].reason}", "Lag"),
    ("not-equal", "{.status.conditions[?(@.type!='Ready')].reason}", "Lag"),
    ("spaces-around-operator", '{.status.conditions[?(@.type == "Synced")].status}', "False"),
    ("dollar-is-current-element", '{.status.conditions[?($.type=="Ready")].reason}', "Up"),
    ("greater-float", "{.items[?(@.replicas>1.0)].name}", "b"),
    ("less-float", "{.items[?(@.replicas<3.0)].name}", "a"),
    ("greater-equal", "{.items[?(@.replicas>=3.0)].name}", "b"),
    ("less-equal", "{.items[?(@.replicas<=1.0)].name}", "a"),
    ("greater-equal-all", "{.items[?(@.replicas>=1.0)].name}", "a b"),
    ("bool-equal", "{.items[?(@.ready==true)].name}", "a"),
    ("bool-not-equal", "{.items[?(@.ready!=true)].name}", "b"),
    ("string-less", '{.items[?(@.name<"b")].name}', "a"),
    ("field-to-field", "{.status.conditions[?(@.type==@.reason)].reason}", ""),
    ("exists", "{.status.conditions[?(@.reason)].type}", "Ready Synced"),
    ("exists-empty-list-counts", "{.items[?(@.tags)].name}", "a b"),
    ("exists-missing", "{.items[?(@.missing)].name}", ""),
    # an existence filter ignores the error and keeps the element when evalArray handed its input back
    ("exists-out-of-range-keeps", "{.items[?(@.tags[0])].name}", "a b"),
    ("filter-then-index", "{.status.conditions[?(@.status=='True')].type}", "Ready"),
]

RANGES = [
    ("range", "{range .items[*]}{.name}:{.replicas};{end}", "a:1;b:3;"),
    ("range-with-newlines", '{range .items[*]}{.name}{"\\n"}{end}', "a\nb\n"),
    ("range-then-text", "{range .items[*]}[{.name}]{end}done", "[a][b]done"),
    ("range-values-joined", "{range .items[*]}{.tags[*]}|{end}", "x y||"),
    ("nested-range", "{range .items[*]}{range .tags[*]}{@}{end}|{end}", "xy||"),
    ("range-over-empty", "{range .items[1].tags[*]}{@}{end}after", "after"),
    ("range-over-one-value", "{range .status}{.ratio}{end}", "0.5"),
    ("two-ranges", "{range .items[*]}{.name}{end}{range .items[*]}{.replicas}{end}", "ab13"),
]

PRINTING = [
    ("null-prints-nil", "{.status.phase}", "<nil>"),
    ("true", "{.items[0].ready}", "true"),
    ("false", "{.items[1].ready}", "false"),
    ("float-half", "{.status.ratio}", "0.5"),
    ("million-exponent", "{.status.count}", "1e+06"),
    ("ints-are-float64", "{.items[*].replicas}", "1 3"),
    ("list-compact-json", "{.items[0].tags}", '["x","y"]'),
    ("empty-map", "{.items[1].labels}", "{}"),
    ("empty-list", "{.items[1].tags}", "[]"),
    ("map-html-escaped-sorted", "{.status.nested}", '{"a":"\\u003cx\\u0026y\\u003e","b":[1,{"z":null}]}'),
    ("string-raw", "{.status.nested.a}", "<x&y>"),
    ("results-joined-by-space", "{.status.conditions[*].type}", "Ready Synced"),
    ("map-and-scalars-joined", "{.items[*].labels}", '{"app.kubernetes.io/name":"web","tier":"fe"} {}'),
    ("whole-element", "{.items[1]}", '{"labels":{},"name":"b","ready":false,"replicas":3,"tags":[]}'),
]


@pytest.mark.parametrize(
    ("template", "expected"),
    _cases(LITERAL_TEXT + FIELDS + ARRAYS + WILDCARD_AND_RECURSION + FILTERS + RANGES + PRINTING),
)
def test_template(template: str, expected: str) -> None:
    assert evaluate_template(template, DATA | {"m": {"0": "zero"}}) == expected


def test_empty_action_and_current_node_print_the_root() -> None:
    data = {"b": [1, 2.5], "a": "x"}
    assert evaluate_template("{}", data) == '{"a":"x","b":[1,2.5]}'
    assert evaluate_template("{@}", data) == '{"a":"x","b":[1,2.5]}'


def test_an_empty_selection_drops_the_elements_of_later_inputs() -> None:
    # evalArray returns as soon as one input selects zero elements (client-go's "allow it through")
    assert evaluate_template("{.l[*].t[*]}", {"l": [{"t": ["x"]}, {"t": []}, {"t": ["y"]}]}) == "x"
    assert evaluate_template("{.l[*].t[*]}", {"l": [{"t": []}, {"t": ["y"]}]}) == ""
    assert evaluate_template("{.l[*].t[0:0]}", {"l": [{"t": ["x"]}, {"t": ["y"]}]}) == ""


def test_nil_root_and_null_range_elements_are_no_value() -> None:
    # reflect.ValueOf(nil) is an invalid Value: PrintableValue gives "<no value>", unlike a null in a map
    assert evaluate_template("{@}", None) == "<no value>"
    assert evaluate_template("{range .l[*]}{@},{end}", {"l": [None, 1, "s"]}) == "<no value>,1,s,"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        pytest.param("{.missing}", "", id="missing-key"),
        pytest.param("{.items[*].missing}", "", id="missing-in-all"),
        pytest.param("{.kind}{.missing}{.kind}", "ListList", id="missing-between"),
        pytest.param("{range .items[*]}{.name}", "ab", id="range-without-end-reruns-body-on-root"),
        pytest.param("{range .items[1].tags[*]}{.name}{end}x", "x", id="empty-range-body"),
        pytest.param("{.items[?(@.missing=='x')].name}", "", id="filter-on-missing"),
    ],
)
def test_allow_missing_keys(template: str, expected: str) -> None:
    assert evaluate_template(template, DATA, allow_missing_keys=True) == expected


def test_allow_missing_keys_does_not_excuse_an_index_out_of_range() -> None:
    with pytest.raises(JSONPathError, match="array index out of bounds: index 5, length 2"):
        evaluate_template("{.items[5]}", DATA, allow_missing_keys=True)


# --- numbers ---------------------------------------------------------------------------------------------

FLOAT_V = [
    (1000000, "1e+06"),
    (100000, "100000"),
    (123456, "123456"),
    (999999, "999999"),
    (999999.5, "999999.5"),
    (1234567, "1.234567e+06"),
    (12345678, "1.2345678e+07"),
    (123456789, "1.23456789e+08"),
    (1735689600000, "1.7356896e+12"),
    (0.5, "0.5"),
    (1.5, "1.5"),
    (3.14159, "3.14159"),
    (0.1 + 0.2, "0.30000000000000004"),
    (2, "2"),
    (-3, "-3"),
    (-1234.5, "-1234.5"),
    (100, "100"),
    (0, "0"),
    (0.0, "0"),
    (-0.0, "-0"),
    (0.0001, "0.0001"),
    (0.00012, "0.00012"),
    (0.00001, "1e-05"),
    (0.000015, "1.5e-05"),
    (1.5e-7, "1.5e-07"),
    (1e21, "1e+21"),
    (1e20, "1e+20"),
    (1e100, "1e+100"),
    (1e-300, "1e-300"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (2**53, "9.007199254740992e+15"),
    (9007199254740993, "9.007199254740992e+15"),
    (math.inf, "+Inf"),
    (-math.inf, "-Inf"),
    (math.nan, "NaN"),
]


@pytest.mark.parametrize(("number", "text"), [pytest.param(n, t, id=repr(n)) for n, t in FLOAT_V])
def test_numbers_print_as_go_float64_v(number: float, text: str) -> None:
    assert go_format_float(float(number)) == text
    assert evaluate_template("{.v}", {"v": number}) == text


FLOAT_JSON = [
    (1000000, "1000000"),
    (1735689600000, "1735689600000"),
    (123456789, "123456789"),
    (1e20, "100000000000000000000"),
    (1e21, "1e+21"),
    (1.5e300, "1.5e+300"),
    (0.5, "0.5"),
    (0.000001, "0.000001"),
    (1e-7, "1e-7"),
    (1.5e-7, "1.5e-7"),
    (1e-10, "1e-10"),
    (-0.0, "-0"),
    (-2, "-2"),
    (9007199254740993, "9007199254740992"),
]


@pytest.mark.parametrize(("number", "text"), [pytest.param(n, t, id=repr(n)) for n, t in FLOAT_JSON])
def test_numbers_inside_json_print_as_encoding_json(number: float, text: str) -> None:
    assert go_json_float(float(number)) == text
    assert evaluate_template("{.v}", {"v": [number]}) == f"[{text}]"


def test_json_string_escapes_like_go() -> None:
    data = {"v": {"s": 'a"b\\c\n\t\r\b\f\x01<>&\u2028é'}}
    assert (
        evaluate_template("{.v}", data)
        == '{"s":"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u003c\\u003e\\u0026\\u2028é"}'
    )


def test_json_keys_sorted_bytewise_at_every_level() -> None:
    data = {"v": {"b": 1, "a": {"d": 2, "c": [{"y": True, "x": None}]}, "B": 0}}
    assert evaluate_template("{.v}", data) == '{"B":0,"a":{"c":[{"x":null,"y":true}],"d":2},"b":1}'


# --- errors ----------------------------------------------------------------------------------------------

PARSE_ERRORS = [
    ("bad-character", "{ %health }", "unrecognized character in action: U+0025 '%'"),
    ("tab-not-printed", "{\t.kind}", "unrecognized character in action: U+0009"),
    ("star-after-recursive", "{..*}", "unrecognized character in action: U+002A '*'"),
    ("nested-brace", "{{.kind}}", "unrecognized character in action: U+007B '{'"),
    ("unclosed-action", "{.kind", "unclosed action"),
    ("lone-brace", "{", "unclosed action"),
    ("newline-in-action", "{.kind\n}", "unclosed action"),
    ("unterminated-double-quote", '{"abc}', "unterminated quoted string"),
    ("unterminated-single-quote", "{'abc", "unterminated quoted string"),
    ("bad-escape", '{"\\q"}', "error invalid syntax"),
    ("wrong-quote-escape", '{"\\\'"}', "error invalid syntax"),
    ("unterminated-array", "{.items[0}", "unterminated array"),
    ("bad-index", "{.items[x]}", "invalid array index x"),
    ("double-quoted-key", '{.items["name"]}', 'invalid array index "name"'),
    ("bad-slice", "{.items[1-]}", "invalid array index 1-"),
    ("index-not-a-number", "{.items[-]}", "array index - is not a number"),
    ("index-overflow", "{.items[99999999999999999999]}", "array index 99999999999999999999 is not a number"),
    ("unterminated-filter", "{.items[?(@.a}", "unterminated filter"),
    ("filter-without-bracket", "{.items[?(@.a)}", "unclosed array expect ]"),
    ("double-recursive", "{....a}", "invalid multiple recursive descent"),
    ("lone-sign", "{-}", "cannot parse number -"),
    ("two-dots-number", "{1.2.3}", "cannot parse number 1.2.3"),
]

EVAL_ERRORS = [
    ("missing-key", "{.kind.missing}", "missing is not found"),
    ("missing-top", "{.jobStatus.jobId}", "jobStatus is not found"),
    ("below-null", "{.status.phase.x}", "x is not found"),
    ("missing-in-every-element", "{.items[*].missing}", "missing is not found"),
    ("index-out-of-range", "{.items[5]}", "array index out of bounds: index 5, length 2"),
    ("negative-out-of-range", "{.items[-3]}", "array index out of bounds: index -1, length 2"),
    ("index-on-empty", "{.items[1].tags[0]}", "array index out of bounds: index 0, length 0"),
    ("slice-end-out-of-range", "{.items[0:5]}", "array index out of bounds: index 4, length 2"),
    ("slice-reversed", "{.items[1:0]}", "starting index 1 is greater than ending index 0"),
    ("zero-step", "{.items[0:2:0]}", "step must be > 0"),
    ("negative-step", "{.items[::-1]}", "step must be > 0"),
    ("index-a-string", "{.kind[0]}", "string is not array or slice"),
    ("index-a-map", "{.status[0]}", "map[string]interface {} is not array or slice"),
    (
        "filter-a-map",
        "{.items[0].labels[?(@.x)]}",
        "map[app.kubernetes.io/name:web tier:fe] is not array or slice and cannot be filtered",
    ),
    ("filter-null", "{.status.phase[?(@.x)]}", "<nil> is not array or slice and cannot be filtered"),
    ("int-literal-vs-float64", "{.items[?(@.replicas==1)]}", "incompatible types for comparison"),
    ("string-vs-float", "{.items[?(@.name==1.0)]}", "incompatible types for comparison"),
    ("ordering-bools", "{.items[?(@.ready<true)]}", "invalid type for comparison"),
    ("comparing-a-list", "{.items[?(@.tags=='x')]}", "invalid type for comparison"),
    ("comparing-null", "{.nulls[?(@.z=='x')]}", "invalid type for comparison"),
    ("several-operands", "{.items[?(@.tags[*]=='x')]}", "can only compare one element at a time"),
    ("operator-single-equals", "{.items[?(@.name='a')]}", "unrecognized filter operator ="),
    ("operator-triple-equals", "{.items[?(@.name==='a')]}", "unrecognized filter operator ==="),
    ("comparison-on-missing-key", "{.items[?(@.missing=='x')]}", "missing is not found"),
    ("end-outside-range", "{end}", "not in range, nothing to end"),
    ("unknown-identifier", "{foo}", "unrecognized identifier foo"),
    ("path-without-dot", "{jobStatus.jobId}", "unrecognized identifier jobStatus"),
    # the body runs again over the root after the last element when `end` is missing
    ("range-without-end", "{range .items[*]}{.name}", "name is not found"),
    # the body of a range over nothing still runs (over no value) to find its end, and its errors count
    ("range-over-empty-missing-key", "{range .items[1].tags[*]}{.name}{end}", "name is not found"),
]


@pytest.mark.parametrize(("template", "message"), _cases(PARSE_ERRORS + EVAL_ERRORS))
def test_errors(template: str, message: str) -> None:
    with pytest.raises(JSONPathError) as raised:
        evaluate_template(template, DATA)
    assert message in str(raised.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param({"v": [math.nan]}, "json: unsupported value: NaN", id="nan-in-json"),
        pytest.param({"v": {"x": math.inf}}, "json: unsupported value: +Inf", id="inf-in-json"),
        pytest.param({"v": b"bytes"}, "can't print type bytes", id="unprintable"),
        pytest.param({"v": [object()]}, "json: unsupported type: object", id="unsupported-in-json"),
        pytest.param({"v": {1: "x"}}, "JSON object keys are strings", id="non-string-key"),
        pytest.param({"v": 10**400}, "cannot unmarshal number", id="int-beyond-float64"),
    ],
)
def test_data_go_cannot_print(data: dict[str, Any], message: str) -> None:
    with pytest.raises(JSONPathError) as raised:
        evaluate_template("{.v}", data)
    assert message in str(raised.value)


# --- bounds ----------------------------------------------------------------------------------------------


def test_template_length_bound() -> None:
    assert evaluate_template("x" * MAX_TEMPLATE_LENGTH, {}) == "x" * MAX_TEMPLATE_LENGTH
    with pytest.raises(JSONPathError, match="template longer than 4096 characters"):
        evaluate_template("x" * (MAX_TEMPLATE_LENGTH + 1), {})


def test_range_nesting_bound() -> None:
    deepest = "{range @}" * MAX_NESTING + "x" + "{end}" * MAX_NESTING
    assert evaluate_template(deepest, {"a": 1}) == "x"
    too_deep = "{range @}" * (MAX_NESTING + 1) + "x" + "{end}" * (MAX_NESTING + 1)
    with pytest.raises(JSONPathError, match="range blocks nested deeper than 64"):
        evaluate_template(too_deep, {"a": 1})


def test_parse_nesting_bound() -> None:
    # bracket keys, unions and filters are parsed as nested templates; the guard stops runaway nesting
    assert _Parser("{['a','b']}", MAX_NESTING - 2).parse()
    with pytest.raises(JSONPathError, match="template nesting deeper than 64"):
        _Parser("{['a','b']}", MAX_NESTING).parse()


def _nested(depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    cur = data
    for _ in range(depth):
        cur["x"] = {}
        cur = cur["x"]
    return data


@pytest.mark.parametrize("template", ["{..x}", "{@}"])
def test_data_nesting_bound(template: str) -> None:
    assert evaluate_template(template, _nested(MAX_NESTING - 1)) != ""
    with pytest.raises(JSONPathError, match="data nested deeper than 64 levels"):
        evaluate_template(template, _nested(MAX_NESTING + 2))


def _cyclic() -> dict[str, Any]:
    cyclic: dict[str, Any] = {"l": []}
    cyclic["l"].append(cyclic["l"])
    cyclic["x"] = cyclic
    return cyclic


@pytest.mark.parametrize("template", ["{..x}", "{@}", "{.l[0][0][0][0]}", "{.x.x.x.x.l}"])
def test_cyclic_data_does_not_hang(template: str) -> None:
    with pytest.raises(JSONPathError, match="data nested deeper than 64 levels"):
        evaluate_template(template, _cyclic())


def test_result_size_bound() -> None:
    half = "x" * (MAX_RESULT_BYTES // 2)
    assert len(evaluate_template("{.s}{.s}", {"s": half})) == MAX_RESULT_BYTES
    with pytest.raises(JSONPathError, match="result larger than 1048576 bytes"):
        evaluate_template("{.s}{.s}x", {"s": half})
    with pytest.raises(JSONPathError, match="result larger than"):
        evaluate_template("{.s}", {"s": "é" * (MAX_RESULT_BYTES // 2 + 1)})  # counted in UTF-8 bytes


@pytest.mark.parametrize(
    ("template", "data"),
    [
        pytest.param("{range @}" * 40, {"a": 1}, id="ranges-without-end-double-each-time"),
        pytest.param("{.l" + "[0,0,0,0,0,0,0,0,0,0]" * 8 + "}", _cyclic(), id="chained-unions-multiply"),
    ],
)
def test_step_bound(template: str, data: Any) -> None:
    with pytest.raises(JSONPathError, match=f"evaluation takes more than {MAX_STEPS} steps"):
        evaluate_template(template, data)


ALPHABET = [*".[]{}()?@$*:,'\"\\=!<>- 0123456789abnrtxz", "range", "end", "..", "[?(", "true", "\n"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join))
def test_no_template_crashes(template: str) -> None:
    # anything goes, as long as it is a string or a JSONPathError (never another exception or a hang)
    try:
        result = evaluate_template(template, DATA)
    except JSONPathError as err:
        assert str(err)
    else:
        assert isinstance(result, str)
