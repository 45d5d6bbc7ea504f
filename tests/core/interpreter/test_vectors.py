"""Every case of tests/vectors/interpreters.yaml through the interpreter chain."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.interpreter import Operation, ResourceInterpreter, ResourceInterpretError
from gitops_karmada.model.bindings import AggregatedStatusItem
from tests.core.interpreter.vectors import (
    components_of,
    hint_fragment,
    load_cases,
    normalized_components,
    normalized_requirements,
    requirements_of,
    status_with_zero_defaults,
)

CASES = load_cases()
INTERPRETER = ResourceInterpreter()


def _run(case: dict[str, Any]) -> Any:
    operation = Operation(case["operation"])
    given = case["input"]
    match operation:
        case Operation.INTERPRET_COMPONENT:
            return INTERPRETER.get_components(given["object"])
        case Operation.INTERPRET_REPLICA:
            return INTERPRETER.get_replicas(given["object"])
        case Operation.REVISE_REPLICA:
            return INTERPRETER.revise_replica(given["object"], given["replicas"])
        case Operation.RETAIN:
            return INTERPRETER.retain(given["desired"], given["observed"])
        case Operation.AGGREGATE_STATUS:
            items = [AggregatedStatusItem.model_validate(item) for item in given["statusItems"]]
            return INTERPRETER.aggregate_status(given["object"], items)
        case Operation.INTERPRET_HEALTH:
            return INTERPRETER.interpret_health(given["object"])
        case Operation.INTERPRET_DEPENDENCY:
            return INTERPRETER.get_dependencies(given["object"])
    raise AssertionError(f"no runner for {operation}")  # pragma: no cover


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_vector(case: dict[str, Any]) -> None:
    expected = case["expected"]
    target = case["target"]
    operation = Operation(case["operation"])
    expected_layer = "thirdparty" if case["interpreter"] == "thirdparty-lua" else "native"

    if "hook_enabled" in expected:
        assert (
            INTERPRETER.hook_enabled(target["apiVersion"], target["kind"], operation)
            is expected["hook_enabled"]
        )
        assert INTERPRETER.work_status_health(case["input"]["object"]) == expected["work_status_health"]
        return
    assert INTERPRETER.answered_by(target["apiVersion"], target["kind"], operation) == expected_layer

    if expected.get("error"):
        with pytest.raises(ResourceInterpretError) as raised:
            _run(case)
        assert hint_fragment(expected["error_hint"]) in str(raised.value)
        return

    answer = _run(case)
    if "components" in expected:
        assert components_of(answer) == normalized_components(expected["components"])
    elif "replicas" in expected:
        replicas, requirements = answer
        assert replicas == expected["replicas"]
        assert requirements_of(requirements) == normalized_requirements(expected["requires"])
    elif "object" in expected:
        if operation is Operation.AGGREGATE_STATUS:
            assert status_with_zero_defaults(answer.get("status")) == status_with_zero_defaults(
                expected["object"].get("status")
            )
        else:
            assert answer == expected["object"]
    elif "healthy" in expected:
        assert answer is expected["healthy"]
    elif "dependencies" in expected:
        got = {(d.api_version, d.kind, d.namespace, d.name) for d in answer}
        want = {(d["apiVersion"], d["kind"], d["namespace"], d["name"]) for d in expected["dependencies"]}
        assert got == want
        assert len(answer) == len(got), "dependencies must be de-duplicated"
    else:  # pragma: no cover - a case format this test does not know must not pass silently
        pytest.fail(f"unknown expectation {sorted(expected)}")


def test_vector_file_has_every_case_it_announces() -> None:
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 47
