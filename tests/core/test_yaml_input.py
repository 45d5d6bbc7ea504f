"""The YAML loader: go-yaml v2's values (what kubectl sees), strict keys, documents, positions and errors."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.codecs import yaml_input
from gitops_karmada.core.codecs.yaml_input import (
    MAX_DEPTH,
    KubernetesLoader,
    LoadedDocument,
    YamlSyntaxError,
    load_yaml_documents,
    resolve_plain_scalar,
)
from gitops_karmada.model.errors import InputError


def _same(actual: object, expected: object) -> bool:
    """Equal and of the same type (``1 == 1.0 == True`` would hide a wrong resolution), NaN equal to NaN."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(actual)  # type: ignore[arg-type]
    return actual == expected


def _body(text: str | bytes) -> Any:
    (document,) = load_yaml_documents(text)
    return document.body


# -- plain scalars: go-yaml v2's resolve table ---------------------------------------------------------------

INT64_MAX = 2**63 - 1
PLAIN_SCALARS = [
    # Kubernetes keeps these strings where PyYAML's SafeLoader does not.
    ("date stays a string", "2024-01-01", "2024-01-01"),
    ("timestamp stays a string", "2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    ("spaced timestamp stays a string", "2001-12-14 21:59:43.10", "2001-12-14 21:59:43.10"),
    ("sexagesimal int stays a string", "12:30", "12:30"),
    ("sexagesimal float stays a string", "1:20:30.5", "1:20:30.5"),
    ("value key is a string", "=", "="),
    ("merge key as a value is a string", "<<", "<<"),
    # YAML 1.1 booleans, as go-yaml v2 (and PyYAML) read them, plus go-yaml's y/n.
    ("yes", "yes", True),
    ("Yes", "Yes", True),
    ("YES", "YES", True),
    ("no", "no", False),
    ("on", "on", True),
    ("ON", "ON", True),
    ("off", "off", False),
    ("Off", "Off", False),
    ("y (go-yaml v2)", "y", True),
    ("Y (go-yaml v2)", "Y", True),
    ("n (go-yaml v2)", "n", False),
    ("N (go-yaml v2)", "N", False),
    ("true", "true", True),
    ("TRUE", "TRUE", True),
    ("False", "False", False),
    ("mixed case is a string", "yEs", "yEs"),
    ("mixed case true is a string", "tRUE", "tRUE"),
    ("null", "null", None),
    ("Null", "Null", None),
    ("NULL", "NULL", None),
    ("tilde", "~", None),
    ("empty", "", None),
    ("mixed case null is a string", "nULL", "nULL"),
    # Integers: strconv.ParseInt(s, 0, 64) after go-yaml deletes every "_".
    ("zero", "0", 0),
    ("negative zero int", "-0", 0),
    ("signed", "+1", 1),
    ("decimal", "8080", 8080),
    ("octal 1.1", "017", 15),
    ("octal 1.2", "0o17", 15),
    ("octal capital", "0O17", 15),
    ("hex", "0x1F", 31),
    ("hex capital", "0X1f", 31),
    ("negative hex", "-0x1F", -31),
    ("binary", "0b101", 5),
    ("binary capital", "0B101", 5),
    ("binary with sign after the prefix", "0b-1", -1),
    ("underscores", "1_000", 1000),
    ("double underscore", "1__0", 10),
    ("underscore in the prefix", "0_x1F", 31),
    ("int64 max", "9223372036854775807", INT64_MAX),
    ("uint64 max", "18446744073709551615", 2**64 - 1),
    ("beyond uint64 is a float", "18446744073709551616", 18446744073709551616.0),
    ("below int64 is a float", "-9223372036854775809", -9223372036854775809.0),
    # Floats: go-yaml's yamlStyleFloat, then strconv.ParseFloat.
    ("float", "1.5", 1.5),
    ("trailing dot", "1.", 1.0),
    ("leading dot", ".5", 0.5),
    ("signed leading dot", "+.5", 0.5),
    ("exponent without dot", "1e3", 1000.0),
    ("capital exponent", "12E3", 12000.0),
    ("negative exponent", "1E-3", 0.001),
    ("hex-looking revision that overflows is a string", "035e2982", "035e2982"),
    ("hex-looking revision that fits is a float", "035e29", 3.5e30),
    ("leading zero without octal digits", "08", 8.0),
    ("leading zero float", "09.5", 9.5),
    ("underscore in a float", "1_000.5", 1000.5),
    ("underscore after a leading dot", ".5_0", 0.5),
    ("overflow is a string", "1e400", "1e400"),
    ("overflow after a dot is a string", ".5e400", ".5e400"),
    ("underflow is zero", "1e-400", 0.0),
    ("inf", ".inf", math.inf),
    ("negative inf", "-.Inf", -math.inf),
    ("signed inf", "+.INF", math.inf),
    ("nan", ".nan", math.nan),
    ("NaN", ".NaN", math.nan),
    # Strings that look a little like numbers.
    ("dash", "-", "-"),
    ("plus", "+", "+"),
    ("dot", ".", "."),
    ("leading underscore", "_1", "_1"),
    ("inf word", "inf", "inf"),
    ("negative inf word", "-inf", "-inf"),
    ("signed nan", "-.nan", "-.nan"),
    ("dot exponent", ".e5", ".e5"),
    ("underscore after dot", "._5", "._5"),
    ("bare hex prefix", "0x", "0x"),
    ("bad binary digit", "0b2", "0b2"),
    ("hex float", "0x1p-2", "0x1p-2"),
    ("version", "1.2.3", "1.2.3"),
    ("dangling exponent", "1e", "1e"),
    ("double sign", "+-1", "+-1"),
    ("thousands separator", "1,000", "1,000"),
    ("quantity", "500m", "500m"),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in PLAIN_SCALARS], ids=[i for i, _, _ in PLAIN_SCALARS]
)
def test_plain_scalars_resolve_as_go_yaml_v2_does(text: str, expected: object) -> None:
    assert _same(resolve_plain_scalar(text), expected)
    assert _same(_body(f"k: [{text}]\n")["k"][0] if text == "-" else _body(f"k: {text}\n")["k"], expected)


