"""Manifest diffs: unified diffs per object, list items matched by name, Secrets masked."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.core.diff import (
    ChangeKind,
    SecretKeys,
    compare,
    render_json,
    render_markdown,
    render_text,
)
from gitops_karmada.core.diff.manifests import align, diff_object
from tests.action.diffdata import side
from tests.builders import deployment

PATH = "shop/deployment.apps/web.yaml"
SECRET_PATH = "shop/secret/db.yaml"


def _yaml(obj: dict[str, Any]) -> bytes:
    return dump_yaml(obj).encode()


def _two_containers() -> dict[str, Any]:
    body = deployment("web", "shop")
    spec = body["spec"]["template"]["spec"]
    spec["containers"][0]["env"] = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    spec["containers"].append({"name": "sidecar", "image": "envoy:1.30"})
    return body


def _containers(body: dict[str, Any]) -> list[dict[str, Any]]:
    containers: list[dict[str, Any]] = body["spec"]["template"]["spec"]["containers"]
    return containers


def test_a_changed_field_is_one_hunk() -> None:
    before = _two_containers()
    after = copy.deepcopy(before)
    _containers(after)[1]["image"] = "envoy:1.31"
    text, secret_keys, note = diff_object(PATH, _yaml(before), _yaml(after))
    assert [line for line in text.splitlines() if line[:1] in "+-"] == [
        "-        image: envoy:1.30",
        "+        image: envoy:1.31",
    ]
    assert text.startswith("@@ ")
    assert (secret_keys, note) == (None, "")


def test_reordered_named_items_are_not_a_rewrite() -> None:
    before = _two_containers()
    after = copy.deepcopy(before)
    _containers(after).reverse()
    _containers(after)[1]["env"].reverse()
    text, _, note = diff_object(PATH, _yaml(before), _yaml(after))
    assert text == ""
    assert note == "only the order of keys or named list items changed"


def test_a_change_inside_reordered_items_shows_only_the_change() -> None:
    before = _two_containers()
    after = copy.deepcopy(before)
    _containers(after).reverse()
    _containers(after)[0]["image"] = "envoy:2"
    text, _, note = diff_object(PATH, _yaml(before), _yaml(after))
    assert [line for line in text.splitlines() if line[:1] in "+-"] == [
        "-        image: envoy:1.30",
        "+        image: envoy:2",
    ]
    assert "reordered" in note


@pytest.mark.parametrize(
    ("before", "after", "expected", "reordered"),
    [
        (
            [{"name": "a"}, {"name": "b"}],
            [{"name": "b"}, {"name": "a"}],
            [{"name": "a"}, {"name": "b"}],
            True,
        ),
        ([{"name": "a"}], [{"name": "c"}, {"name": "a"}], [{"name": "c"}, {"name": "a"}], False),
        (
            [{"name": "a"}, {"name": "b"}],
            [{"name": "c"}, {"name": "b"}, {"name": "d"}, {"name": "a"}],
            [{"name": "c"}, {"name": "a"}, {"name": "b"}, {"name": "d"}],
            True,
        ),
        ({"b": 1, "a": 2}, {"c": 3, "b": 1, "a": 2}, {"c": 3, "b": 1, "a": 2}, False),
        ([1, 2], [2, 1], [2, 1], False),
        (
            [{"name": "a"}, {"name": "a"}],
            [{"name": "a", "x": 1}, {"name": "a"}],
            [{"name": "a", "x": 1}, {"name": "a"}],
            False,
        ),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, {"b": 1, "a": 2}, True),
        (
            {"a": [{"name": "x", "v": 1}, {"name": "y"}]},
            {"a": [{"name": "y"}, {"name": "x", "v": 2}]},
            {"a": [{"name": "x", "v": 2}, {"name": "y"}]},
            True,
        ),
    ],
    ids=[
        "swap",
        "insertion-is-not-a-reorder",
        "swap-and-insertions-keep-their-neighbours",
        "new-key-is-not-a-reorder",
        "scalars-keep-order",
        "duplicate-names-positional",
        "mapping-keys",
        "nested",
    ],
)
def test_align(before: Any, after: Any, expected: Any, reordered: bool) -> None:
    aligned, moved = align(after, before)
    assert aligned == expected
    assert list(aligned) == list(expected)
    assert moved is reordered


def _secret(**data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": "shop"},
        "type": "Opaque",
        "data": dict(data),
    }


def test_secret_values_are_masked_and_keys_reported() -> None:
    before = _secret(password="aHVudGVyMg==", user="YWRtaW4=")
    after = _secret(password="c3dvcmRmaXNo", token="dG9rZW4=")
    after["stringData"] = {"extra": "plain-text-value"}
    text, keys, _ = diff_object(SECRET_PATH, _yaml(before), _yaml(after))
    assert keys == SecretKeys(
        added=("data.token", "stringData.extra"), removed=("data.user",), changed=("data.password",)
    )
    for value in ("aHVudGVyMg==", "YWRtaW4=", "c3dvcmRmaXNo", "dG9rZW4=", "plain-text-value"):
        assert value not in text
    assert "-  password: <redacted>" in text
    assert "+  password: <redacted, changed>" in text


def test_secret_copies_in_annotations_are_masked() -> None:
    before = _secret(password="aHVudGVyMg==")
    after = _secret(password="c3dvcmRmaXNo")
    for body, value in ((before, "aHVudGVyMg=="), (after, "c3dvcmRmaXNo")):
        body["metadata"]["annotations"] = {
            "kubectl.kubernetes.io/last-applied-configuration": f'{{"data":{{"password":"{value}"}}}}',
            "policy.karmada.io/applied-overrides": f'[{{"policyName":"p","overriders":{{"plaintext":[{{"value":"{value}"}}]}}}}]',
        }
    text, _, _ = diff_object(SECRET_PATH, _yaml(before), _yaml(after))
    assert "aHVudGVyMg==" not in text
    assert "c3dvcmRmaXNo" not in text
    assert "last-applied-configuration: <redacted, changed>" in text


def test_an_unreadable_secret_is_never_shown() -> None:
    text, keys, note = diff_object(
        SECRET_PATH, b"data: {password: [unclosed", _yaml(_secret(password="cw=="))
    )
    assert (text, keys) == ("", None)
    assert "not shown" in note


def test_a_secret_of_another_group_is_an_ordinary_object() -> None:
    body: dict[str, Any] = {
        "apiVersion": "example.com/v1",
        "kind": "Secret",
        "metadata": {"name": "x"},
        "data": {"k": "v1"},
    }
    changed = copy.deepcopy(body)
    changed["data"]["k"] = "v2"
    text, keys, _ = diff_object("_cluster/secret.example.com/x.yaml", _yaml(body), _yaml(changed))
    assert keys is None
    assert "+  k: v2" in text


@settings(max_examples=40, deadline=None)
@given(
    old=st.dictionaries(
        st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.text(min_size=6, max_size=30), max_size=4
    ),
    new=st.dictionaries(
        st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.text(min_size=6, max_size=30), max_size=4
    ),
    marker=st.from_regex(r"[A-Za-z0-9+/]{12,20}", fullmatch=True),
)
def test_no_secret_value_reaches_any_format(old: dict[str, str], new: dict[str, str], marker: str) -> None:
    # every value carries a marker no key, path or placeholder can contain
    old = {k: f"{marker}{v}" for k, v in old.items()}
    new = {k: f"{v}{marker}" for k, v in new.items()}
    before, after = _secret(**old), _secret(**new)
    after["stringData"] = {k: f"{marker}-{v}" for k, v in new.items()}
    tree = {
        "before": {f"clusters/m1/{SECRET_PATH}": _yaml(before)},
        "after": {f"clusters/m1/{SECRET_PATH}": _yaml(after), f"clusters/m2/{SECRET_PATH}": _yaml(after)},
    }
    diff = compare(side("base", tree=tree["before"]), side("head", tree=tree["after"]))
    outputs = [render_text(diff), render_text(diff, colour=True), render_markdown(diff), render_json(diff)]
    assert {o.change for o in diff.objects} <= {ChangeKind.ADDED, ChangeKind.MODIFIED}
    for output in outputs:
        assert marker not in output
