"""``mode: reconcile``: ``gitops-karmada reconcile --push`` with the repository's guardrails on.

No ``--allow``: a guardrail of ``gitops-karmada.yaml`` that objects refuses the commit (exit 3, nothing
written or pushed), and the violations become the ``violations`` output and ``::error`` annotations. The
command runs with ``-o json``: ``report-json`` is its ``ReconcileReport`` (outcome, exit code, commit,
pushed, changes, violations, placement, diagnostics) with ``"mode": "reconcile"`` added. Its messages are
read as JSON lines (``--logging-format json``) and written to the job log as text.
"""

from __future__ import annotations

import json
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

    from gitops_karmada.action.settings import ActionSettings

TITLE = "## gitops-karmada reconcile"


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
        "--logging-format",
        "json",
        "reconcile",
        "--repo",
        str(settings.repo_path),
        "--rev",
        settings.head_ref,
        "-o",
        "json",
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
    for entry in lines:
        log(entry.text)
    document = reconcile_report(done.stdout, done.returncode, lines)
    violations: list[dict[str, str]] = document.get("violations") or []
    commit = document.get("commit")
    report.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    for violation in violations:
        annotate("error", violation["detail"], f"gitops-karmada guardrail {violation['guardrail']}")
    if done.returncode not in (0, 3):
        annotate("error", f"gitops-karmada reconcile failed (exit {done.returncode}); see the log above")
    summary = reconcile_summary(done.returncode, commit, placement_text(document), lines, violations)
    append_summary(settings.summary_file, summary)
    return StepResult(exit_code=done.returncode, report_json=report, violations=violations)


def placement_text(document: Mapping[str, Any]) -> str:
    """The templates the run redid, one line each (``template  policy  clusters  status``), as text (pure)."""
    rows = []
    for entry in document.get("placement") or ():
        clusters = entry.get("clusters") or {}
        shown = ",".join(name if count is None else f"{name}={count}" for name, count in clusters.items())
        rows.append(
            (
                str(entry.get("template", "")),
                str(entry.get("policy") or "-"),
                shown or "-",
                str(entry.get("status", "")),
            )
        )
    if not rows:
        return ""
    rows.insert(0, ("TEMPLATE", "POLICY", "CLUSTERS", "STATUS"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True))
        + "  "
        + row[3]
        + "\n"
        for row in rows
    )


def reconcile_report(stdout: str, code: int, lines: Sequence[LogLine]) -> dict[str, Any]:
    """The command's ``ReconcileReport`` with ``mode`` added; when it wrote none (it crashed, or a usage
    error), a minimal report from the exit code and the guardrails its log names (pure)."""
    try:
        parsed: Any = json.loads(stdout)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and parsed.get("kind") == "ReconcileReport":
        return {"mode": "reconcile", **parsed}
    violations = [v for v in (entry.violation() for entry in lines) if v is not None]
    return {"mode": "reconcile", "exitCode": code, "commit": None, "pushed": False, "violations": violations}


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
