"""action.yml and the example workflows, checked by the rules of GitHub's metadata and workflow syntax.

actionlint cannot be installed here (it is a Go binary), so this is a small checker of our own, limited
to the rules these files can break: the keys GitHub requires, descriptions, the expressions' references
(inputs, step outputs, contexts), third-party actions pinned by commit SHA with the release named in a
comment, permission values. The checker is tested on broken documents too, so that it can fail.
Documents are read with PyYAML (YAML 1.1, as the files are written to be read by any loader; its one
surprise, the key ``on`` read as ``True``, is undone here).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gitops_karmada.action.publish import StepResult
from gitops_karmada.action.settings import Mode

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOWS = sorted((ROOT / "repo-layout" / ".github" / "workflows").glob("*.yaml"))
OWN_ACTION = "gitops-karmada/gitops-karmada"
"""This project's action: a fleet repository pins it to a release of its choosing (not a third party's)."""

ACTION_KEYS = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
INPUT_KEYS = {"description", "required", "default", "deprecationMessage"}
RUNS_USING = {"composite", "node20", "node24", "docker"}
BRANDING_COLORS = {"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}
COMPOSITE_STEP_KEYS = {"name", "id", "if", "run", "shell", "uses", "with", "env", "working-directory"}
COMPOSITE_STEP_KEYS |= {"continue-on-error"}
WORKFLOW_STEP_KEYS = COMPOSITE_STEP_KEYS | {"timeout-minutes"}
ACTION_CONTEXTS = {"github", "inputs", "steps", "runner", "env", "job", "strategy", "matrix"}
WORKFLOW_CONTEXTS = {"github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy"}
WORKFLOW_CONTEXTS |= {"matrix", "needs", "inputs"}
FUNCTIONS = {"contains", "startsWith", "endsWith", "format", "join", "toJSON", "fromJSON", "hashFiles"}
FUNCTIONS |= {"success", "always", "cancelled", "failure"}
PERMISSION_SCOPES = {
    "actions", "attestations", "checks", "contents", "deployments", "discussions", "id-token", "issues",
    "models", "packages", "pages", "pull-requests", "repository-projects", "security-events", "statuses",
}  # fmt: skip
PERMISSION_VALUES = {"read", "write", "none"}

_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_QUOTED = re.compile(r"'(?:[^']|'')*'")
_IDENTIFIER = re.compile(r"(?<![\w.-])([A-Za-z_][\w-]*)\s*(?=[.\[(])")
_INPUT_REFERENCE = re.compile(r"\binputs\.([A-Za-z_][\w-]*)")
_STEP_REFERENCE = re.compile(r"\bsteps\.([A-Za-z_][\w-]*)\.outputs\b")
_STEP_ID = re.compile(r"^[A-Za-z_][\w-]*$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<value>\S+)\s*(?:#\s*(?P<comment>.*))?$")
_RELEASE = re.compile(r"^v\d+\.\d+\.\d+$")


# -- the checker -----------------------------------------------------------------------------------------


def load(text: str) -> Any:
    document = yaml.safe_load(text)
    if isinstance(document, dict) and True in document:  # YAML 1.1 reads the key `on` as a boolean
        document["on"] = document.pop(True)
    return document


def _strings(node: Any) -> list[str]:
    """Every string value under ``node`` (keys left out)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def _expressions(node: Any, conditions: bool = True) -> list[str]:
    """The ``${{ }}`` expressions under ``node``, and the bare ``if:`` conditions (implicitly expressions)."""
    found = [m.group(1) for text in _strings(node) for m in _EXPRESSION.finditer(text)]
    if conditions:
        found += [
            str(item["if"])
            for item in _walk_mappings(node)
            if "if" in item and isinstance(item["if"], str) and "${{" not in item["if"]
        ]
    return found