@pytest.mark.parametrize("text", ["'yes'", '"12:30"', "'1e3'", '"~"', "|\n  on\n", ">\n  08\n"], ids=str)
def test_quoted_and_block_scalars_are_strings(text: str) -> None:
    assert type(_body(f"k: {text}")["k"]) is str


TAGGED_SCALARS = [
    ("str on a number", "!!str 12", "12"),
    ("int on a quoted number", "!!int '12'", 12),
    ("float on an int", "!!float 1", 1.0),
    ("bool on yes", "!!bool yes", True),
    ("null on empty", "!!null ''", None),
    ("timestamp", "!!timestamp 2001-01-01", "2001-01-01"),
    ("binary is decoded", "!!binary aGVsbG8=", "hello"),
    ("unknown local tag keeps the text", "!foo 12", "12"),
    ("non-specific tag", "! 12", "12"),
    ("full tag URI", "!<tag:yaml.org,2002:int> '7'", 7),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in TAGGED_SCALARS], ids=[i for i, _, _ in TAGGED_SCALARS]
)
def test_tagged_scalars(text: str, expected: object) -> None:
    assert _same(_body(f"k: {text}\n")["k"], expected)


def test_tags_on_collections_are_ignored() -> None:
    assert _body("s: !!set {a, b}\no: !!omap [x: 1]\nm: !thing {k: v}\n") == {
        "s": {"a": None, "b": None},
        "o": [{"x": 1}],
        "m": {"k": "v"},
    }


# -- merges and aliases --------------------------------------------------------------------------------------

MERGES = [
    (
        "alias merged, explicit key wins",
        "b: &b {x: 1, w: 2}\nd:\n  <<: *b\n  w: 3\n",
        {"b": {"x": 1, "w": 2}, "d": {"x": 1, "w": 3}},
    ),
    (
        "sequence of maps: earlier wins",
        "b: &b {x: 1}\nc: &c {x: 2, z: 3}\nd:\n  <<: [*b, *c]\n",
        {"b": {"x": 1}, "c": {"x": 2, "z": 3}, "d": {"x": 1, "z": 3}},
    ),
    ("explicit key before the merge still wins", "d:\n  w: 3\n  <<: {w: 1, q: 2}\n", {"d": {"w": 3, "q": 2}}),
    ("inline mapping", "<<: {a: 1}\nb: 2\n", {"a": 1, "b": 2}),
    ("explicit merge tag", "!!merge <<: {a: 1}\n", {"a": 1}),
    ("quoted << is an ordinary key", "'<<': {a: 1}\n", {"<<": {"a": 1}}),
    ("merge in a sequence item", "- &a {x: 1}\n- <<: *a\n  z: 2\n", [{"x": 1}, {"x": 1, "z": 2}]),
    ("two merge keys", "a: &a {x: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: *a\n  <<: *b\n", None),
]


