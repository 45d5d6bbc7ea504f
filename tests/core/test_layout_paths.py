"""Paths by template identity are the paths of the template's key (the index knows templates by identity)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.core.layout import RepoLayout, identity_path, object_path
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
