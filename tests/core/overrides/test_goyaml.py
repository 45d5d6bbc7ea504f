"""sigs.k8s.io/yaml on go-yaml v2: YAML 1.1 decoding (YAMLToJSON) and byte-exact emitting (JSONToYAML)."""

from __future__ import annotations

import pytest

from gitops_karmada.core.codecs.goyaml_emit import marshal, natural_key_less
from gitops_karmada.core.codecs.sigsyaml import SigsYamlError, json_to_yaml, yaml_to_json
from gitops_karmada.core.codecs.yaml11 import is_timestamp

# (id, YAML text, JSON go-yaml v2 + encoding/json make of it)
DECODES = [
    ("yaml11-booleans", "[yes, No, on, OFF, y, n, true]", "[true,false,true,false,true,false,true]"),
    ("octal-hex-binary", "[0o17, 017, 0x1F, 0b101, -0b11, +5]", "[15,15,31,5,-3,5]"),
    ("underscores-removed", "[1_000, 0x_1F]", "[1000,31]"),
    ("08-is-a-float", "[08, 09.5, 1e3, .5, 1.0]", "[8,9.5,1000,0.5,1]"),
    ("nulls", "[~, null, Null, '']", '[null,null,null,""]'),
    ("not-numbers", "[1e400, 0x, 1.2.3, 12:30, .inf_]", '["1e400","0x","1.2.3","12:30",".inf_"]'),
    (
        "timestamps-stay-strings",
        "[2001-12-14, 2001-12-14t21:59:43.10-05:00]",
        '["2001-12-14","2001-12-14t21:59:43.10-05:00"]',
    ),
    ("uint64", "[9223372036854775808, 18446744073709551616]", "[9223372036854775808,18446744073709552000]"),
    ("explicit-tags", "[!!str 1, !!int '3', !!float 2, !!bool 'yes', !custom 7]", '["1",3,2,true,"7"]'),
    ("binary", "!!binary aGVsbG8=", '"hello"'),
    ("binary-invalid-utf8", "!!binary /w==", '"\ufffd"'),
    (
        "keys-become-strings",
        "{1: a, 1.5: b, true: c, y: d, 1e3: e}",
        '{"1":"a","1.5":"b","1000":"e","true":"d"}',
    ),
    ("typed-keys-kept-apart-until-converted", "{1: a, '1': b}", '{"1":"b"}'),
    ("alias", "a: &x {k: v}\nb: *x", '{"a":{"k":"v"},"b":{"k":"v"}}'),
    ("merge", "base: &b {p: 1, q: 2}\nm:\n  <<: *b\n  q: 3", '{"base":{"p":1,"q":2},"m":{"p":1,"q":3}}'),
    ("merge-after-key-wins", "base: &b {q: 2}\nm:\n  q: 3\n  <<: *b", '{"base":{"q":2},"m":{"q":2}}'),
    (
        "merge-list-earlier-wins",
        "a: &a {x: 1}\nb: &b {x: 2}\nm: {<<: [*a, *b]}",
        '{"a":{"x":1},"b":{"x":2},"m":{"x":1}}',
    ),
    ("quoted-merge-key-is-a-key", "{'<<': {x: 1}}", '{"\\u003c\\u003c":{"x":1}}'),
    ("first-document-only", "a: 1\n---\nb: 2", '{"a":1}'),
    ("empty", "", "null"),
    ("html-escaped", "a: <b>", '{"a":"\\u003cb\\u003e"}'),
]


@pytest.mark.parametrize(("text", "expected"), [d[1:] for d in DECODES], ids=[d[0] for d in DECODES])
def test_yaml_to_json(text: str, expected: str) -> None:
    assert yaml_to_json(text) == expected


YAML_ERRORS = [
    ("syntax", "a: [1", "expected"),
    ("null-key", "~: 1", "unsupported map key"),
    ("uint64-key", "18446744073709551615: 1", "unsupported map key"),
    ("collection-key", "? [1]\n: x", "invalid map key"),
    ("nan", "a: .nan", "unsupported value"),
    ("unknown-anchor", "a: *nope", "unknown anchor"),
    ("self-reference", "a: &x [*x]", "contains itself"),
    ("wrong-explicit-tag", "a: !!int abc", "cannot decode !!str `abc` as a !!int"),
    ("merge-of-scalar", "a: {<<: 1}", "map merge requires map"),
    ("bad-base64", "a: !!binary '%%'", "invalid base64"),
]


@pytest.mark.parametrize(("text", "message"), [e[1:] for e in YAML_ERRORS], ids=[e[0] for e in YAML_ERRORS])
def test_yaml_to_json_errors(text: str, message: str) -> None:
    with pytest.raises(SigsYamlError, match=message):
        yaml_to_json(text)


def test_excessive_aliasing_is_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    with pytest.raises(SigsYamlError, match="excessive aliasing"):
        yaml_to_json("\n".join(lines))