@pytest.mark.parametrize(("text", "expected"), [(t, e) for _, t, e in MERGES], ids=[i for i, _, _ in MERGES])
def test_merge_keys(text: str, expected: object) -> None:
    body = _body(text)
    if expected is None:  # the two-merge-keys case: sources in order, earlier wins
        assert body["c"] == {"x": 1, "z": 2}
    else:
        assert body == expected


def test_merged_keys_come_first_in_their_order_then_the_explicit_keys() -> None:
    assert list(_body("d:\n  z: 0\n  <<: {w: 1, q: 2}\n  w: 3\n")["d"]) == ["w", "q", "z"]


def test_an_alias_is_a_fresh_copy_of_its_anchor() -> None:
    body = _body("a: &a {x: [1, {z: 2}]}\nb: *a\n")
    assert body["a"] == body["b"] == {"x": [1, {"z": 2}]}
    assert body["b"] is not body["a"]
    assert body["b"]["x"] is not body["a"]["x"]
    assert body["b"]["x"][1] is not body["a"]["x"][1]


def test_an_anchor_may_be_redefined() -> None:
    assert _body("a: &x 1\nb: *x\nc: &x 2\nd: *x\n") == {"a": 1, "b": 1, "c": 2, "d": 2}


# -- documents -----------------------------------------------------------------------------------------------

STREAMS: list[tuple[str, str | bytes, list[tuple[int, Any, int]]]] = [
    ("empty stream", "", []),
    ("only a comment", "# nothing\n", []),
    ("one implicit document", "a: 1\n", [(0, {"a": 1}, 1)]),
    ("two empty documents", "---\n---\n", [(0, None, 1), (1, None, 2)]),
    (
        "comments, an empty document and a scalar",
        "# c\n\na: 1\n---\n# x\n\n---\nb\n",
        [(0, {"a": 1}, 3), (1, None, 4), (2, "b", 7)],
    ),
    ("document end markers", "a\n---\nb\n--- c\n...\n", [(0, "a", 1), (1, "b", 2), (2, "c", 4)]),
    ("a directive starts the document", "%YAML 1.1\n---\na: 1\n", [(0, {"a": 1}, 1)]),
    ("explicit end then empty", "x: 1\n...\n---\n", [(0, {"x": 1}, 1), (1, None, 3)]),
    ("byte order mark", b"\xef\xbb\xbfa: 1\n", [(0, {"a": 1}, 1)]),
    ("null document", "null\n---\n~\n", [(0, None, 1), (1, None, 2)]),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in STREAMS], ids=[i for i, _, _ in STREAMS]
)
def test_documents_have_their_index_and_first_line(
    text: str | bytes, expected: list[tuple[int, Any, int]]
) -> None:
    documents = load_yaml_documents(text)
    assert [(d.index, d.body, d.line) for d in documents] == expected


def test_str_and_bytes_read_the_same() -> None:
    text = "a: é\n---\n- 1\n"
    assert load_yaml_documents(text) == load_yaml_documents(text.encode())


