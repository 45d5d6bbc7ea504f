"""The YAML emitter: exact text for tricky scalars and layouts, and a round trip under three readers.

Every emitted document must read back as the value that was dumped under our go-yaml-v2-like loader,
PyYAML's libyaml ``CSafeLoader`` (YAML 1.1) and ruamel.yaml's pure-Python safe loader (YAML 1.2).
"""

from __future__ import annotations

import copy
import enum
import math
import re
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from gitops_karmada.core.codecs.serialize import dump_yaml, dump_yaml_documents, load_yaml_documents

if TYPE_CHECKING:
    from collections.abc import Callable

_RUAMEL = YAML(typ="safe", pure=True)


def _ours(text: str) -> Any:
    (document,) = load_yaml_documents(text)
    return document.body


def _pyyaml(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


def _ruamel(text: str) -> Any:
    return _RUAMEL.load(text)


READERS: dict[str, Callable[[str], Any]] = {"ours": _ours, "pyyaml-1.1": _pyyaml, "ruamel-1.2": _ruamel}


def _assert_reads_back(value: object, text: str) -> None:
    for name, read in READERS.items():
        assert read(text) == value, f"{name} read {text!r} differently"


# -- scalars -------------------------------------------------------------------------------------------------

# (string, how it is written). Plain only when no reader takes it for anything but that string.
STRING_CASES = [
    ("plain word", "nginx", "nginx"),
    ("plain path", "app.kubernetes.io/name", "app.kubernetes.io/name"),
    ("plain image with colon", "registry.io/nginx:1.25.3", "registry.io/nginx:1.25.3"),
    ("plain url", "http://example.com/a?b=c#d", "http://example.com/a?b=c#d"),
    ("plain inner spaces", "hello  big world", "hello  big world"),
    ("plain flag", "--port=8080", "--port=8080"),
    ("plain single dash flag", "-c", "-c"),
    ("plain quantity", "500m", "500m"),
    ("plain percent", "25%", "25%"),
    ("plain ipv4", "10.0.0.1", "10.0.0.1"),
    ("plain version", "1.25.3", "1.25.3"),
    ("plain ipv6", "2001:db8::1", "2001:db8::1"),
    ("plain inner hash", "a#b", "a#b"),
    ("plain inner indicators", "a,b[0]{c}&d*e!f|g>h'i\"j", "a,b[0]{c}&d*e!f|g>h'i\"j"),
    ("plain unicode", "日本語-é", "日本語-é"),
    ("plain tilde prefix", "~user", "~user"),
    ("plain merge-like", "<<x", "<<x"),
    ("plain dots", ".hidden", ".hidden"),
    ("plain inf word", "inf", "inf"),
    ("plain nan word", "NaN", "NaN"),
    ("plain underscore word", "ENABLE_CACHE", "ENABLE_CACHE"),
    ("plain leading underscore word", "_x", "_x"),
    ("empty", "", '""'),
    ("hex revision (go-yaml: float)", "035e2982", '"035e2982"'),
    ("exponent without dot", "1e10", '"1e10"'),
    ("exponent capital", "12E3", '"12E3"'),
    ("exponent with sign", "1.5e+20", '"1.5e+20"'),
    ("octal 1.2", "0o17", '"0o17"'),
    ("octal 1.1", "017", '"017"'),
    ("leading zero decimal (go-yaml: float)", "08", '"08"'),
    ("hex", "0x1F", '"0x1F"'),
    ("binary", "0b101", '"0b101"'),
    ("underscored int", "1_000", '"1_000"'),
    ("underscores only (ruamel 1.2: int)", "_", '"_"'),
    ("underscore inside hex prefix (go-yaml: 31)", "0_x1F", '"0_x1F"'),
    ("signed int", "+1", '"+1"'),
    ("negative int", "-1", '"-1"'),
    ("int", "3", '"3"'),
    ("float", "1.5", '"1.5"'),
    ("float without fraction", "1.", '"1."'),
    ("float without integer", ".5", '".5"'),
    ("go float with underscore", ".5_0", '".5_0"'),
    ("sexagesimal int", "12:30", '"12:30"'),
    ("sexagesimal float", "1:20:30.5", '"1:20:30.5"'),
    ("port mapping", "8080:80", '"8080:80"'),
    ("infinity", ".inf", '".inf"'),
    ("negative infinity", "-.Inf", '"-.Inf"'),
    ("not a number", ".NaN", '".NaN"'),
    ("date", "2024-01-01", '"2024-01-01"'),
    ("timestamp", "2001-12-14t21:59:43.10-05:00", '"2001-12-14t21:59:43.10-05:00"'),
    ("date-like prefix", "2024-01-01-release", '"2024-01-01-release"'),
    ("yes", "yes", '"yes"'),
    ("On", "On", '"On"'),
    ("OFF", "OFF", '"OFF"'),
    ("y (go-yaml v2: true)", "y", '"y"'),
    ("N (go-yaml v2: false)", "N", '"N"'),
    ("true", "true", '"true"'),
    ("odd casing", "tRuE", '"tRuE"'),
    ("null", "null", '"null"'),
    ("Null", "Null", '"Null"'),
    ("tilde", "~", '"~"'),
    ("merge key", "<<", '"<<"'),
    ("value key (YAML 1.1)", "=", '"="'),
    ("leading space", " a", '" a"'),
    ("trailing space", "a ", '"a "'),
    ("colon space", "a: b", '"a: b"'),
    ("trailing colon", "a:", '"a:"'),
    ("space hash", "a #b", '"a #b"'),
    ("dash", "-", '"-"'),
    ("dash space", "- x", '"- x"'),
    ("document start", "---", '"---"'),
    ("document start prefix", "---x", '"---x"'),
    ("document end", "...", '"..."'),
    ("question mark", "?x", '"?x"'),
    ("colon first", ":x", '":x"'),
    ("comma first", ",x", '",x"'),
    ("flow sequence", "[a]", '"[a]"'),
    ("flow mapping", "{a}", '"{a}"'),
    ("comment", "#x", '"#x"'),
    ("anchor", "&x", '"&x"'),
    ("alias", "*x", '"*x"'),
    ("tag", "!x", '"!x"'),
    ("literal", "|x", '"|x"'),
    ("folded", ">x", '">x"'),
    ("single quote", "'x'", "\"'x'\""),
    ("double quote", '"x"', '"\\"x\\""'),
    ("directive", "%x", '"%x"'),
    ("reserved at", "@x", '"@x"'),
    ("reserved backquote", "`x", '"`x"'),
    ("backslash", "a\\b", "a\\b"),
    ("backslash at the end", "1\\", "1\\"),
    ("quoted backslash", "x: \\", '"x: \\\\"'),
    ("tab", "a\tb", '"a\\tb"'),
    ("carriage return", "a\rb", '"a\\rb"'),
    ("nul", "\x00", '"\\u0000"'),
    ("delete", "\x7f", '"\\u007f"'),
    ("next line (YAML 1.1 break)", "a\x85b", '"a\\u0085b"'),
    ("line separator", "a\u2028b", '"a\\u2028b"'),
    ("byte order mark", "\ufeffa", '"\\ufeffa"'),
    ("non-character", "\uffff", '"\\uffff"'),
    ("non-breaking space is quoted (invisible)", "a\xa0b", '"a\xa0b"'),
    ("astral plane", "\U0001f600", "\U0001f600"),
    ("private use is not printable for Python: quoted", "\ue000", '"\ue000"'),
]


@pytest.mark.parametrize(
    ("value", "text"), [(v, t) for _, v, t in STRING_CASES], ids=[i for i, _, _ in STRING_CASES]
)
def test_string_values_are_written_exactly_and_read_back(value: str, text: str) -> None:
    document = dump_yaml({"k": value})
    assert document == f"k: {text}\n"
    _assert_reads_back({"k": value}, document)


@pytest.mark.parametrize(
    ("value", "text"), [(v, t) for _, v, t in STRING_CASES], ids=[i for i, _, _ in STRING_CASES]
)
def test_keys_follow_the_same_quoting(value: str, text: str) -> None:
    document = dump_yaml({value: 1})
    assert document == f"{text}: 1\n"
    _assert_reads_back({value: 1}, document)


SCALAR_CASES = [
    ("zero", 0, "0"),
    ("negative", -42, "-42"),
    ("int64 max", 2**63 - 1, "9223372036854775807"),
    ("true", True, "true"),
    ("false", False, "false"),
    ("null", None, "null"),
    ("float", 1.5, "1.5"),
    ("whole float keeps its dot", 1.0, "1.0"),
    ("negative zero", -0.0, "-0.0"),
    ("small float", 0.0001, "0.0001"),
    ("exponent gets a dot for YAML 1.1", 1e16, "1.0e+16"),
    ("negative exponent", 1e-05, "1.0e-05"),
    ("exponent with fraction", 1.5e20, "1.5e+20"),
    ("largest float", 1.7976931348623157e308, "1.7976931348623157e+308"),
    ("smallest subnormal", 5e-324, "5.0e-324"),
    ("inf", math.inf, ".inf"),
    ("negative inf", -math.inf, "-.inf"),
]


@pytest.mark.parametrize(
    ("value", "text"), [(v, t) for _, v, t in SCALAR_CASES], ids=[i for i, _, _ in SCALAR_CASES]
)
def test_other_scalars_are_written_exactly_and_read_back(value: object, text: str) -> None:
    document = dump_yaml({"k": value})
    assert document == f"k: {text}\n"
    _assert_reads_back({"k": value}, document)


def test_nan_is_written_as_dot_nan_and_read_as_nan() -> None:
    document = dump_yaml({"k": math.nan})
    assert document == "k: .nan\n"
    for name, read in READERS.items():
        assert math.isnan(read(document)["k"]), name


# -- multi-line strings --------------------------------------------------------------------------------------

MULTILINE_CASES = [
    ("clip", "a\nb\n", "k: |\n  a\n  b\n"),
    ("strip", "a\nb", "k: |-\n  a\n  b\n"),
    ("keep", "a\nb\n\n", "k: |+\n  a\n  b\n\n"),
    ("blank line inside", "a\n\nb\n", "k: |\n  a\n\n  b\n"),
    ("leading space needs an indicator", "  a\nb\n", "k: |2\n    a\n  b\n"),
    ("leading newline needs an indicator", "\na\n", "k: |2\n\n  a\n"),
    ("indicator and strip", " a\nb", "k: |2-\n   a\n  b\n"),
    ("tab inside", "a\tb\nc\n", "k: |\n  a\tb\n  c\n"),
    ("trailing spaces", "a  \nb  ", "k: |-\n  a  \n  b  \n"),
    ("spaces-only last line", "a\n  ", "k: |-\n  a\n    \n"),
    ("looks like yaml", "- a: b\n# c\n---\n", "k: |\n  - a: b\n  # c\n  ---\n"),
    ("carriage return forces quotes", "a\r\nb\n", 'k: "a\\r\\nb\\n"\n'),
    ("control character forces quotes", "a\x01\nb", 'k: "a\\u0001\\nb"\n'),
    ("newlines only force quotes", "\n\n", 'k: "\\n\\n"\n'),
    ("line separator forces quotes", "a\u2028\nb", 'k: "a\\u2028\\nb"\n'),
]


@pytest.mark.parametrize(
    ("value", "text"), [(v, t) for _, v, t in MULTILINE_CASES], ids=[i for i, _, _ in MULTILINE_CASES]
)
def test_multiline_strings_are_literal_blocks_when_exact(value: str, text: str) -> None:
    assert dump_yaml({"k": value}) == text
    _assert_reads_back({"k": value}, text)


def test_multiline_strings_in_sequences_and_nested_mappings() -> None:
    value = {"a": [" x\ny", {"b": "p\nq\n", "c": ["\nr"]}], "d": {"e": {"f": "s\nt"}}}
    text = dump_yaml(value)
    assert text == (
        "a:\n"
        "- |2-\n"
        "   x\n"
        "  y\n"
        "- b: |\n"
        "    p\n"
        "    q\n"
        "  c:\n"
        "  - |2-\n"
        "\n"
        "    r\n"
        "d:\n"
        "  e:\n"
        "    f: |-\n"
        "      s\n"
        "      t\n"
    )
    _assert_reads_back(value, text)


@pytest.mark.parametrize(
    ("value", "text"),
    [("a\nb\n", "|\n  a\n  b\n"), (" a\nb", '" a\\nb"\n'), ("a\n\n", "|+\n  a\n\n")],
    ids=["literal", "indicator needed: quoted at the top level", "keep"],
)
def test_top_level_multiline_strings(value: str, text: str) -> None:
    assert dump_yaml(value) == text
    _assert_reads_back(value, text)


# -- layout --------------------------------------------------------------------------------------------------

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "labels": {"app": "web"},
        "annotations": {"revision": "3", "commit": "035e2982"},
    },
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx:1.25",
                        "args": ["--port=8080", "-v"],
                        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        "env": [{"name": "ENABLED", "value": "on"}],
                        "resources": {},
                    }
                ],
                "tolerations": [],
                "nodeSelector": {"kubernetes.io/os": "linux"},
            },
        },
    },
}

