"""Properties: overriding never mutates its input and is deterministic; the YAML emitter round-trips."""

from __future__ import annotations

import copy
import functools
import json
import math
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitops_karmada.core.codecs.gojson import encode
from gitops_karmada.core.codecs.sigsyaml import json_to_yaml, yaml_to_json
from gitops_karmada.core.overrides import apply_overrides
from gitops_karmada.core.overrides.diff import changes_made, pointer_roots
from gitops_karmada.core.overrides.imageref import parse_image
from gitops_karmada.core.overrides.patch import PatchError, PatchOperation, PatchOperator, apply_patch
from gitops_karmada.model.errors import OverrideError
from tests.core.overrides.builders import (
    cluster,
    cluster_override_policy,
    config_map,
    deployment,
    override_policy,
)

if TYPE_CHECKING:
    from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LABEL_KEYS = st.sampled_from(["app", "tier", "example.io/team"])
LABEL_VALUES = st.sampled_from(["a", "b", ""])
IMAGES = st.sampled_from(
    ["nginx:1.27", "reg.example/app:v1", "localhost:5000/a/b@sha256:" + "a" * 64, "app", "Bad:1"]
)
JSON_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _operation(paths: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    values = JSON_VALUES.filter(lambda value: value is not None)  # the API requires a value for add/replace
    return st.one_of(
        st.builds(lambda p, v: {"path": p, "operator": "add", "value": v}, st.sampled_from(paths), values),
        st.builds(
            lambda p, v: {"path": p, "operator": "replace", "value": v}, st.sampled_from(paths), values
        ),
        st.builds(lambda p: {"path": p, "operator": "remove"}, st.sampled_from(paths)),
    )


PLAINTEXT = _operation(
    ["/spec/replicas", "/metadata/labels/app", "/metadata/annotations", "/spec/x/y", "/data/k"]
)
SUB_OPERATIONS = _operation(["/a", "/a/b", "/list/-", "/list/0", "/n"]).map(
    lambda op: {"subPath": op["path"], **{k: v for k, v in op.items() if k != "path"}}
)
OVERRIDERS = st.fixed_dictionaries(
    {},
    optional={
        "imageOverrider": st.lists(
            st.builds(
                lambda c, o, v: {"component": c, "operator": o, **({"value": v} if o != "remove" else {})},
                st.sampled_from(["Registry", "Repository", "Tag"]),
                st.sampled_from(["add", "replace", "remove"]),
                st.sampled_from(["v2", ".test", "/x", "mirror.io"]),
            ),
            max_size=2,
        ),
        "commandOverrider": st.lists(
            st.builds(
                lambda o, v: {"containerName": "nginx", "operator": o, "value": v},
                st.sampled_from(["add", "remove"]),
                st.lists(st.sampled_from(["-v", "run"]), max_size=2),
            ),
            max_size=1,
        ),
        "labelsOverrider": st.lists(
            st.builds(
                lambda o, v: {"operator": o, "value": v},
                st.sampled_from(["add", "remove", "replace"]),
                st.dictionaries(LABEL_KEYS, LABEL_VALUES, max_size=2),
            ),
            max_size=2,
        ),
        "annotationsOverrider": st.lists(
            st.builds(
                lambda o, v: {"operator": o, "value": v},
                st.sampled_from(["add", "remove", "replace"]),
                st.dictionaries(LABEL_KEYS, LABEL_VALUES, max_size=2),
            ),
            max_size=1,
        ),
        "fieldOverrider": st.lists(
            st.builds(
                lambda f, ops: {"fieldPath": f[0], f[1]: ops},
                st.sampled_from([("/data/config.yaml", "yaml"), ("/data/config.json", "json")]),
                st.lists(SUB_OPERATIONS, min_size=1, max_size=2),
            ),
            max_size=1,
        ),
        "plaintext": st.lists(PLAINTEXT, max_size=2),
    },
)
RULES = st.lists(
    st.builds(
        lambda overriders, clusters: {
            "overriders": overriders,
            **({"targetCluster": {"clusterNames": clusters}} if clusters else {}),
        },
        OVERRIDERS,
        st.lists(st.sampled_from(["member1", "member2"]), max_size=1, unique=True),
    ),
    max_size=2,
)
SELECTORS = st.lists(
    st.sampled_from(
        [
            {"apiVersion": "apps/v1", "kind": "Deployment"},
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm"},
            {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "a"}}},
        ]
    ),
    max_size=2,
)