def _walk_mappings(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        return [node, *[m for value in node.values() for m in _walk_mappings(value)]]
    if isinstance(node, list):
        return [m for value in node for m in _walk_mappings(value)]
    return []


def _check_expressions(node: Any, contexts: set[str], where: str) -> list[str]:
    problems = []
    for expression in _expressions(node):
        bare = _QUOTED.sub("''", expression)
        for name in _IDENTIFIER.findall(bare):
            if name not in contexts and name not in FUNCTIONS:
                problems.append(f"{where}: unknown context or function {name!r} in ${{{{{expression}}}}}")
    return problems


def _check_pins(text: str, document_uses: list[str], where: str) -> list[str]:
    """Third-party ``uses:`` pinned by a full commit SHA, the release named in a trailing comment."""
    comments = {}
    for line in text.splitlines():
        match = _USES_LINE.match(line)
        if match:
            comments[match.group("value")] = (match.group("comment") or "").strip()
    problems = []
    for uses in document_uses:
        if uses.startswith(("./", "docker://", OWN_ACTION + "@")):
            continue
        action, _, ref = uses.partition("@")
        if not _SHA.match(ref):
            problems.append(f"{where}: {uses} is not pinned by a 40-hex commit SHA")
        elif not _RELEASE.match(comments.get(uses, "").split()[0] if comments.get(uses) else ""):
            problems.append(f"{where}: {action}@{ref[:12]}… has no `# vX.Y.Z` comment naming its release")
    return problems


def _check_steps(steps: Any, allowed_keys: set[str], where: str, *, composite: bool) -> list[str]:
    if not isinstance(steps, list) or not steps:
        return [f"{where}: steps must be a non-empty list"]
    problems = []
    ids: list[str] = []
    for index, step in enumerate(steps):
        label = f"{where} step {step.get('id') or step.get('name') or index}"
        unknown = set(step) - allowed_keys
        if unknown:
            problems.append(f"{label}: unknown key(s) {sorted(unknown)}")
        if ("run" in step) == ("uses" in step):
            problems.append(f"{label}: needs exactly one of run and uses")
        if composite and "run" in step and "shell" not in step:
            problems.append(f"{label}: a run step of a composite action needs shell")
        if "uses" in step and ("shell" in step or "working-directory" in step):
            problems.append(f"{label}: shell and working-directory are for run steps")
        step_id = step.get("id")
        if step_id is not None:
            if not _STEP_ID.match(str(step_id)):
                problems.append(f"{label}: id {step_id!r} must start with a letter or _")
            if step_id in ids:
                problems.append(f"{label}: duplicate id {step_id!r}")
        # a step can read the outputs of the steps before it only
        for referenced in {r for e in _expressions(step) for r in _STEP_REFERENCE.findall(e)}:
            if referenced not in ids:
                problems.append(f"{label}: steps.{referenced}.outputs names no earlier step")
        if step_id is not None:
            ids.append(str(step_id))
    return problems


def check_action(text: str) -> list[str]:
    """Problems of an ``action.yml`` (empty when it follows the rules)."""
    action = load(text)
    if not isinstance(action, dict):
        return ["action.yml: not a mapping"]
    problems = [
        f"action.yml: missing {key}" for key in ("name", "description", "runs") if not action.get(key)
    ]
    unknown = set(action) - ACTION_KEYS
    if unknown:
        problems.append(f"action.yml: unknown key(s) {sorted(unknown)}")
    inputs = action.get("inputs") or {}
    for name, spec in inputs.items():
        if not isinstance(spec, dict) or not str(spec.get("description", "")).strip():
            problems.append(f"input {name}: no description")
        elif set(spec) - INPUT_KEYS:
            problems.append(f"input {name}: unknown key(s) {sorted(set(spec) - INPUT_KEYS)}")
    runs = action.get("runs") or {}
    using = runs.get("using")
    if using not in RUNS_USING:
        problems.append(f"runs.using: {using!r} is not one of {sorted(RUNS_USING)}")
    steps = runs.get("steps") or []
    step_ids = {str(s["id"]) for s in steps if isinstance(s, dict) and "id" in s}
    for name, spec in (action.get("outputs") or {}).items():
        if not isinstance(spec, dict) or not str(spec.get("description", "")).strip():
            problems.append(f"output {name}: no description")
        if using == "composite" and (not isinstance(spec, dict) or "value" not in spec):
            problems.append(f"output {name}: a composite action's output needs value")
        for referenced in {r for e in _expressions(spec) for r in _STEP_REFERENCE.findall(e)}:
            if referenced not in step_ids:
                problems.append(f"output {name}: steps.{referenced}.outputs names no step")
    if using == "composite":
        problems += _check_steps(steps, COMPOSITE_STEP_KEYS, "runs", composite=True)
    for expression in _expressions(runs) + _expressions(action.get("outputs")):
        for referenced in _INPUT_REFERENCE.findall(expression):
            if referenced not in inputs:
                problems.append(f"inputs.{referenced} is not a declared input")
    problems += _check_expressions(runs, ACTION_CONTEXTS, "runs")
    problems += _check_expressions(action.get("outputs"), ACTION_CONTEXTS, "outputs")
    problems += _check_expressions(inputs, {"github"}, "inputs")  # defaults may read github only
    uses = [str(s["uses"]) for s in steps if isinstance(s, dict) and "uses" in s]
    problems += _check_pins(text, uses, "action.yml")
    branding = action.get("branding") or {}
    if branding and branding.get("color") not in BRANDING_COLORS:
        problems.append(f"branding.color: {branding.get('color')!r} is not one GitHub offers")
    return problems


def _check_permissions(permissions: Any, where: str) -> list[str]:
    if permissions in ("read-all", "write-all", None) or permissions == {}:
        return []
    if not isinstance(permissions, dict):
        return [f"{where}: permissions must be read-all, write-all or a mapping"]
    problems = []
    for scope, value in permissions.items():
        if scope not in PERMISSION_SCOPES:
            problems.append(f"{where}: unknown permission scope {scope!r}")
        if value not in PERMISSION_VALUES:
            problems.append(f"{where}: permission {scope}: {value!r} is not one of read, write, none")
    return problems


def check_workflow(text: str, action_inputs: dict[str, Any] | None = None) -> list[str]:
    """Problems of a workflow file; ``action_inputs`` (action.yml's) checks the ``with:`` of our action."""
    workflow = load(text)
    if not isinstance(workflow, dict):
        return ["workflow: not a mapping"]
    problems = [f"workflow: missing {key}" for key in ("on", "jobs") if not workflow.get(key)]
    problems += _check_permissions(workflow.get("permissions"), "workflow")
    jobs = workflow.get("jobs") or {}
    for job_id, job in jobs.items():
        where = f"job {job_id}"
        if not isinstance(job, dict):
            problems.append(f"{where}: not a mapping")
            continue
        for needed in job.get("needs", []) if isinstance(job.get("needs"), list) else [job.get("needs")]:
            if needed is not None and needed not in jobs:
                problems.append(f"{where}: needs unknown job {needed!r}")
        problems += _check_permissions(job.get("permissions"), where)
        if "uses" in job:  # a reusable workflow
            continue
        for key in ("runs-on", "steps"):
            if key not in job:
                problems.append(f"{where}: missing {key}")
        steps = job.get("steps") or []
        problems += _check_steps(steps, WORKFLOW_STEP_KEYS, where, composite=False)
        uses = [str(s["uses"]) for s in steps if isinstance(s, dict) and "uses" in s]
        problems += _check_pins(text, uses, where)
        for step in steps:
            if action_inputs is not None and str(step.get("uses", "")).startswith(OWN_ACTION + "@"):
                for name, value in (step.get("with") or {}).items():
                    if name not in action_inputs:
                        problems.append(f"{where}: {OWN_ACTION} has no input {name!r}")
                    elif name == "mode" and value not in {m.value for m in Mode}:
                        problems.append(f"{where}: mode {value!r} is not one the action accepts")
    problems += _check_expressions(workflow, WORKFLOW_CONTEXTS, "workflow")
    return problems


# -- the shipped files -----------------------------------------------------------------------------------


def test_action_yml_follows_the_metadata_rules() -> None:
    assert check_action(ACTION.read_text()) == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_example_workflow_follows_the_workflow_rules(path: Path) -> None:
    action_inputs = load(ACTION.read_text())["inputs"]
    assert check_workflow(path.read_text(), action_inputs) == []


def test_the_three_example_workflows_run_the_action_in_its_three_modes() -> None:
    modes = set()
    for path in WORKFLOWS:
        for job in load(path.read_text())["jobs"].values():
            for step in job["steps"]:
                if str(step.get("uses", "")).startswith(OWN_ACTION + "@"):
                    modes.add((step.get("with") or {}).get("mode", Mode.DIFF.value))
                assert "pip install" not in str(step.get("run", "")), path.name
    assert modes == {m.value for m in Mode}


def test_the_documented_modes_are_the_ones_the_code_accepts() -> None:
    action = load(ACTION.read_text())
    mode = action["inputs"]["mode"]
    assert mode["default"] == Mode.DIFF.value
    assert set(re.findall(r"`(\w+)`", mode["description"])) == {m.value for m in Mode}
    header = "\n".join(line for line in ACTION.read_text().splitlines() if line.startswith("#"))
    assert set(re.findall(r"^#   (\w+) ", header, re.MULTILINE)) == {m.value for m in Mode}
    docs = (ROOT / "docs" / "action.md").read_text()
    for m in Mode:
        assert f"`mode: {m.value}`" in docs, m


def test_the_outputs_are_the_ones_the_code_writes() -> None:
    action = load(ACTION.read_text())
    assert set(action["outputs"]) == set(StepResult(exit_code=0).outputs())


def test_every_input_reaches_the_step_that_reads_it() -> None:
    """Each input but python-version (used by setup-python) travels to the Python step as INPUT_<NAME>."""
    action = load(ACTION.read_text())
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "run"]
    expected = {
        f"INPUT_{name.upper().replace('-', '_')}": f"${{{{ inputs.{name} }}}}"
        for name in action["inputs"]
        if name != "python-version"
    }
    assert {k: v for k, v in step["env"].items() if k.startswith("INPUT_")} == expected