# (id, JSON text, YAML go-yaml v2 writes)
EMITS = [
    (
        "quoted-lookalikes",
        '["3306","true","yes","y","1e3","0x1F","1_0","2001-02-03","12:30","~","null","<<",""]',
        '- "3306"\n- "true"\n- "yes"\n- "y"\n- "1e3"\n- "0x1F"\n- "1_0"\n- "2001-02-03"\n- "12:30"\n- "~"\n'
        '- "null"\n- <<\n- ""\n',
    ),
    (
        "plain-strings",
        '["127.0.0.1","nginx:1.19","a b","NaN","2001-12-14T21:59:43","-x","x-"]',
        "- 127.0.0.1\n- nginx:1.19\n- a b\n- NaN\n- 2001-12-14T21:59:43\n- -x\n- x-\n",
    ),
    (
        "single-quoted",
        '[" lead","trail ","a: b","a #b","- x","#c","@x","%x","---x",":x","?"]',
        "- ' lead'\n- 'trail '\n- 'a: b'\n- 'a #b'\n- '- x'\n- '#c'\n- '@x'\n- '%x'\n- '---x'\n- :x\n- '?'\n",
    ),
    (
        "double-quoted-escapes",
        '["tab\\there","nul\\u0000","bell\\u0007","nbsp\\u00a0x","\\u0085","\\ufeffb","😀"]',
        '- "tab\\there"\n- "nul\\0"\n- "bell\\a"\n- nbsp\u00a0x\n- "\\N"\n- "\\uFEFFb"\n- "\\U0001F600"\n',
    ),
    (
        "numbers",
        "[1, -0, 1.0, 1.5, 1e6, 1e21, 123456789, 9223372036854775808, 1E400]",
        "- 1\n- 0\n- 1\n- 1.5\n- 1e+06\n- 1e+21\n- 123456789\n- 9223372036854775808\n- 1E400\n",
    ),
    ("scalars", '{"t":true,"f":false,"n":null}', 'f: false\n"n": null\nt: true\n'),
    (
        "natural-key-order",
        '{"a10":1,"a9":2,"b":3,"A":4,"a09":5,"_":6,"1":7}',
        '_: 6\n"1": 7\nA: 4\na9: 2\na09: 5\na10: 1\nb: 3\n',
    ),
    (
        "nested-and-indentless",
        '{"m":{"l":[1,[2,3],{"k":"v","j":[]}],"e":{}}}',
        "m:\n  e: {}\n  l:\n  - 1\n  - - 2\n    - 3\n  - j: []\n    k: v\n",
    ),
    (
        "literal-styles",
        '{"clip":"a\\nb\\n","strip":"a\\nb","keep":"a\\n\\n","indent":" a\\nb"}',
        "clip: |\n  a\n  b\nindent: |2-\n   a\n  b\nkeep: |+\n  a\n\nstrip: |-\n  a\n  b\n",
    ),
    ("no-literal-with-trailing-space", '{"k":"a \\nb"}', 'k: "a \\nb"\n'),
    ("root-array", '[{"a":1}]', "- a: 1\n"),
    (
        "go-parse-rules-decide-quoting",
        '[".5 ", ".5_6", "2001-02-29", "2001-12-14   1:2:3", "2001-12-14 24:00:00"]',
        '- \'.5 \'\n- ".5_6"\n- 2001-02-29\n- "2001-12-14   1:2:3"\n- 2001-12-14 24:00:00\n',
    ),
    ("empty-root", "{}", "{}\n"),
]


@pytest.mark.parametrize(("text", "expected"), [e[1:] for e in EMITS], ids=[e[0] for e in EMITS])
def test_json_to_yaml(text: str, expected: str) -> None:
    assert json_to_yaml(text) == expected


def test_long_plain_scalars_fold_at_80_columns() -> None:
    value = " ".join(["word"] * 30)
    assert marshal({"key": value}) == (
        "key: word word word word word word word word word word word word word word word word\n"
        "  word word word word word word word word word word word word word word\n"
    )


def test_long_double_quoted_scalars_fold_with_escaped_spaces() -> None:
    value = "x" * 80 + "  y\t"
    # the fold reads back as one space, the escaped "\ " keeps the second one
    assert marshal([value]) == '- "' + "x" * 80 + '\n  \\ y\\t"\n'


def test_long_keys_become_complex_keys() -> None:
    key = "k" * 129
    assert marshal({key: "v", "short": "w"}) == f"? {key}\n: v\nshort: w\n"


def test_multi_line_keys_become_complex_literal_keys() -> None:
    assert marshal({"a\nb": [1]}) == "? |-\n  a\n  b\n: - 1\n"


NATURAL = [
    ("a", "b", True),
    ("a9", "a10", True),
    ("a10", "a9", False),
    ("a9", "a09", True),
    ("a09", "a10", True),
    ("a", "a1", True),
    ("1", "a", True),
    ("z", "_", False),
    ("_", "1", True),
    ("1", "A", True),
    ("x1y", "x01y", True),
    ("ab", "aB", False),
]


@pytest.mark.parametrize(("a", "b", "less"), NATURAL, ids=[f"{a}<{b}" for a, b, _ in NATURAL])
def test_natural_key_order(a: str, b: str, less: bool) -> None:
    assert natural_key_less(a, b) is less


TIMESTAMPS = [
    ("2001-12-14", True),
    ("2001-1-2", True),
    ("2001-12-14T21:59:43.10Z", True),
    ("2001-12-14t21:59:43.10-05:00", True),
    ("2001-12-14 21:59:43.10", True),
    ("2001-12-14   1:2:3", True),
    ("2001-12-14T21:59:43", False),
    ("2001-02-29", False),
    ("2000-02-29", True),
    ("2001-13-01", False),
    ("2001-12-14 24:00:00", False),
    ("20011-12-14", False),
    ("2001-12-14x", False),
]


@pytest.mark.parametrize(("text", "expected"), TIMESTAMPS, ids=[t for t, _ in TIMESTAMPS])
def test_timestamps(text: str, expected: bool) -> None:
    assert is_timestamp(text) is expected