DEPLOYMENT_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
  annotations:
    revision: "3"
    commit: "035e2982"
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        args:
        - --port=8080
        - -v
        ports:
        - containerPort: 8080
          protocol: TCP
        env:
        - name: ENABLED
          value: "on"
        resources: {}
      tolerations: []
      nodeSelector:
        kubernetes.io/os: linux
"""


def test_a_manifest_is_written_like_kubectl_get_o_yaml() -> None:
    assert dump_yaml(DEPLOYMENT) == DEPLOYMENT_YAML
    _assert_reads_back(DEPLOYMENT, DEPLOYMENT_YAML)


def test_keys_keep_insertion_order() -> None:
    assert dump_yaml({"b": 1, "a": 2, "c": 3}) == "b: 1\na: 2\nc: 3\n"


LAYOUT_CASES: list[tuple[str, object, str]] = [
    ("empty mapping", {}, "{}\n"),
    ("empty sequence", [], "[]\n"),
    ("top-level string", "x", "x\n"),
    ("top-level quoted string", "yes", '"yes"\n'),
    ("top-level null", None, "null\n"),
    ("top-level int", 7, "7\n"),
    ("sequence of scalars", [1, "a", None, True], "- 1\n- a\n- null\n- true\n"),
    ("nested sequences are compact", [["a", "b"], [["c"]]], "- - a\n  - b\n- - - c\n"),
    ("empty collections as items", [[], {}], "- []\n- {}\n"),
    ("mapping in sequence", [{"a": 1, "b": [2]}], "- a: 1\n  b:\n  - 2\n"),
    ("sequence in mapping in sequence", [{"a": [{"b": 1}]}], "- a:\n  - b: 1\n"),
    ("deep mapping", {"a": {"b": {"c": {}}}}, "a:\n  b:\n    c: {}\n"),
    ("empty key", {"": 1}, '"": 1\n'),
]


@pytest.mark.parametrize(
    ("value", "text"), [(v, t) for _, v, t in LAYOUT_CASES], ids=[i for i, _, _ in LAYOUT_CASES]
)
def test_layout(value: object, text: str) -> None:
    assert dump_yaml(value) == text
    _assert_reads_back(value, text)


def test_keys_too_long_for_an_implicit_key_are_written_explicitly() -> None:
    key = "k" * 1025
    value = {key: {"a": 1}, "b": [{key: [1], "c": 2}]}
    text = dump_yaml(value)
    assert text == f"? {key}\n:\n  a: 1\nb:\n- ? {key}\n  :\n  - 1\n  c: 2\n"
    _assert_reads_back(value, text)
    assert dump_yaml({"k" * 1024: 1}) == f"{'k' * 1024}: 1\n"


def test_documents_are_joined_with_document_markers() -> None:
    documents: list[object] = [{"a": 1}, "x\n\n", None, [], "end"]
    text = dump_yaml_documents(documents)
    assert text == "a: 1\n---\n|+\n  x\n\n---\nnull\n---\n[]\n---\nend\n"
    assert [document.body for document in load_yaml_documents(text)] == documents
    assert list(yaml.load_all(text, Loader=yaml.CSafeLoader)) == documents
    assert list(_RUAMEL.load_all(text)) == documents
    assert dump_yaml_documents([]) == ""


class Color(enum.StrEnum):
    RED = "red"
    YES = "yes"


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float):
    pass


def test_subclasses_tuples_and_other_mappings_are_written_as_their_base_type() -> None:
    value = {
        Color.RED: Color.YES,
        "level": Level.HIGH,
        "ratio": Ratio(0.5),
        "tuple": (1, ("a", "b\nc")),
        "proxy": MappingProxyType({"x": (Color.RED,)}),
        "empty": (),
    }
    text = dump_yaml(value)
    assert text == (
        'red: "yes"\nlevel: 3\nratio: 0.5\ntuple:\n- 1\n- - a\n  - |-\n    b\n    c\n'
        "proxy:\n  x:\n  - red\nempty: []\n"
    )
    assert dump_yaml(MappingProxyType({"a": 1})) == "a: 1\n"
    assert dump_yaml((Level.HIGH,)) == "- 3\n"
    assert dump_yaml(Color.YES) == '"yes"\n'


# -- errors --------------------------------------------------------------------------------------------------

ERROR_CASES = [
    ("int key at the top", {1: "a"}, "mapping key 1 (int) at the top level: only str keys are allowed"),
    ("bool key nested", {"spec": {"ports": [{True: 1}]}}, "mapping key True (bool) at spec.ports[0]"),
    ("none key", {"a": {None: 1}}, "mapping key None (NoneType) at a"),
    ("set value", {"a": [1, {2}]}, "value of type set at a[1]: not a JSON type"),
    ("bytes value", {"a": {"b": b"x"}}, "value of type bytes at a.b"),
    ("object at the top", object(), "value of type object at the top level"),
]


@pytest.mark.parametrize(
    ("value", "message"), [(v, m) for _, v, m in ERROR_CASES], ids=[i for i, _, _ in ERROR_CASES]
)
def test_values_that_are_not_json_raise_type_error_with_the_path(value: object, message: str) -> None:
    with pytest.raises(TypeError, match="cannot serialise to YAML: " + re.escape(message)):
        dump_yaml(value)


def test_a_value_that_contains_itself_raises_value_error() -> None:
    value: list[Any] = []
    value.append(value)
    with pytest.raises(ValueError, match="nested too deeply or contains itself"):
        dump_yaml(value)


# -- the round-trip property ---------------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)  # Kubernetes integers are int64
    | st.floats(allow_nan=False)
    | st.text()
    | st.text(alphabet=st.sampled_from(" \n\t-:#.0123456789eE+_xoyYnN~<=|>'\"aZ"), max_size=8)
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text() | st.text(alphabet="-:# .01eyn\n", max_size=4), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=600, deadline=None)
@given(JSON_VALUES)
def test_dump_then_load_is_the_identity_under_every_reader(value: Any) -> None:
    text = dump_yaml(value)
    assert text.endswith("\n")
    assert dump_yaml(copy.deepcopy(value)) == text  # deterministic
    _assert_reads_back(value, text)


@settings(max_examples=100, deadline=None)
@given(st.lists(JSON_VALUES, max_size=4))
def test_document_streams_read_back_document_by_document(values: list[Any]) -> None:
    text = dump_yaml_documents(values)
    assert [document.body for document in load_yaml_documents(text)] == values
    assert list(yaml.load_all(text, Loader=yaml.CSafeLoader)) == values
    assert list(_RUAMEL.load_all(text)) == values
