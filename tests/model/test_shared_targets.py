"""``model.bindings.shared_targets``: a binding's plain targets are one object per (cluster, replicas, given)
across every binding of the process, and each binding still writes exactly what it was given."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gitops_karmada.model import bindings
from gitops_karmada.model.bindings import ResourceBinding, ResourceBindingSpec, TargetCluster


def record(name: str, clusters: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": f"{name}-deployment", "namespace": "shop"},
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": name},
            "clusters": clusters,
        },
    }


def test_bindings_naming_the_same_targets_share_them_and_write_what_they_were_given() -> None:
    web = ResourceBinding.model_validate(record("web", [{"name": "m1", "replicas": 2}, {"name": "m2"}]))
    api = ResourceBinding.model_validate(record("api", [{"name": "m1", "replicas": 2}, {"name": "m2"}]))
    built = ResourceBindingSpec(resource=web.spec.resource, clusters=(TargetCluster(name="m1", replicas=2),))
    assert web.spec.clusters[0] is api.spec.clusters[0] is built.clusters[0], "parsed or built: one object"
    assert web.spec.clusters[1] is api.spec.clusters[1]
    zero = ResourceBinding.model_validate(record("zero", [{"name": "m2", "replicas": 0}]))
    assert zero.spec.clusters[0] is not web.spec.clusters[1], "replicas: 0 given is written; not given is not"
    assert zero.to_api()["spec"]["clusters"] == [{"name": "m2", "replicas": 0}]
    assert web.to_api()["spec"]["clusters"] == [{"name": "m1", "replicas": 2}, {"name": "m2"}]


def test_targets_with_components_are_their_own() -> None:
    given = [{"name": "m1", "components": [{"name": "jobmanager", "replicas": 1}]}]
    first = ResourceBinding.model_validate(record("flink", given))
    second = ResourceBinding.model_validate(record("flink2", given))
    assert first.spec.clusters[0] == second.spec.clusters[0]
    assert first.spec.clusters[0] is not second.spec.clusters[0]


def test_the_table_starts_afresh_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bindings, "SHARED_TARGETS_LIMIT", 3)
    monkeypatch.setattr(bindings, "_shared", {})
    for replicas in range(10):
        ResourceBinding.model_validate(record("web", [{"name": "m1", "replicas": replicas}]))
        assert len(bindings._shared) <= 3


def test_a_target_of_another_shape_is_left_to_the_model_to_judge_where_it_is() -> None:
    for given, field in (
        ({"name": "m1", "replicas": "two"}, "replicas"),
        ({"name": "m1", "weight": 1}, "weight"),
    ):
        with pytest.raises(ValidationError) as raised:
            ResourceBinding.model_validate(record("web", [{"name": "m0"}, given]))
        assert [error["loc"] for error in raised.value.errors()] == [("spec", "clusters", 1, field)]
