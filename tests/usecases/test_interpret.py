"""``interpret`` as a use case, in process: customizations read from the repository or from files,
checked in the sandbox, and one operation run by the pipeline's chain (a customization first, then the
built-in interpreters)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import pytest
import yaml

from gitops_karmada.core.interpreter import Operation
from gitops_karmada.model.errors import UsageError
from gitops_karmada.usecases.interpret import (
    answered_by,
    check_customizations,
    interpreter_for,
    load_customizations,
    run_operation,
)
from tests.builders import deployment
from tests.cli.test_interpreters import WORKERS_RIC, workers, workers_fleet

if TYPE_CHECKING:
    from pathlib import Path

NOW = "2026-01-02T03:04:05Z"


def test_the_repositorys_customizations_are_checked_and_answer_first(tmp_path: Path) -> None:
    repo = workers_fleet(tmp_path, WORKERS_RIC)
    loaded = load_customizations((), repo.path, "HEAD", worktree=False)
    assert not loaded.errors and [c.name for c in loaded.found] == ["workers"]
    assert [(c.name, c.problems) for c in check_customizations(loaded.found)] == [("workers", ())]
    interpreter = interpreter_for(loaded.found)
    desired = workers("w", 5)
    assert answered_by(interpreter, Operation.INTERPRET_REPLICA, desired, None) == "customization/workers"
    answer = run_operation(interpreter, Operation.INTERPRET_REPLICA, desired, None, now=NOW)
    assert answer == {"replicas": 5, "requires": {"resourceRequest": {"cpu": "1"}}}
    revised = run_operation(interpreter, Operation.REVISE_REPLICA, desired, None, replicas=2, now=NOW)
    assert revised["spec"]["size"] == 2 and desired["spec"]["size"] == 5, "a new object, the given one kept"


def test_a_deployment_is_answered_by_the_native_interpreter(tmp_path: Path) -> None:
    repo = workers_fleet(tmp_path, WORKERS_RIC)
    interpreter = interpreter_for(load_customizations((), repo.path, "HEAD", worktree=True).found)
    web = deployment("web", replicas=3)
    assert answered_by(interpreter, Operation.INTERPRET_REPLICA, None, web) == "native"
    assert run_operation(interpreter, Operation.INTERPRET_REPLICA, None, web, now=NOW)["replicas"] == 3
    with pytest.raises(UsageError, match="ReviseReplica needs the desired replica count"):
        run_operation(interpreter, Operation.REVISE_REPLICA, web, None, now=NOW)
    with pytest.raises(UsageError, match="Retain needs both"):
        run_operation(interpreter, Operation.RETAIN, web, None, now=NOW)


def test_files_given_replace_the_repositorys_and_a_broken_script_names_its_problem(tmp_path: Path) -> None:
    repo = workers_fleet(tmp_path, WORKERS_RIC)
    broken = copy.deepcopy(WORKERS_RIC)
    broken["spec"]["customizations"]["replicaResource"]["luaScript"] = "function GetReplicas(obj\n"
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    loaded = load_customizations((tmp_path / "broken.yaml",), repo.path, "HEAD", worktree=False)
    ((name, problems),) = [(c.name, c.problems) for c in check_customizations(loaded.found)]
    assert name == "workers" and problems
    (tmp_path / "not-a-ric.yaml").write_text(
        "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\n"
    )
    assert load_customizations((tmp_path / "not-a-ric.yaml",), repo.path, "HEAD", worktree=False).errors
