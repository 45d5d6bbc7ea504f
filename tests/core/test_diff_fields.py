"""Field-level changes of one object (deepdiff underneath), in kubectl's path notation."""

from __future__ import annotations

from gitops_karmada.core.diff.fields import field_changes, field_path

BEFORE = {
    "metadata": {"name": "web", "annotations": {"example.com/owner": "a"}},
    "spec": {"replicas": 4, "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}},
}


def test_changes_additions_and_removals_in_path_order() -> None:
    after = {
        "metadata": {"name": "web", "annotations": {"example.com/owner": "b"}, "labels": {"tier": "gold"}},
        "spec": {
            "replicas": 6,
            "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.28"}, {"name": "side"}]}},
        },
    }
    assert field_changes(BEFORE, after) == (
        'metadata.annotations["example.com/owner"]: a → b',
        'metadata.labels: added {"tier":"gold"}',
        "spec.replicas: 4 → 6",
        "spec.template.spec.containers[0].image: nginx:1.27 → nginx:1.28",
        'spec.template.spec.containers[1]: added {"name":"side"}',
    )


def test_a_removed_field_and_a_type_change_are_explicit() -> None:
    after = {"metadata": {"name": "web"}, "spec": {**BEFORE["spec"], "replicas": "4"}}  # type: ignore[dict-item]
    assert field_changes(BEFORE, after) == (
        'metadata.annotations: removed (was {"example.com/owner":"a"})',
        'spec.replicas: 4 → "4"',
    )


def test_equal_objects_and_long_lists() -> None:
    assert field_changes(BEFORE, BEFORE) == ()
    many_before = {"data": {f"k{i:02}": "x" for i in range(30)}}
    many_after = {"data": {f"k{i:02}": "y" for i in range(30)}}
    changes = field_changes(many_before, many_after, limit=3)
    assert changes == ("data.k00: x → y", "data.k01: x → y", "data.k02: x → y", "… 27 more")


def test_long_values_are_cut() -> None:
    (line,) = field_changes({"a": "x"}, {"a": "y" * 200})
    assert line.startswith("a: x → yyy") and line.endswith("…") and len(line) < 80


def test_field_path_quotes_keys_that_are_not_identifiers() -> None:
    assert field_path(["spec", "containers", 0, "image"]) == "spec.containers[0].image"
    assert (
        field_path(["metadata", "labels", "app.kubernetes.io/name"])
        == 'metadata.labels["app.kubernetes.io/name"]'
    )
