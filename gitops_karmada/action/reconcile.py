"""``mode: reconcile``: ``gitops-karmada reconcile --push`` with the repository's guardrails on.

No ``--allow``: a guardrail of ``gitops-karmada.yaml`` that objects refuses the commit (exit 3, nothing
written or pushed), and the violations become the ``violations`` output and ``::error`` annotations. The
command's messages are read as JSON lines (``--logging-format json``), which is how the guardrail each one
names is known without parsing prose; they are written to the job log as text. ``report-json`` is a small
document: ``{"mode", "exitCode", "commit", "pushed", "violations"}``.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.action.publish import (
    StepResult,
    annotate,
    append_summary,
    code_span,
    log,
    markdown_cell,
    tool_command,
    tool_environment,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from gitops_karmada.action.settings import ActionSettings

TITLE = "## gitops-karmada reconcile"
_COMMITTED = re.compile(r"^committed ([0-9a-f]{7,40}):", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line the command wrote to stderr: a JSON log record, or plain text (a crash)."""

    text: str
    """As the job log shows it: ``error: <message>``, bare ``<message>`` for info."""
    message: str = ""
    guardrail: str = ""

    @classmethod
    def parse(cls, line: str) -> LogLine:
        try:
            record: Any = json.loads(line)
        except ValueError:
            return cls(line)
        if not isinstance(record, dict) or "msg" not in record:
            return cls(line)
        level = str(record.get("level", ""))
        prefix = "" if level in ("info", "success", "") else f"{level}: "
        guardrail = record.get("guardrail")
        message = str(record["msg"])
        return cls(prefix + message, message, str(guardrail) if guardrail else "")

    def violation(self) -> dict[str, str] | None:
        """``{"guardrail", "detail"}`` when the line names a guardrail that refused the commit."""
        if not self.guardrail:
            return None
        detail = self.message.strip().removeprefix(f"{self.guardrail}:").strip()  # "  <guardrail>: <detail>"
        return {"guardrail": self.guardrail, "detail": detail}


def run_reconcile(settings: ActionSettings, env: Mapping[str, str]) -> StepResult:
    settings.work_dir.mkdir(parents=True, exist_ok=True)
    report = settings.work_dir / "reconcile.json"
    report.unlink(missing_ok=True)  # an earlier run in the same job must not stand in for this one
    command = tool_command(
        "--logging-format", "json", "reconcile", "--repo", str(settings.repo_path), "--rev", settings.head_ref
    )
    command.append("--push")
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=tool_environment(env),
        cwd=settings.workspace,
        check=False,
    )
    lines = [LogLine.parse(line) for line in done.stderr.splitlines() if line.strip()]
    for line in done.stdout.splitlines():
        log(line)
    for entry in lines:
        log(entry.text)
    violations = [v for v in (entry.violation() for entry in lines) if v is not None]
    commit = made_commit(settings.repo_path, done.stdout)
    pushed = commit is not None and "(pushed)" in done.stdout
    document = {
        "mode": "reconcile",
        "exitCode": done.returncode,
        "commit": commit,
        "pushed": pushed,
        "violations": violations,
    }
    report.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    for violation in violations:
        annotate("error", violation["detail"], f"gitops-karmada guardrail {violation['guardrail']}")
    if done.returncode not in (0, 3):
        annotate("error", f"gitops-karmada reconcile failed (exit {done.returncode}); see the log above")
    append_summary(
        settings.summary_file, reconcile_summary(done.returncode, commit, done.stdout, lines, violations)
    )
    return StepResult(exit_code=done.returncode, report_json=report, violations=violations)


def made_commit(repo: Path, stdout: str) -> str | None:
    """The full id of the commit the run made (``committed <short id>: ...``), or ``None``."""
    found = _COMMITTED.search(stdout)
    if found is None:
        return None
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{found.group(1)}^{{commit}}"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or found.group(1)


def reconcile_summary(
    code: int,
    commit: str | None,
    stdout: str,
    lines: Sequence[LogLine],
    violations: Sequence[Mapping[str, str]],
) -> str:
    """The job summary: what happened in one line, the violations, then the command's own output (pure)."""
    if code == 0:
        head = f"**Committed {code_span(commit[:12])}.**" if commit else "**Up to date: no commit needed.**"
    elif violations:
        head = (
            f"> [!CAUTION]\n> **Guardrails refused the commit** ({len(violations)} violation(s)); "
            "nothing was pushed."
        )
    else:
        head = f"> [!CAUTION]\n> **reconcile failed** (exit {code})."
    parts = [TITLE, "", head, ""]
    if violations:
        parts += ["| Guardrail | Detail |", "|:--|:--|"]
        parts += [
            f"| {markdown_cell(code_span(v['guardrail']))} | {markdown_cell(v['detail'])} |"
            for v in violations
        ]
        parts.append("")
    output = stdout.rstrip("\n") + "".join(f"\n{entry.text}" for entry in lines)
    if output.strip():
        fence = "```"
        while fence in output:
            fence += "`"
        parts += [
            "<details><summary>Output</summary>",
            "",
            f"{fence}text",
            output.strip("\n"),
            fence,
            "",
            "</details>",
            "",
        ]
    return "\n".join(parts) + "\n"