def test_the_documented_permissions_per_mode() -> None:
    header = ACTION.read_text()
    docs = (ROOT / "docs" / "action.md").read_text()
    for text in (header, docs):
        assert "contents: read, pull-requests: write" in text
        assert "contents: write" in text
    permissions = {p.stem: load(p.read_text())["permissions"] for p in WORKFLOWS}
    assert permissions == {
        "placement-diff": {"contents": "read", "pull-requests": "write"},
        "verify": {"contents": "read"},
        "reconcile": {"contents": "write"},
    }


# -- the checker fails where it should ---------------------------------------------------------------------

GOOD_ACTION = """
name: demo
description: a demo
inputs:
  who:
    description: whom to greet
    default: world
outputs:
  greeting:
    description: what was said
    value: ${{ steps.greet.outputs.greeting }}
runs:
  using: composite
  steps:
    - uses: actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065 # v5.6.0
    - id: greet
      shell: bash
      env:
        WHO: ${{ inputs.who }}
      run: echo "greeting=hello $WHO" >> "$GITHUB_OUTPUT"
"""

GOOD_WORKFLOW = """
name: demo
on: push
permissions:
  contents: read
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - id: make
        run: echo "out=1" >> "$GITHUB_OUTPUT"
      - if: steps.make.outputs.out == '1'
        run: echo ok
"""


