"""commandOverrider / argsOverrider (spec §3.5): which containers, add vs replace, remove semantics."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.overrides.commandargs import CommandArgsTarget, command_args_patches
from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.model.overrides import CommandArgsOverrider
from tests.core.overrides.builders import deployment

COMMAND, ARGS = CommandArgsTarget.COMMAND, CommandArgsTarget.ARGS
PATH = "/spec/template/spec/containers"


def _overrider(operator: str, value: list[str], name: str = "app") -> CommandArgsOverrider:
    return CommandArgsOverrider.model_validate({"containerName": name, "operator": operator, "value": value})


# (id, containers, target, operator, value, expected patches as (op, path, value))
CASES: list[
    tuple[str, list[dict[str, Any]], CommandArgsTarget, str, list[str], list[tuple[str, str, Any]]]
] = [
    (
        "add-appends",
        [{"name": "app", "command": ["run"]}],
        COMMAND,
        "add",
        ["-v"],
        [("replace", f"{PATH}/0/command", ["run", "-v"])],
    ),
    (
        "add-without-field-adds-it",
        [{"name": "app"}],
        ARGS,
        "add",
        ["-v", "-x"],
        [("add", f"{PATH}/0/args", ["-v", "-x"])],
    ),
    (
        "remove-every-occurrence",
        [{"name": "app", "args": ["-v", "a", "-v", "b", "-x"]}],
        ARGS,
        "remove",
        ["-v", "-x"],
        [("replace", f"{PATH}/0/args", ["a", "b"])],
    ),
    (
        "remove-without-field-adds-empty-list",
        [{"name": "app"}],
        COMMAND,
        "remove",
        ["-v"],
        [("add", f"{PATH}/0/command", [])],
    ),
    (
        "null-field-counts-as-absent",
        [{"name": "app", "command": None}],
        COMMAND,
        "add",
        ["x"],
        [("add", f"{PATH}/0/command", ["x"])],
    ),
    (
        "every-container-of-that-name",
        [{"name": "app", "args": ["a"]}, {"name": "other", "args": ["a"]}, {"name": "app"}],
        ARGS,
        "add",
        ["b"],
        [("replace", f"{PATH}/0/args", ["a", "b"]), ("add", f"{PATH}/2/args", ["b"])],
    ),
    ("no-such-container", [{"name": "other", "args": ["a"]}], ARGS, "add", ["b"], []),
    (
        "command-does-not-touch-args",
        [{"name": "app", "args": ["a"]}],
        COMMAND,
        "add",
        [],
        [("add", f"{PATH}/0/command", [])],
    ),
]


@pytest.mark.parametrize(
    ("containers", "target", "operator", "value", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_command_args_patches(
    containers: list[dict[str, Any]],
    target: CommandArgsTarget,
    operator: str,
    value: list[str],
    expected: list[tuple[str, str, Any]],
) -> None:
    patches = command_args_patches(deployment(containers=containers), _overrider(operator, value), target)
    assert [(p.op.value, p.path, p.value) for p in patches] == expected


def test_pod_uses_spec_containers_and_other_kinds_nothing() -> None:
    pod = {"kind": "Pod", "spec": {"containers": [{"name": "app", "command": ["a"]}]}}
    assert [p.path for p in command_args_patches(pod, _overrider("add", ["b"]), COMMAND)] == [
        "/spec/containers/0/command"
    ]
    service = {"kind": "Service", "spec": {"containers": [{"name": "app"}]}}
    assert command_args_patches(service, _overrider("add", ["b"]), COMMAND) == ()


@pytest.mark.parametrize(
    ("container", "message"),
    [
        ({"name": "app", "command": "run"}, "command is not a list of strings"),
        ({"name": "app", "command": [1]}, "not a list"),
    ],
    ids=["string", "non-string-item"],
)
def test_malformed_command_is_an_error(container: dict[str, Any], message: str) -> None:
    with pytest.raises(OverriderError, match=message) as raised:
        command_args_patches(deployment(containers=[container]), _overrider("add", ["x"]), COMMAND)
    assert raised.value.path == f"{PATH}/0/command"
