"""The pure parts of the verify and reconcile modes: the mode input, log lines, job-summary markdown."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.action.publish import StepResult, code_span, markdown_cell, tool_environment
from gitops_karmada.action.reconcile import LogLine, reconcile_summary
from gitops_karmada.action.settings import TOKEN_VARIABLE, Mode, SettingsError, read_mode, read_settings
from gitops_karmada.action.verify import verify_summary

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("raw", "mode"),
    [(None, Mode.DIFF), ("", Mode.DIFF), (" Verify\n", Mode.VERIFY), ("reconcile", Mode.RECONCILE)],
    ids=["unset", "empty", "case-and-space", "reconcile"],
)
def test_read_mode(raw: str | None, mode: Mode) -> None:
    assert read_mode({} if raw is None else {"INPUT_MODE": raw}) is mode


def test_an_unknown_mode_names_the_input_and_the_choices() -> None:
    with pytest.raises(SettingsError, match=r"^input mode: 'apply' is not one of diff, verify, reconcile$"):
        read_mode({"INPUT_MODE": "apply"})


def test_each_mode_has_its_own_report_folder(tmp_path: Path) -> None:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "RUNNER_TEMP": str(tmp_path / "tmp"), "INPUT_MODE": "verify"}
    assert read_settings(env).work_dir == tmp_path / "tmp" / "gitops-karmada-verify"


def test_every_output_is_set_whatever_the_mode() -> None:
    assert StepResult(exit_code=1).outputs() == {
        "has-changes": "false",
        "changed-clusters": "[]",
        "report-path": "",
        "report-json": "",
        "violations": "[]",
        "comment-url": "",
        "exit-code": "1",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a.yaml", "`a.yaml`"), ("a`b", "``a`b``"), ("`x", "`` `x ``"), ("a\nb", "`a b`")],
    ids=["plain", "backtick-inside", "backtick-at-edge", "newline"],
)
def test_code_span(text: str, expected: str) -> None:
    assert code_span(text) == expected


def test_markdown_cell_keeps_one_cell() -> None:
    assert markdown_cell("a | b\nc") == "a \\| b c"


def test_log_lines_from_json_records_and_plain_text() -> None:
    record = {
        "level": "error",
        "msg": "  namespace-removed: Namespace x leaves m1",
        "guardrail": "namespace-removed",
    }
    line = LogLine.parse(json.dumps(record))
    assert line.text == "error:   namespace-removed: Namespace x leaves m1"
    assert line.violation() == {"guardrail": "namespace-removed", "detail": "Namespace x leaves m1"}
    info = LogLine.parse(json.dumps({"level": "info", "msg": "12 binding(s)"}))
    assert (info.text, info.violation()) == ("12 binding(s)", None)
    crash = LogLine.parse("Traceback (most recent call last):")
    assert (crash.text, crash.violation()) == ("Traceback (most recent call last):", None)


def test_verify_summary_of_a_failure() -> None:
    document = {
        "commit": "a" * 40,
        "lastReconcile": "b" * 40,
        "ok": False,
        "inputOk": True,
        "failures": [
            {"path": "clusters/m1/x|y.yaml", "finding": "edited", "detail": "spec.replicas: 4 → 14"}
        ],
        "info": [
            {"path": "clusters/m1/README.md", "finding": "hand-written", "detail": "not written by the tool"}
        ],
        "failedTemplates": [],
        "errors": [],
    }
    summary = verify_summary(document)
    assert summary.startswith("## gitops-karmada verify\n\n> [!CAUTION]\n> verify failed at aaaaaaaaaaaa")
    assert "| `clusters/m1/x\\|y.yaml` | edited | spec.replicas: 4 → 14 |" in summary
    assert "<details><summary>1 hand-written file(s) in the cluster folders</summary>" in summary


def test_verify_summary_of_inputs_that_do_not_render() -> None:
    document = {"commit": "c" * 40, "ok": False, "inputOk": False, "errors": ["policies/x.yaml: bad field"]}
    summary = verify_summary(document)
    assert "cannot be rendered: fix the input errors" in summary
    assert "**Input errors:**\n\n- policies/x.yaml: bad field" in summary


def test_reconcile_summary_fences_output_that_holds_a_fence() -> None:
    summary = reconcile_summary(1, None, "```\n", [LogLine("error: boom")], [])
    assert "> **reconcile failed** (exit 1)." in summary
    assert "````text\n```\nerror: boom\n````" in summary


def test_the_tools_environment_keeps_the_token_and_option_variables_out() -> None:
    env = {
        TOKEN_VARIABLE: "ghp_secret",
        "GITOPS_KARMADA_RECONCILE_FULL": "1",  # would set reconcile's --full behind the action's back
        "GITOPS_KARMADA_KUBECTL": "/opt/kubectl",  # where a tool is, not an option
        "PATH": "/usr/bin",
    }
    assert tool_environment(env) == {"GITOPS_KARMADA_KUBECTL": "/opt/kubectl", "PATH": "/usr/bin"}
