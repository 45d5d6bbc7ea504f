"""labelsOverrider / annotationsOverrider (spec §3.6): add creates, remove/replace only touch present keys."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.labels import MetadataMap, apply_label_annotation_overrider
from gitops_karmada.model.overrides import LabelAnnotationOverrider

ABSENT = object()

# (id, current map or ABSENT/None, operator, value, expected map or ABSENT)
CASES: list[tuple[str, Any, str, dict[str, str], Any]] = [
    ("add-to-existing", {"a": "1"}, "add", {"b": "2"}, {"a": "1", "b": "2"}),
    ("add-overwrites", {"a": "1"}, "add", {"a": "9"}, {"a": "9"}),
    ("add-creates-missing-map", ABSENT, "add", {"a": "1"}, {"a": "1"}),
    ("add-replaces-null-map", None, "add", {"a": "1"}, {"a": "1"}),
    ("replace-existing-only", {"a": "1", "b": "2"}, "replace", {"a": "x", "c": "y"}, {"a": "x", "b": "2"}),
    ("replace-on-missing-map", ABSENT, "replace", {"a": "x"}, ABSENT),
    ("remove-ignores-the-value", {"a": "1", "b": "2"}, "remove", {"a": "anything"}, {"b": "2"}),
    ("remove-absent-key", {"a": "1"}, "remove", {"z": ""}, {"a": "1"}),
    ("remove-to-empty", {"a": "1"}, "remove", {"a": ""}, {}),
    ("slash-in-key", {}, "add", {"example.io/team": "x"}, {"example.io/team": "x"}),
    ("remove-slash-key", {"example.io/team": "x"}, "remove", {"example.io/team": ""}, {}),
]


@pytest.mark.parametrize("field", list(MetadataMap), ids=[f.value for f in MetadataMap])
@pytest.mark.parametrize(
    ("current", "operator", "value", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_label_annotation_overrider(
    field: MetadataMap, current: Any, operator: str, value: dict[str, str], expected: Any
) -> None:
    metadata: dict[str, Any] = {"name": "x"}
    if current is not ABSENT:
        metadata[field.value] = current
    obj: dict[str, Any] = {"kind": "ConfigMap", "metadata": metadata}
    overrider = LabelAnnotationOverrider.model_validate({"operator": operator, "value": value})
    apply_label_annotation_overrider(obj, overrider, field)
    assert obj["metadata"].get(field.value, ABSENT) == expected


def test_add_creates_metadata_when_missing() -> None:
    obj: dict[str, Any] = {"kind": "ConfigMap"}
    overrider = LabelAnnotationOverrider.model_validate({"operator": "add", "value": {"a": "1"}})
    apply_label_annotation_overrider(obj, overrider, MetadataMap.LABELS)
    assert obj == {"kind": "ConfigMap", "metadata": {"labels": {"a": "1"}}}


@pytest.mark.parametrize(
    "metadata",
    [{"labels": {"a": 1}}, {"labels": ["a"]}, "not-a-map"],
    ids=["non-string-value", "list", "metadata"],
)
def test_malformed_metadata_is_an_error(metadata: Any) -> None:
    obj = {"kind": "ConfigMap", "metadata": metadata}
    overrider = LabelAnnotationOverrider.model_validate({"operator": "add", "value": {"a": "1"}})
    with pytest.raises(OverriderError, match="is not a map"):
        apply_label_annotation_overrider(obj, overrider, MetadataMap.LABELS)
