"""imageOverrider (spec §3.4): component × operator, default paths per kind, predicates, references."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.image import image_overrider_patches, override_image
from gitops_karmada.core.overrides.imageref import InvalidReferenceError, parse_image
from gitops_karmada.model.overrides import ImageOverrider
from tests.core.overrides.builders import deployment

DIGEST = "sha256:" + "a" * 64

# (id, image, component, operator, value, result)
OVERRIDES = [
    ("registry-add", "reg.example/app:v1", "Registry", "add", ".test", "reg.example.test/app:v1"),
    ("registry-add-no-host", "app:v1", "Registry", "add", "registry.k8s.io", "registry.k8s.io/app:v1"),
    ("registry-replace", "reg.example/app:v1", "Registry", "replace", "mirror.io", "mirror.io/app:v1"),
    ("registry-replace-no-host", "library/app", "Registry", "replace", "mirror.io", "mirror.io/library/app"),
    ("registry-remove", "localhost:5000/app@" + DIGEST, "Registry", "remove", "", "app@" + DIGEST),
    ("registry-remove-none", "app:v1", "Registry", "remove", "", "app:v1"),
    ("repository-add", "reg.example/app:v1", "Repository", "add", "/nginx", "reg.example/app/nginx:v1"),
    (
        "repository-replace",
        "reg.example/app:v1",
        "Repository",
        "replace",
        "web/nginx",
        "reg.example/web/nginx:v1",
    ),
    ("repository-remove", "reg.example/app:v1", "Repository", "remove", "", "reg.example/:v1"),
    ("tag-replace", "app:v1", "Tag", "replace", "v2", "app:v2"),
    ("tag-replace-adds-tag", "app", "Tag", "replace", "v2", "app:v2"),
    ("tag-replace-with-digest", "app:v1", "Tag", "replace", DIGEST, "app@" + DIGEST),
    ("tag-replace-digest-with-tag", "app@" + DIGEST, "Tag", "replace", "v2", "app:v2"),
    ("tag-replace-invalid-is-noop", "app:v1", "Tag", "replace", "-bad", "app:v1"),
    ("tag-add-suffix", "app:v1", "Tag", "add", "-debug", "app:v1-debug"),
    ("tag-add-invalid-is-noop", "app:v1", "Tag", "add", "/x", "app:v1"),
    ("tag-add-to-digest-is-noop", "app@" + DIGEST, "Tag", "add", "x", "app@" + DIGEST),
    ("tag-remove", "app:v1", "Tag", "remove", "", "app"),
    ("tag-remove-digest", "app@" + DIGEST, "Tag", "remove", "", "app"),
    ("tag-and-digest-keeps-tag", "app:v1@" + DIGEST, "Tag", "replace", "v3", "app:v3"),
    ("ipv6-host", "[::1]:5000/app:v1", "Registry", "replace", "r.io", "r.io/app:v1"),
]


@pytest.mark.parametrize(
    ("image", "component", "operator", "value", "expected"),
    [o[1:] for o in OVERRIDES],
    ids=[o[0] for o in OVERRIDES],
)
def test_override_image(image: str, component: str, operator: str, value: str, expected: str) -> None:
    raw: dict[str, Any] = {"component": component, "operator": operator}
    if value:
        raw["value"] = value
    assert override_image(image, ImageOverrider.model_validate(raw)) == expected


REFERENCES = [
    ("name-only", "nginx", ("", "nginx", "", "")),
    ("subpath-without-host", "library/nginx:1", ("", "library/nginx", "1", "")),
    ("localhost", "localhost/nginx", ("localhost", "nginx", "", "")),
    ("host-port", "localhost:5000/a/b:tag", ("localhost:5000", "a/b", "tag", "")),
    ("ip-port", "10.0.0.1:443/a", ("10.0.0.1:443", "a", "", "")),
    ("uppercase-first-part-is-no-host", "UPPER/x", ("", "UPPER/x", "", "")),
    ("separators", "a__b.c-d---e:v", ("", "a__b.c-d---e", "v", "")),
    ("digest", "a@" + DIGEST, ("", "a", "", DIGEST)),
    ("port-looks-like-tag", "foo:5000", ("", "foo", "5000", "")),
]


@pytest.mark.parametrize(("image", "parts"), [r[1:] for r in REFERENCES], ids=[r[0] for r in REFERENCES])
def test_parse_image(image: str, parts: tuple[str, str, str, str]) -> None:
    components = parse_image(image)
    assert (components.hostname, components.repository, components.tag, components.digest) == parts
    assert str(components) == image or "@" in image  # the canonical string round-trips (tag+digest aside)


INVALID = [
    ("empty", "", "repository name must have at least one component"),
    ("uppercase-repository", "Nginx:1", "repository name must be lowercase"),
    ("trailing-colon", "nginx:", "invalid reference format"),
    ("double-separator", "a..b", "invalid reference format"),
    ("tag-too-long", "a:" + "t" * 129, "invalid reference format"),
    ("digest-short", "a@sha256:" + "a" * 31, "invalid reference format"),
    ("digest-uppercase-hex", "a@sha256:" + "A" * 64, "invalid checksum digest format"),
    ("digest-wrong-length", "a@sha256:" + "a" * 63, "invalid checksum digest length"),
    ("digest-unknown-algorithm", "a@md5:" + "a" * 32, "unsupported digest algorithm"),
    ("path-too-long", "a/" + "b" * 256, "must not be more than 255 characters"),
    ("newline", "nginx\n", "invalid reference format"),
]


@pytest.mark.parametrize(("image", "message"), [i[1:] for i in INVALID], ids=[i[0] for i in INVALID])
def test_invalid_references(image: str, message: str) -> None:
    with pytest.raises(InvalidReferenceError, match=message):
        parse_image(image)


def _tag(value: str, predicate: str | None = None) -> ImageOverrider:
    raw: dict[str, Any] = {"component": "Tag", "operator": "replace", "value": value}
    if predicate:
        raw["predicate"] = {"path": predicate}
    return ImageOverrider.model_validate(raw)


POD_SPEC = {"containers": [{"name": "a", "image": "a:1"}], "initContainers": [{"name": "i", "image": "i:1"}]}
KINDS = [
    ("pod", {"kind": "Pod", "spec": POD_SPEC}, ["/spec/containers/0/image"]),
    *(
        (
            kind.lower(),
            {"kind": kind, "spec": {"template": {"spec": POD_SPEC}}},
            ["/spec/template/spec/containers/0/image"],
        )
        for kind in ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job")
    ),
    (
        "cronjob-is-ignored",
        {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": POD_SPEC}}}}},
        [],
    ),
    ("configmap-is-ignored", {"kind": "ConfigMap", "data": {"image": "a:1"}}, []),
    ("no-containers", {"kind": "Pod", "spec": {}}, []),
    ("empty-containers", {"kind": "Pod", "spec": {"containers": []}}, []),
    ("null-spec", {"kind": "Deployment", "spec": None}, []),
]


@pytest.mark.parametrize(("obj", "paths"), [k[1:] for k in KINDS], ids=[k[0] for k in KINDS])
def test_default_paths_per_kind(obj: dict[str, Any], paths: list[str]) -> None:
    patches = image_overrider_patches(obj, _tag("2"))
    assert [p.path for p in patches] == paths
    assert all(p.op == "replace" and p.value.endswith(":2") for p in patches)


def test_every_container_without_predicate_only_the_addressed_one_with() -> None:
    obj = deployment(containers=[{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}])
    assert [p.value for p in image_overrider_patches(obj, _tag("2"))] == ["a:2", "b:2"]
    predicate = "/spec/template/spec/containers/1/image"
    assert [p.to_dict() for p in image_overrider_patches(obj, _tag("2", predicate))] == [
        {"op": "replace", "path": predicate, "value": "b:2"}
    ]


def test_predicate_can_address_any_string_field() -> None:
    obj = {"kind": "ConfigMap", "data": {"img": "a:1"}}
    assert image_overrider_patches(obj, _tag("2", "/data/img"))[0].value == "a:2"


PREDICATE_ERRORS = [
    ("index-not-number", "/spec/template/spec/containers/x/image", "path(x) of rawObj's is not number"),
    ("missing-field", "/spec/template/spec/nope/0/image", "path(nope) of rawObj's type is not map or slice"),
    ("leaf-not-string", "/spec/replicas", "failed to convert path(replicas) to string"),
    ("index-out-of-range", "/spec/template/spec/containers/5/image", "index 5 out of range"),
    ("leaf-missing", "/spec/template/spec/containers/0/img", "failed to convert path(img) to string"),
]


@pytest.mark.parametrize(
    ("path", "message"), [e[1:] for e in PREDICATE_ERRORS], ids=[e[0] for e in PREDICATE_ERRORS]
)
def test_predicate_errors_name_the_path(path: str, message: str) -> None:
    with pytest.raises(OverriderError) as raised:
        image_overrider_patches(deployment(), _tag("2", path))
    assert message in raised.value.detail
    assert raised.value.path == path


def test_invalid_image_is_an_error_at_its_path() -> None:
    obj = deployment(containers=[{"name": "a", "image": "Bad:1"}])
    with pytest.raises(OverriderError) as raised:
        image_overrider_patches(obj, _tag("2"))
    assert raised.value.path == "/spec/template/spec/containers/0/image"
    assert "failed to parse image value(Bad:1)" in raised.value.detail
    assert "repository name must be lowercase" in raised.value.detail


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"containers": {"a": 1}}, "expected []interface{}"),
        ({"template": "x"}, "expected map[string]interface{}"),
    ],
    ids=["containers-not-a-list", "template-not-a-map"],
)
def test_malformed_workloads_are_errors(spec: dict[str, Any], message: str) -> None:
    obj = {"kind": "Deployment", "spec": {"template": {"spec": spec}} if "containers" in spec else spec}
    with pytest.raises(OverriderError, match=re.escape(message)):
        image_overrider_patches(obj, _tag("2"))


def test_container_without_image_is_an_error() -> None:
    with pytest.raises(OverriderError, match="container has no image string"):
        image_overrider_patches(deployment(containers=[{"name": "a"}]), _tag("2"))
