"""Every case of tests/vectors/overriders.yaml, fixtures included, through the public functions."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.core.overrides.apply import plaintext_patch
from gitops_karmada.core.overrides.commandargs import CommandArgsTarget, command_args_patches
from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.fields import apply_field_overrider
from gitops_karmada.core.overrides.image import image_overrider_patches
from gitops_karmada.core.overrides.imageref import ImageComponents, parse_image, split_hostname
from gitops_karmada.core.overrides.labels import MetadataMap, apply_label_annotation_overrider
from gitops_karmada.core.overrides.patch import PatchError, apply_patch
from gitops_karmada.core.overrides.pointer import pointer_get
from gitops_karmada.core.overrides.selection import select_overriders
from gitops_karmada.model.overrides import (
    CommandArgsOverrider,
    FieldOverrider,
    ImageOverrider,
    LabelAnnotationOverrider,
    PlaintextOverrider,
)
from tests.core.overrides.builders import cluster, override_policy

_FILE = yaml.safe_load((Path(__file__).parents[2] / "vectors" / "overriders.yaml").read_text())
FIXTURES: dict[str, Any] = _FILE["fixtures"]
CASES: list[dict[str, Any]] = _FILE["cases"]


def _object(reference: Any) -> dict[str, Any]:
    return copy.deepcopy(FIXTURES[reference] if isinstance(reference, str) else reference)


def _patches_as_dicts(patches: Any) -> list[dict[str, Any]]:
    return [patch.to_dict() for patch in patches]


def _run_image_overrider_patches(case: dict[str, Any]) -> None:
    overrider = ImageOverrider.model_validate(case["input"]["overrider"])
    patches = image_overrider_patches(_object(case["input"]["object"]), overrider)
    assert _patches_as_dicts(patches) == case["expected"]["patches"]


def _run_image_parse(case: dict[str, Any]) -> None:
    image = parse_image(case["input"]["image"])
    expected = case["expected"]
    assert (image.hostname, image.repository, image.tag, image.digest, str(image)) == (
        expected["hostname"],
        expected["repository"],
        expected["tag"],
        expected["digest"],
        expected["string"],
    )


def _run_image_split_hostname(case: dict[str, Any]) -> None:
    assert split_hostname(case["input"]["name"]) == (
        case["expected"]["hostname"],
        case["expected"]["repository"],
    )


def _apply_component_op(image: ImageComponents, op: list[str]) -> ImageComponents:
    match op:
        case ["set_hostname", value]:
            return image.with_hostname(value)
        case ["remove_hostname"]:
            return image.without_hostname()
        case ["set_repository", value]:
            return image.with_repository(value)
        case ["remove_repository"]:
            return image.without_repository()
        case ["set_tag_or_digest", value]:
            return image.with_tag_or_digest(value)
        case ["remove_tag_or_digest"]:
            return image.without_tag_or_digest()
    raise AssertionError(f"unknown component operation {op!r}")


def _run_image_component_ops(case: dict[str, Any]) -> None:
    image = parse_image(case["input"]["image"])
    strings = []
    for op in case["input"]["ops"]:
        image = _apply_component_op(image, op)
        strings.append(str(image))
    assert strings == case["expected"]["strings"]


def _run_command_args(case: dict[str, Any], target: CommandArgsTarget) -> None:
    overrider = CommandArgsOverrider.model_validate(case["input"]["overrider"])
    patches = command_args_patches(_object(case["input"]["object"]), overrider, target)
    assert _patches_as_dicts(patches) == case["expected"]["patches"]


def _run_metadata_map(case: dict[str, Any], field: MetadataMap) -> None:
    obj = _object(case["input"]["object"])
    for raw in case["input"]["overriders"]:
        apply_label_annotation_overrider(obj, LabelAnnotationOverrider.model_validate(raw), field)
    assert obj["metadata"][field.value] == case["expected"]["result"]


def _run_matching_overriders(case: dict[str, Any]) -> None:
    ids: dict[tuple[str, int], str] = {}
    policies = []
    for raw in case["input"]["policies"]:
        rules = []
        for index, raw_rule in enumerate(raw["overrideRules"]):
            ids[(raw["name"], index)] = raw_rule["overriders_id"]
            rules.append({key: value for key, value in raw_rule.items() if key != "overriders_id"})
        policies.append(
            override_policy(
                raw["name"],
                raw["namespace"],
                resourceSelectors=raw.get("resourceSelectors", []),
                overrideRules=rules,
            )
        )
    blocks = select_overriders(
        case["input"]["resource"], cluster(case["input"]["cluster"]["name"]), [], policies
    )
    applied = [{"policy": b.policy.name, "overriders_id": ids[(b.policy.name, b.rule_index)]} for b in blocks]
    assert applied == case["expected"]["applied"]


def _run_field_overrider(case: dict[str, Any]) -> None:
    obj = _object(case["input"]["object"])
    overrider = FieldOverrider.model_validate(case["input"]["field_overrider"])
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(OverriderError, match=expected["error"] or None):
            apply_field_overrider(obj, overrider)
        return
    apply_field_overrider(obj, overrider)
    value = pointer_get(obj, expected["field"])
    if "value" in expected:
        assert value == expected["value"]
    for fragment in expected.get("contains", []):
        assert fragment in value
    for fragment in expected.get("not_contains", []):
        assert fragment not in value


def _run_plaintext_overrider(case: dict[str, Any]) -> None:
    obj = _object(case["input"]["object"])
    patch = [plaintext_patch(PlaintextOverrider.model_validate(raw)) for raw in case["input"]["plaintext"]]
    expected = case["expected"]
    if "error" in expected:
        before = copy.deepcopy(obj)
        with pytest.raises(PatchError, match=expected["error"] or None):
            apply_patch(obj, patch)
        assert obj == before  # the failing op is the only one here: nothing was applied
        return
    apply_patch(obj, patch)
    assert obj["metadata"]["labels"] == expected["labels"]


RUNNERS = {
    "image_overrider_patches": _run_image_overrider_patches,
    "image_parse": _run_image_parse,
    "image_split_hostname": _run_image_split_hostname,
    "image_component_ops": _run_image_component_ops,
    "command_overrider_patches": lambda case: _run_command_args(case, CommandArgsTarget.COMMAND),
    "args_overrider_patches": lambda case: _run_command_args(case, CommandArgsTarget.ARGS),
    "apply_labels_overriders": lambda case: _run_metadata_map(case, MetadataMap.LABELS),
    "apply_annotations_overriders": lambda case: _run_metadata_map(case, MetadataMap.ANNOTATIONS),
    "matching_overriders": _run_matching_overriders,
    "field_overrider": _run_field_overrider,
    "plaintext_overrider": _run_plaintext_overrider,
}


def test_every_vector_function_has_a_runner() -> None:
    assert {case["function"] for case in CASES} <= RUNNERS.keys()


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_vector(case: dict[str, Any]) -> None:
    RUNNERS[case["function"]](case)
