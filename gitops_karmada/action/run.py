"""The Action's one step: run ``gitops-karmada diff``, publish the report, set the outputs.

1. ``diff`` runs in a subprocess (without the token in its environment) and writes the comment, the
   full report, the job-summary report and the JSON report to files under ``$RUNNER_TEMP``.
2. The sticky comment is created or updated through the REST API; a read-only token (a pull request from
   a fork) gets the report into the job summary instead, without failing the job.
3. Outputs: ``has-changes``, ``changed-clusters`` (JSON), ``report-path``; the job summary gets the report.

Exit status: 0, or 2 when diff fails or the comment cannot be posted for another reason than a read-only
token, or 3 when a ``fail-on`` guardrail is violated (after everything is published).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.action.comment import (
    CommentAction,
    find_sticky,
    marker_size,
    no_pull_request_note,
    plan_comment,
    read_only_note,
    sticky_body,
)
from gitops_karmada.action.outputs import format_outputs, workflow_command
from gitops_karmada.action.settings import TOKEN_VARIABLE, ActionSettings, SettingsError, read_settings
from gitops_karmada.adapters.github import GitHubClient, is_permission_denied
from gitops_karmada.model.errors import GitHubError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_GUARDRAIL = 3
DIFF_EXIT_ERROR = 2
DIFF_EXIT_GUARDRAIL = 3


@dataclass(frozen=True, slots=True)
class Reports:
    comment: Path
    full: Path
    summary: Path
    json: Path

    @classmethod
    def under(cls, folder: Path) -> Reports:
        return cls(
            comment=folder / "comment.md",
            full=folder / "report.md",
            summary=folder / "summary.md",
            json=folder / "diff.json",
        )


def log(message: str) -> None:
    """A line in the job log."""
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


def annotate(kind: str, message: str, title: str = "gitops-karmada") -> None:
    """A workflow command (``::error::``, ``::notice::``): shown on the run's summary page."""
    log(workflow_command(kind, message, title))


def diff_arguments(settings: ActionSettings, reports: Reports) -> list[str]:
    """The ``gitops-karmada diff`` command line (small values only: the reports go to files)."""
    arguments = [
        sys.executable,
        "-m",
        "gitops_karmada",
        "diff",
        "--repo",
        str(settings.repo_path),
        "--head",
        settings.head_ref,
        "-o",
        "markdown",
        "--max-chars",
        str(settings.size_budget - marker_size(comment_key(settings))),
        "--report-file",
        str(reports.full),
        "--summary-file",
        str(reports.summary),
        "--json-file",
        str(reports.json),
        "--color",
        "never",
    ]
    if settings.base_ref:
        arguments += ["--base", settings.base_ref]
    for condition in settings.fail_on:
        arguments += ["--fail-on", condition]
    return arguments


def comment_key(settings: ActionSettings) -> str:
    """The fleet's path inside the workspace: the sticky comment's key."""
    if settings.repo_path.is_relative_to(settings.workspace):
        return settings.repo_path.relative_to(settings.workspace).as_posix()
    return settings.repo_path.as_posix()


def run_diff(settings: ActionSettings, reports: Reports, env: Mapping[str, str]) -> int:
    """Run diff with the comment on stdout into a file; its stderr goes to the job log."""
    reports.full.parent.mkdir(parents=True, exist_ok=True)
    for stale in (reports.comment, reports.full, reports.summary, reports.json):
        stale.unlink(missing_ok=True)  # an earlier run in the same job must not stand in for this one
    # the token stays here; GITOPS_KARMADA_* variables would set diff's options behind its back
    child_env = {
        name: value
        for name, value in env.items()
        if name != TOKEN_VARIABLE and not name.startswith("GITOPS_KARMADA_")
    }
    with reports.comment.open("wb") as stdout:
        done = subprocess.run(
            diff_arguments(settings, reports),
            stdout=stdout,
            env=child_env,
            cwd=settings.workspace,
            check=False,
        )
    return done.returncode


