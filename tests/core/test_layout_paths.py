"""Paths by template identity are the paths of the template's key (the index knows templates by identity)."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.core.layout import RepoLayout, identity_path, kind_folder, object_path
from gitops_karmada.model.keys import ObjectKey

_NAMES = st.from_regex(r"[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?", fullmatch=True)
_VERSIONS = st.sampled_from(["v1", "apps/v1", "batch/v1", "flink.apache.org/v1beta1", "example.io/v2alpha1"])
_KINDS = st.sampled_from(["Deployment", "Service", "FlinkDeployment", "ConfigMap", "Namespace", "Job"])


@given(_VERSIONS, _KINDS, st.one_of(st.just(""), _NAMES), _NAMES, _NAMES)
def test_the_paths_of_an_identity_are_the_paths_of_its_key(
    api_version: str, kind: str, namespace: str, name: str, state_dir: str
) -> None:
    key = ObjectKey(api_version, kind, namespace, name)
    layout = replace(RepoLayout.default(), state_dir=state_dir)
    assert identity_path(key.identity) == object_path(key)
    assert layout.record_path(key.identity) == layout.binding_path(key)


@given(_VERSIONS, _KINDS, st.one_of(st.just(""), _NAMES), _NAMES, st.sampled_from([0, 16, 256, 4096]))
def test_a_bucketed_path_is_read_back_as_the_same_object_in_either_layout(
    api_version: str, kind: str, namespace: str, name: str, buckets: int
) -> None:
    key = ObjectKey(api_version, kind, namespace, name)
    flat = RepoLayout.default()
    layout = replace(flat, buckets=buckets)
    path = layout.manifest_path("member1", key)
    assert layout.record_path(key.identity) == layout.binding_path(key)
    assert layout.identity_manifest_path("member1", key.identity) == path
    assert layout.manifest_parts(path) == ("member1", namespace or "_cluster")
    assert flat.object_of(path) == flat.object_of(flat.manifest_path("member1", key))
    assert RepoLayout.unbucketed(path) == flat.manifest_path("member1", key)
    assert flat.written_in([layout.binding_path(key)]) == layout
    digest = hashlib.sha256(name.encode()).hexdigest()
    bucket = {0: "", 16: digest[:1], 256: digest[:2], 4096: digest[:3]}[buckets]
    assert layout.bucket(name) == bucket
    assert path.split("/")[-2] == (bucket or kind_folder(key))
    assert layout.holds_objects(path.rpartition("/")[0])
