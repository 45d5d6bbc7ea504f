"""What every mode hands back to the workflow: job-log lines, annotations, the step's outputs, the summary.

The job log is the step's stdout (GitHub shows it as is and reads ``::error::`` workflow commands from it);
outputs are appended to ``$GITHUB_OUTPUT``, the job summary to ``$GITHUB_STEP_SUMMARY``. Every mode ends
with a :class:`StepResult`, written as the same set of outputs whatever the mode, before the step exits.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.action.outputs import format_outputs, workflow_command
from gitops_karmada.action.settings import TOKEN_VARIABLE

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_GUARDRAIL = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class StepResult:
    """The outcome of one mode: the step's exit status and what its outputs say."""

    exit_code: int
    report_json: Path | None = None
    violations: list[dict[str, str]] = field(default_factory=list)
    comment_url: str = ""
    has_changes: bool = False
    changed_clusters: list[str] = field(default_factory=list)
    report_path: Path | None = None

    def outputs(self) -> dict[str, str]:
        """Every output of ``action.yml``, set in every mode (empty or ``[]`` where it does not apply)."""
        return {
            "has-changes": "true" if self.has_changes else "false",
            "changed-clusters": json.dumps(self.changed_clusters),
            "report-path": str(self.report_path) if self.report_path is not None else "",
            "report-json": str(self.report_json) if self.report_json is not None else "",
            "violations": json.dumps(self.violations),
            "comment-url": self.comment_url,
            "exit-code": str(self.exit_code),
        }


def log(message: str) -> None:
    """A line in the job log."""
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


def annotate(kind: str, message: str, title: str = "gitops-karmada", *, file: str = "") -> None:
    """A workflow command (``::error::``, ``::notice::``): shown on the run's summary page."""
    log(workflow_command(kind, message, title, file=file))


def write_outputs(output_file: Path | None, values: Mapping[str, str]) -> None:
    if output_file is not None:
        with output_file.open("a", encoding="utf-8") as handle:
            handle.write(format_outputs(values))


def append_summary(summary_file: Path | None, text: str) -> None:
    if summary_file is not None and text:
        with summary_file.open("a", encoding="utf-8") as handle:
            handle.write(text)


def tool_command(*arguments: str) -> list[str]:
    """``gitops-karmada ARGUMENTS`` with this interpreter (the action's own venv)."""
    return [sys.executable, "-m", "gitops_karmada", *arguments]


def tool_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of a ``gitops-karmada`` subprocess: without the token, which stays in this process,
    and without ``GITOPS_KARMADA_*`` variables, which would set the command's options behind the action's
    back (the tool locations ``GITOPS_KARMADA_KUBECTL`` and ``GITOPS_KARMADA_HELM`` excepted)."""
    return {
        name: value
        for name, value in env.items()
        if name != TOKEN_VARIABLE and (not name.startswith("GITOPS_KARMADA_") or name in _TOOL_LOCATIONS)
    }


_TOOL_LOCATIONS = frozenset({"GITOPS_KARMADA_KUBECTL", "GITOPS_KARMADA_HELM"})


def markdown_cell(text: str) -> str:
    """``text`` safe in a markdown table cell: one line, no column break (GitHub reads ``\\|`` as ``|``,
    in code spans too)."""
    return " ".join(text.split()).replace("|", "\\|")


def code_span(text: str) -> str:
    """``text`` as inline code, whatever backticks it holds."""
    cleaned = " ".join(text.split())
    fence = "`"
    while fence in cleaned:
        fence += "`"
    padding = " " if cleaned.startswith("`") or cleaned.endswith("`") else ""
    return f"{fence}{padding}{cleaned}{padding}{fence}"
