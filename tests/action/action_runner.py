"""Runs the composite action of ``action.yml`` the way a runner does: each ``run:`` step as a bash script.

``${{ ... }}`` expressions are evaluated for the contexts the action uses (inputs, github.token,
github.action_path, runner.os, runner.temp, steps.<id>.outputs.<name>). ``uses:`` steps are not run: their
``with:`` is evaluated and recorded, and actions/setup-python "provides" a shim interpreter as its
``python-path`` output (the test's Python is already there). The shim answers ``-m venv --clear DIR``
by making ``DIR/bin/python`` another shim, and ``-m pip`` by recording its arguments and ``PIP_CACHE_DIR``
(installing would need the network); every other call runs this interpreter.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_SHIM = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  printf '%s\\n' "$0" "$@" "PIP_CACHE_DIR=$PIP_CACHE_DIR" >> "$PIP_LOG"
  exit 0
fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  printf '%s\\n' "$0" "$@" >> "$PIP_LOG"
  rm -rf "$4" && mkdir -p "$4/bin"
  cp "$0" "$4/bin/python"
  exit 0
fi
exec {python} "$@"
"""
SETUP_PYTHON_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"


@dataclass
class StepRun:
    id: str
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]


@dataclass
class UsesStep:
    """A ``uses:`` step, not run: the action and its evaluated ``with:``."""

    uses: str
    inputs: dict[str, str]


@dataclass
class ActionRun:
    steps: list[StepRun] = field(default_factory=list)
    uses: list[UsesStep] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def returncode(self) -> int:
        return next((s.returncode for s in self.steps if s.returncode != 0), 0)

    @property
    def log(self) -> str:
        return "".join(s.stdout + s.stderr for s in self.steps)


def parse_output_file(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as the runner reads it: ``name=value`` lines and ``name<<DELIMITER`` heredocs."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            while lines[index] != delimiter:
                body.append(lines[index])
                index += 1
            index += 1
            values[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            values[name] = value
    return values


def run_action(inputs: dict[str, str], env: dict[str, str], work: Path, *, token: str) -> ActionRun:
    """Run every step of ``action.yml`` with ``inputs`` (the ``with:`` map), the runner's ``env`` and
    ``token`` as ``github.token`` (the workflow token: not in any step's environment unless passed)."""
    action: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    shims = work / "shims"
    shims.mkdir(parents=True, exist_ok=True)
    shim = shims / "python"
    shim.write_text(_SHIM.format(python=sys.executable))
    shim.chmod(0o755)
    base_env = {
        **env,
        "PIP_LOG": str(work / "pip.log"),
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_OS": "Linux",
    }
    context: dict[str, Any] = {
        "github": {"token": token, "action_path": str(ROOT)},
        "runner": {"os": "Linux", "temp": env["RUNNER_TEMP"]},
        "steps": {},
    }
    declared = action.get("inputs", {})
    context["inputs"] = {}
    for name, spec in declared.items():
        raw = inputs.get(name, str(spec.get("default", "")))
        context["inputs"][name] = evaluate(raw, context)
    run = ActionRun()
    for index, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"step{index}")
        if "uses" in step:
            with_ = {k: evaluate(scalar(v), context) for k, v in step.get("with", {}).items()}
            run.uses.append(UsesStep(step["uses"], with_))
            outputs = {}
            if step["uses"].startswith("actions/setup-python@"):
                outputs = {"python-path": str(shim), "python-version": SETUP_PYTHON_VERSION}
            elif step["uses"].startswith("actions/cache@"):
                outputs = {"cache-hit": "false"}
            context["steps"][step_id] = {"outputs": outputs}
            continue
        assert step.get("shell") == "bash", f"step {step_id} must say shell: bash"
        output_file = work / f"output-{step_id}"
        output_file.write_text("")
        step_env = {
            **base_env,
            **{k: evaluate(str(v), context) for k, v in step.get("env", {}).items()},
            "GITHUB_OUTPUT": str(output_file),
        }
        script = work / f"step-{step_id}.sh"
        script.write_text(evaluate(step["run"], context))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            env=step_env,
            cwd=env["GITHUB_WORKSPACE"],
            capture_output=True,
            text=True,
            check=False,
        )
        outputs = parse_output_file(output_file.read_text())
        context["steps"][step_id] = {"outputs": outputs}
        run.steps.append(StepRun(step_id, done.returncode, done.stdout, done.stderr, outputs))
        if done.returncode != 0:
            break
    run.outputs = {
        name: evaluate(str(spec["value"]), context) for name, spec in action.get("outputs", {}).items()
    }
    return run


def scalar(value: object) -> str:
    """A YAML scalar as the runner passes it on: booleans as ``true``/``false``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def evaluate(text: str, context: dict[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        parts = expression.split(".")
        assert parts[0] in context, f"unknown context in {expression!r}"
        if parts[0] in ("inputs", "github", "runner"):
            assert len(parts) == 2 and parts[1] in context[parts[0]], f"unknown name in {expression!r}"
        current: Any = context
        for part in parts:
            assert isinstance(current, dict), f"cannot evaluate {expression!r}"
            current = current.get(part, "")  # like the runner: a step that did not run has no outputs
        assert isinstance(current, str), f"{expression!r} is not a string"
        return current

    return _EXPRESSION.sub(value, text)
