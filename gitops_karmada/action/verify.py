"""``mode: verify``: ``gitops-karmada verify -o json`` on the fleet, its findings in the job summary.

The JSON document is the ``report-json`` output; each failure is an ``::error`` annotation on its file;
the step exits with verify's own status (0 verified, 1 stale or hand-edited output or inputs that do not
render, 2 when verify could not run).
"""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING, Any

from gitops_karmada.action.publish import (
    EXIT_ERROR,
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
    from collections.abc import Mapping
    from pathlib import Path

    from gitops_karmada.action.settings import ActionSettings

TITLE = "## gitops-karmada verify"


def run_verify(settings: ActionSettings, env: Mapping[str, str]) -> StepResult:
    settings.work_dir.mkdir(parents=True, exist_ok=True)
    report = settings.work_dir / "verify.json"
    report.unlink(missing_ok=True)  # an earlier run in the same job must not stand in for this one
    command = tool_command(
        "verify", "--repo", str(settings.repo_path), "--rev", settings.head_ref, "-o", "json"
    )
    if settings.pull_request is not None:
        # a pull request's inputs are reconciled after it merges: stale output is expected there, hand
        # edits of the managed folders and inputs that do not render still fail
        command.append("--allow-stale")
    with report.open("wb") as stdout:  # diagnostics go to stderr: the job log
        done = subprocess.run(
            command, stdout=stdout, env=tool_environment(env), cwd=settings.workspace, check=False
        )
    document = _read_document(report)
    if document is None:
        annotate("error", f"gitops-karmada verify failed (exit {done.returncode}); see the log above")
        append_summary(
            settings.summary_file,
            f"{TITLE}\n\n**verify could not run** (exit {done.returncode}); see the job log.\n",
        )
        return StepResult(exit_code=done.returncode or EXIT_ERROR)
    prefix = _workspace_prefix(settings)
    for failure in document.get("failures", []):
        annotate(
            "error",
            f"{failure.get('finding', '')}: {failure.get('detail', '')}",
            "gitops-karmada verify",
            file=prefix + str(failure.get("path", "")),
        )
    for line in verdict(document).splitlines():
        log(line)
    append_summary(settings.summary_file, verify_summary(document))
    return StepResult(exit_code=done.returncode, report_json=report)


def _read_document(path: Path) -> dict[str, Any] | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def _workspace_prefix(settings: ActionSettings) -> str:
    """The fleet's folder relative to the workspace, as annotations name files (``""`` for the root)."""
    if settings.repo_path.is_relative_to(settings.workspace):
        relative = settings.repo_path.relative_to(settings.workspace).as_posix()
        return "" if relative == "." else relative + "/"
    return ""


def verdict(document: Mapping[str, Any]) -> str:
    """One sentence: verified, or how many files and templates fail."""
    commit = str(document.get("commit") or "")[:12]
    last = str(document.get("lastReconcile") or "")
    base = f"last reconcile {last[:12]}" if last else "never reconciled"
    if not document.get("inputOk", True):
        return f"verify failed: {commit} cannot be rendered: fix the input errors"
    if document.get("ok"):
        return f"verified {commit}: the output matches its inputs ({base})"
    failures = len(document.get("failures", []))
    templates = len(document.get("failedTemplates", []))
    return (
        f"verify failed at {commit} ({base}): {failures} file(s) stale or edited by hand, "
        f"{templates} template(s) failed; run gitops-karmada reconcile"
    )


def verify_summary(document: Mapping[str, Any]) -> str:
    """The job summary: the verdict, then the failures, template failures, input errors and info (pure)."""
    ok = bool(document.get("ok"))
    lines = [TITLE, "", f"**{verdict(document)}**" if ok else f"> [!CAUTION]\n> {verdict(document)}", ""]
    failures = document.get("failures", [])
    if failures:
        lines += ["| File | Finding | Detail |", "|:--|:--|:--|"]
        lines += [
            "| "
            + " | ".join(
                [
                    markdown_cell(code_span(str(f.get("path", "")))),
                    markdown_cell(str(f.get("finding", ""))),
                    markdown_cell(str(f.get("detail", ""))),
                ]
            )
            + " |"
            for f in failures
        ]
        lines.append("")
    templates = document.get("failedTemplates", [])
    if templates:
        lines += ["**Templates that cannot be rendered:**", ""]
        lines += [f"- {code_span(str(t))}" for t in templates]
        lines.append("")
    errors = document.get("errors", [])
    if errors:
        lines += ["**Input errors:**", ""]
        lines += [f"- {' '.join(str(e).split())}" for e in errors]
        lines.append("")
    info = document.get("info", [])
    if info:
        lines += [f"<details><summary>{len(info)} hand-written file(s) in the cluster folders</summary>", ""]
        lines += [
            f"- {code_span(str(i.get('path', '')))}: {' '.join(str(i.get('detail', '')).split())}"
            for i in info
        ]
        lines += ["", "</details>", ""]
    return "\n".join(lines) + "\n"