def test_loaded_documents_are_frozen() -> None:
    (document,) = load_yaml_documents("a: 1\n")
    assert document == LoadedDocument(index=0, body={"a": 1}, line=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        document.index = 1  # type: ignore[misc]


# -- errors --------------------------------------------------------------------------------------------------

ERRORS: list[tuple[str, str | bytes, int, int, int, str]] = [
    # (id, input, line, column, document index, message)
    (
        "mapping value in a plain scalar",
        "a: 1\nb: c: d\n",
        2,
        5,
        0,
        "mapping values are not allowed in this context",
    ),
    (
        "unclosed flow sequence in the second document",
        "a: 1\n---\nx: [1\n",
        4,
        1,
        1,
        "did not find expected ',' or ']' (while parsing a flow sequence at line 3 column 4)",
    ),
    (
        "bad token on a document marker",
        "a: 1\n--- @x\n",
        2,
        5,
        1,
        "found character that cannot start any token (while scanning for the next token at line 2 column 5)",
    ),
    ("tab indentation", "a:\n\tb: 1\n", 2, 1, 0, "found character that cannot start any token"),
    (
        "error after a directive",
        "%YAML 1.1\n---\na: 1\n---\nb: c: d\n",
        5,
        5,
        1,
        "mapping values are not allowed",
    ),
    (
        "control character",
        "x\n---\n\x01\n",
        3,
        1,
        1,
        "unacceptable character #x0001: control characters are not allowed",
    ),
    ("invalid utf-8", b"a: '\xff'\n", 1, 5, 0, "unacceptable character #x00ff: invalid leading UTF-8 octet"),
    (
        "lone surrogate in text",
        "a: 1\nb: \ud800\n",
        2,
        4,
        0,
        "unacceptable character #xd800: not valid Unicode",
    ),
    ("duplicate key", "a: 1\na: 2\n", 2, 1, 0, 'mapping key "a" already defined at line 1'),
    (
        "nested duplicate key",
        "x:\n  a: 1\n  b: 2\n  a: 3\n",
        4,
        3,
        0,
        'mapping key "a" already defined at line 2',
    ),
    (
        "duplicate key in a flow mapping",
        "{a: 1, a: 2}\n",
        1,
        8,
        0,
        'mapping key "a" already defined at line 1',
    ),
    (
        "duplicate key in a later document",
        "a: 1\n---\nb: 1\nc: 2\nb: 3\n",
        5,
        1,
        1,
        'mapping key "b" already defined',
    ),
    ("quoted and plain key are the same key", "a: 1\n'a': 2\n", 2, 1, 0, 'mapping key "a" already defined'),
    (
        "int key",
        "1: a\n",
        1,
        1,
        0,
        "mapping key 1 is a number, not a string; JSON object keys must be strings",
    ),
    ("float key", "- {1.5: x}\n", 1, 4, 0, "mapping key 1.5 is a number"),
    ("on key (GitHub Actions style)", "on: push\n", 1, 1, 0, "mapping key true is a boolean"),
    ("y key (go-yaml v2)", "x: 1\ny: 2\n", 2, 1, 0, "mapping key true is a boolean"),
    ("null key", "~: 1\n", 1, 1, 0, "mapping key null is a null"),
    ("empty explicit key", "? \n: 1\n", 1, 2, 0, "mapping key null is a null"),
    ("sequence key", "? [a]\n: 1\n", 1, 3, 0, "mapping key is a sequence; JSON object keys must be strings"),
    ("mapping key", "? {a: 1}\n: 1\n", 1, 3, 0, "mapping key is a mapping"),
    ("alias key to a number", "a: &x 1\n*x : b\n", 2, 1, 0, "mapping key 1 is a number"),
    ("recursive alias", "a: &a [1, *a]\n", 1, 11, 0, "anchor 'a' value contains itself"),
    ("unknown alias", "a: 1\n---\na: *nope\n", 3, 4, 1, "unknown anchor 'nope' referenced"),
    ("tag mismatch", "a: !!int abc\n", 1, 4, 0, "cannot decode !!str `abc` as a !!int"),
    ("bool tag on a number", "a: !!bool 1\n", 1, 4, 0, "cannot decode !!int `1` as a !!bool"),
    ("bad base64", "a: !!binary '%%%'\n", 1, 4, 0, "!!binary value contains invalid base64 data"),
    ("merge of a scalar", "<<: 1\n", 1, 1, 0, "map merge requires map or sequence of maps as the value"),
    (
        "merge of a list with a scalar",
        "a:\n  <<: [{b: 1}, 2]\n",
        2,
        3,
        0,
        "map merge requires map or sequence of maps",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "column", "doc_index", "message"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
def test_errors_name_line_column_and_document(
    text: str | bytes, line: int, column: int, doc_index: int, message: str
) -> None:
    with pytest.raises(YamlSyntaxError) as caught:
        load_yaml_documents(text)
    error = caught.value
    assert (error.line, error.column, error.doc_index) == (line, column, doc_index)
    assert error.problem.startswith(message)
    assert str(error) == error.message == f"line {line} column {column}: {error.problem}"
    assert isinstance(error, InputError)


def test_billion_laughs_is_refused() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [{', '.join(['*' + previous] * 10)}]")
    with pytest.raises(YamlSyntaxError, match="document contains excessive aliasing"):
        load_yaml_documents("\n".join(lines))


def test_moderate_aliasing_is_accepted() -> None:
    text = "base: &base {" + ", ".join(f"k{i}: {i}" for i in range(50)) + "}\n"
    text += "".join(f"copy{i}: *base\n" for i in range(10))
    assert _body(text)["copy9"]["k49"] == 49


# -- the PyYAML interface ------------------------------------------------------------------------------------


def test_pyyaml_api_reads_the_same_values() -> None:
    assert yaml.load("a: yes\nb: 2024-01-01\nc: 1e3\n", Loader=KubernetesLoader) == {
        "a": True,
        "b": "2024-01-01",
        "c": 1000.0,
    }
    assert list(yaml.load_all("a\n---\n---\nb\n", Loader=KubernetesLoader)) == ["a", None, "b"]
    assert yaml.load("", Loader=KubernetesLoader) is None


def test_pyyaml_single_document_api_refuses_a_stream() -> None:
    with pytest.raises(YamlSyntaxError, match="line 2 column 1: expected a single document in the stream"):
        yaml.load("a\n---\nb\n", Loader=KubernetesLoader)


def test_pyyaml_api_reports_syntax_errors_with_positions() -> None:
    with pytest.raises(YamlSyntaxError) as caught:
        list(yaml.load_all("a: 1\n---\nb: [\n", Loader=KubernetesLoader))
    assert (caught.value.line, caught.value.doc_index) == (4, 1)


def test_import_fails_clearly_without_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    # A private copy of the module, executed as if PyYAML had been built without libyaml.
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    spec = importlib.util.spec_from_file_location("yaml_input_without_libyaml", Path(yaml_input.__file__))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with pytest.raises(ImportError, match=r"PyYAML built with libyaml \(yaml.CSafeLoader\)"):
        spec.loader.exec_module(module)


def test_only_bytes_and_text_are_accepted() -> None:
    with pytest.raises(TypeError, match="expected the YAML as bytes or str, not list"):
        load_yaml_documents(["a: 1"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("a: !!python/object:foo {b: 1}\n", 4),
        ('c: !!python/int "5"\n', 4),
        ("d: !!ruby/array [1]\n", 4),
    ],
)
def test_language_specific_tags_are_errors(text: str, column: int) -> None:
    # go-yaml would drop the tag and change the value's type without a word: refuse it, naming the line
    with pytest.raises(YamlSyntaxError, match=r"line 1 column \d+: unsupported YAML tag !!\w+/") as caught:
        load_yaml_documents(text.encode())
    assert caught.value.column == column


def test_nesting_is_bounded_with_the_line_named() -> None:
    # the root mapping is one level, each flow sequence one more
    too_deep = "x: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n"
    with pytest.raises(YamlSyntaxError, match=f"line 1 column {MAX_DEPTH + 3}: nested more than {MAX_DEPTH}"):
        load_yaml_documents(too_deep.encode())
    at_the_limit = "x: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    assert load_yaml_documents(at_the_limit.encode())[0].body is not None


def test_field_lines_locate_keys_and_items_of_one_document() -> None:
    from gitops_karmada.core.codecs.yaml_input import field_lines, line_of_field

    raw = b"# one\n---\nkind: A\nspec:\n  items:\n  - name: x\n  - name: y\n    weight: 0\n---\nkind: B\n"
    lines = field_lines(raw, 0)
    assert lines["kind"] == 3 and lines["spec.items[1]"] == 7 and lines["spec.items[1].weight"] == 8
    assert line_of_field(lines, "spec.items[1].missing") == 7  # the nearest ancestor
    assert line_of_field(lines, "other") == 0
    assert field_lines(raw, 1) == {"kind": 10}
    assert field_lines(b"a: [unclosed\n", 0) == {}
    nested = b"a:\n" + b"".join(b"  " * i + b"- \n" for i in range(1, 200))
    assert len(field_lines(nested, 0)) == 200  # "a" and its 199 nested items, walked without recursion
    too_deep = b"a:\n" + b"".join(b"  " * i + b"- \n" for i in range(1, 5000))
    assert field_lines(too_deep, 0) == {}  # libyaml refuses it; the caller falls back to the document's line