@st.composite
def templates(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        labels = draw(st.dictionaries(LABEL_KEYS, LABEL_VALUES, max_size=2))
        containers = [
            {
                "name": "nginx",
                "image": draw(IMAGES),
                **draw(
                    st.fixed_dictionaries(
                        {}, optional={"command": st.lists(st.sampled_from(["-v", "run"]), max_size=2)}
                    )
                ),
            }
        ]
        return deployment(labels=labels or None, containers=containers)
    document = draw(st.dictionaries(st.sampled_from(["a", "list", "n"]), JSON_VALUES, max_size=3))
    return config_map(
        "cm",
        {
            "config.yaml": json_to_yaml(encode(document)),
            "config.json": json.dumps(document, indent=1),
            "k": "v",
        },
    )


@st.composite
def policies(draw: st.DrawFn) -> tuple[list[ClusterOverridePolicy], list[OverridePolicy]]:
    cops = [
        cluster_override_policy(f"cop-{i}", resourceSelectors=draw(SELECTORS), overrideRules=draw(RULES))
        for i in range(draw(st.integers(0, 2)))
    ]
    ops = [
        override_policy(f"op-{i}", resourceSelectors=draw(SELECTORS), overrideRules=draw(RULES))
        for i in range(draw(st.integers(0, 2)))
    ]
    return cops, ops


def _outcome(obj: dict[str, Any], cluster_name: str, cops: list[Any], ops: list[Any]) -> str:
    try:
        result = apply_overrides(obj, cluster(cluster_name), cops, ops)
    except OverrideError as err:
        return f"error: {err}"
    return json.dumps(result.to_dict())


@SETTINGS
@given(obj=templates(), policy_sets=policies(), cluster_name=st.sampled_from(["member1", "member2"]))
def test_apply_overrides_never_mutates_its_input_and_is_deterministic(
    obj: dict[str, Any],
    policy_sets: tuple[list[ClusterOverridePolicy], list[OverridePolicy]],
    cluster_name: str,
) -> None:
    cops, ops = policy_sets
    frozen = copy.deepcopy(obj)
    frozen_policies = [p.model_dump() for p in [*cops, *ops]]
    first = _outcome(obj, cluster_name, cops, ops)
    assert obj == frozen
    assert [p.model_dump() for p in [*cops, *ops]] == frozen_policies
    assert _outcome(obj, cluster_name, cops, ops) == first


@SETTINGS
@given(obj=templates(), cluster_name=st.sampled_from(["member1", "member2"]))
def test_no_policy_means_no_change(obj: dict[str, Any], cluster_name: str) -> None:
    result = apply_overrides(obj, cluster(cluster_name), [], [])
    assert result.object == obj and result.changes == () and result.warnings == ()


# Strings as JSON can carry them; NEL/LS/PS are excluded because YAML 1.1 readers normalise those line breaks.
# Two go-yaml v2 round-trip losses are excluded too: a "<<" key reads back as a merge key, and -0.0 (JSON
# "-0") as the integer 0.
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x85\u2028\u2029"), max_size=90)
KEYS = TEXT.filter(lambda key: key != "<<")
FLOATS = st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda f: f != 0 or math.copysign(1.0, f) > 0
)
YAML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | FLOATS | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(value=st.dictionaries(KEYS, YAML_VALUES, max_size=4) | st.lists(YAML_VALUES, max_size=4))
def test_go_yaml_output_reads_back_as_the_same_json(value: Any) -> None:
    text = encode(value)
    assert yaml_to_json(json_to_yaml(text)) == text


REFERENCE_PARTS = st.tuples(
    st.sampled_from(["", "localhost/", "reg.example:5000/", "a.b/", "[::1]/"]),
    # distribution caps the name (host/path) at 255 characters: longer ones are rightly invalid
    st.from_regex(r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+)?", fullmatch=True).filter(
        lambda path: len(path) <= 200
    ),
    st.sampled_from(["", ":v1", ":1.0_rc-2", "@sha256:" + "b" * 64]),
)


@settings(max_examples=100, deadline=None)
@given(parts=REFERENCE_PARTS)
def test_valid_references_round_trip(parts: tuple[str, str, str]) -> None:
    image = "".join(parts)
    assert str(parse_image(image)) == image


PATCH_PATHS = st.sampled_from(
    ["/spec/replicas", "/spec/x", "/metadata/labels/app", "/metadata/annotations", "/data", "/new", "/n~1m"]
)
PATCHES = st.lists(
    st.builds(
        PatchOperation,
        st.sampled_from(list(PatchOperator)),
        PATCH_PATHS,
        JSON_VALUES.filter(lambda value: value is not None),
    ),
    min_size=1,
    max_size=4,
)
OBJECTS = st.fixed_dictionaries(
    {"kind": st.just("Thing")},
    optional={
        "metadata": st.fixed_dictionaries({}, optional={"labels": st.dictionaries(LABEL_KEYS, LABEL_VALUES)}),
        "spec": st.dictionaries(st.sampled_from(["replicas", "x", "y"]), JSON_VALUES, max_size=3),
        "data": JSON_VALUES,
        "n/m": JSON_VALUES,
    },
)


@SETTINGS
@given(obj=OBJECTS, patches=PATCHES)
def test_comparing_only_the_keys_a_patch_touches_finds_every_change(
    obj: dict[str, Any], patches: list[PatchOperation]
) -> None:
    """An overrider entry's provenance: copying and comparing only the top-level keys its patch paths start
    with gives exactly the changes, in the same order, that comparing the whole object gives."""
    whole, scoped = copy.deepcopy(obj), copy.deepcopy(obj)
    # entries one after another, each seeing the last one's result, then all of them as one patch
    for applied in [*([operation] for operation in patches), patches]:
        before = copy.deepcopy(whole)
        try:
            expected = changes_made(whole, functools.partial(apply_patch, whole, applied))
        except PatchError:
            whole, scoped = before, copy.deepcopy(before)
            continue
        roots = pointer_roots(p.path for p in applied)
        assert roots is not None and roots <= {"spec", "metadata", "data", "new", "n/m"}
        assert changes_made(scoped, functools.partial(apply_patch, scoped, applied), roots) == expected
        assert scoped == whole