def publish_comment(settings: ActionSettings, report: str, *, worth_posting: bool) -> str:
    """Create or update the sticky comment; returns the job-summary note (``""`` when it was posted)."""
    if settings.pull_request is None:
        return no_pull_request_note()
    if not settings.comment:
        return ""
    if not settings.token or not settings.repository:
        raise SettingsError("commenting needs a token (input github-token) and GITHUB_REPOSITORY")
    client = GitHubClient(api_url=settings.api_url, repository=settings.repository, token=settings.token)
    number = settings.pull_request.number
    key = comment_key(settings)
    body = sticky_body(report, key)
    try:
        existing = find_sticky(client.list_issue_comments(number), key)
        plan = plan_comment(existing, body, worth_posting=worth_posting)
        if plan.action is CommentAction.CREATE:
            posted = client.create_issue_comment(number, body)
            log(f"created the placement comment {posted.url or posted.id}")
        elif plan.action is CommentAction.UPDATE:
            assert plan.comment_id is not None
            posted = client.update_issue_comment(plan.comment_id, body)
            log(f"updated the placement comment {posted.url or posted.id}")
        elif plan.action is CommentAction.UNCHANGED:
            log("the placement comment is up to date")
        else:
            log("no placement change and no earlier comment: nothing posted")
    except GitHubError as err:
        if is_permission_denied(err):
            annotate(
                "notice",
                "cannot comment with a read-only token (a pull request from a fork?): "
                "the placement report is in the job summary",
            )
            return read_only_note()
        raise
    return ""


def write_outputs(settings: ActionSettings, values: Mapping[str, str]) -> None:
    if settings.output_file is not None:
        with settings.output_file.open("a", encoding="utf-8") as handle:
            handle.write(format_outputs(values))


def append_summary(settings: ActionSettings, text: str) -> None:
    if settings.summary_file is not None and text:
        with settings.summary_file.open("a", encoding="utf-8") as handle:
            handle.write(text)


def main(env: Mapping[str, str] | None = None) -> int:
    environment = dict(os.environ if env is None else env)
    try:
        settings = read_settings(environment)
    except SettingsError as err:
        annotate("error", str(err))
        return EXIT_ERROR
    reports = Reports.under(settings.work_dir)
    code = run_diff(settings, reports, environment)
    if not reports.json.is_file():
        annotate("error", f"gitops-karmada diff failed (exit {code}); see the log above")
        write_outputs(settings, {"has-changes": "false", "changed-clusters": "[]", "report-path": ""})
        return EXIT_ERROR
    result = json.loads(reports.json.read_text(encoding="utf-8"))
    has_changes = bool(result.get("hasChanges"))
    failed = code == DIFF_EXIT_ERROR
    violations = result.get("guardrails", {}).get("violations", [])
    write_outputs(
        settings,
        {
            "has-changes": "true" if has_changes else "false",
            "changed-clusters": json.dumps(result.get("changedClusters", [])),
            "report-path": str(reports.full),
        },
    )
    status = EXIT_OK
    try:
        note = publish_comment(
            settings,
            reports.comment.read_text(encoding="utf-8"),
            # a new scheduling problem is news even when nothing moves (the template keeps its placement)
            worth_posting=has_changes
            or bool(violations)
            or failed
            or any(problem.get("new") for problem in result.get("problems", [])),
        )
    except (GitHubError, SettingsError) as err:
        annotate("error", f"cannot post the placement comment: {err}")
        note, status = "", EXIT_ERROR
    append_summary(settings, note + reports.summary.read_text(encoding="utf-8"))
    if failed:
        annotate("error", "a side of the diff does not render; see the report")
        return EXIT_ERROR
    if code == DIFF_EXIT_GUARDRAIL:
        for violation in violations:
            title = f"gitops-karmada guardrail {violation.get('guardrail', '')}"
            annotate("error", str(violation.get("detail", "")), title)
        return EXIT_GUARDRAIL
    return status


def entry_point() -> None:
    sys.exit(main())