def test_the_good_examples_pass() -> None:
    assert check_action(GOOD_ACTION) == []
    assert check_workflow(GOOD_WORKFLOW) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("name: demo\n", "", "action.yml: missing name"),
        ("    description: whom to greet\n", "", "input who: no description"),
        ("    description: what was said\n", "", "output greeting: no description"),
        ("  using: composite", "  using: node12", "runs.using: 'node12' is not one of"),
        ("      shell: bash\n", "", "step greet: a run step of a composite action needs shell"),
        ("${{ inputs.who }}", "${{ inputs.whom }}", "inputs.whom is not a declared input"),
        ("steps.greet.outputs", "steps.hello.outputs", "output greeting: steps.hello.outputs names no step"),
        ("${{ inputs.who }}", "${{ secrets.WHO }}", "unknown context or function 'secrets'"),
        ("@a26af69be951a213d495a4c3e4e4022e16d87065 # v5.6.0", "@v5", "not pinned by a 40-hex commit SHA"),
        ("@a26af69be951a213d495a4c3e4e4022e16d87065 # v5.6.0", "@a26af69be951a213d495a4c3e4e4022e16d87065", "no `# vX.Y.Z` comment"),
        ("    - id: greet\n", "    - id: greet\n      uses: actions/cache@5a3ec84eff668545956fd18022155c47e93e2684 # v4.2.3\n", "needs exactly one of run and uses"),
    ],
    ids=[
        "no-name", "input-without-description", "output-without-description", "unknown-runtime",
        "run-without-shell", "undeclared-input", "unknown-step-id", "context-not-in-actions",
        "unpinned-uses", "sha-without-release-comment", "run-and-uses",
    ],
)  # fmt: skip
def test_a_broken_action_is_reported(old: str, new: str, problem: str) -> None:
    assert old in GOOD_ACTION
    problems = check_action(GOOD_ACTION.replace(old, new, 1))
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("on: push\n", "", "workflow: missing on"),
        ("    runs-on: ubuntu-latest\n", "", "job build: missing runs-on"),
        ("  contents: read", "  contents: admin", "permission contents: 'admin' is not one of read, write, none"),
        ("  contents: read", "  source: read", "unknown permission scope 'source'"),
        ("steps.make.outputs", "steps.build.outputs", "steps.build.outputs names no earlier step"),
        ("@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2", "@v4", "not pinned by a 40-hex commit SHA"),
        ("      - id: make\n", "      - id: 1make\n", "must start with a letter or _"),
    ],
    ids=["no-on", "no-runs-on", "permission-value", "permission-scope", "unknown-step", "unpinned", "bad-id"],
)  # fmt: skip
def test_a_broken_workflow_is_reported(old: str, new: str, problem: str) -> None:
    assert old in GOOD_WORKFLOW
    problems = check_workflow(GOOD_WORKFLOW.replace(old, new, 1))
    assert any(problem in p for p in problems), problems


def test_a_step_output_read_before_the_step_runs_is_reported() -> None:
    broken = GOOD_WORKFLOW.replace(
        "      - id: make\n", "      - run: echo ${{ steps.make.outputs.out }}\n      - id: make\n"
    )
    assert any("steps.make.outputs names no earlier step" in p for p in check_workflow(broken))


def test_our_action_with_an_unknown_mode_or_input_is_reported() -> None:
    action_inputs = load(ACTION.read_text())["inputs"]
    workflow = GOOD_WORKFLOW + (
        "      - uses: gitops-karmada/gitops-karmada@v1\n        with:\n          mode: deploy\n          colour: red\n"
    )
    problems = check_workflow(workflow, action_inputs)
    assert any("mode 'deploy' is not one the action accepts" in p for p in problems), problems
    assert any("has no input 'colour'" in p for p in problems), problems
