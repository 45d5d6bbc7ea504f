"""The Action's one step: read the inputs, run the mode, set the outputs, exit with the mode's status.

``mode: diff`` (the default) runs ``gitops-karmada diff`` and keeps the sticky pull-request comment:

1. ``diff`` runs in a subprocess (without the token in its environment) and writes the comment, the
   full report, the job-summary report and the JSON report to files under ``$RUNNER_TEMP``.
2. The sticky comment is created or updated through the REST API; a read-only token (a pull request from
   a fork) gets the report into the job summary instead, without failing the job.
3. Outputs: ``has-changes``, ``changed-clusters`` (JSON), ``report-path``, ``report-json``,
   ``violations``, ``comment-url``, ``exit-code``; the job summary gets the report.

Exit status: 0, or 2 when diff fails or the comment cannot be posted for another reason than a read-only
token, or 3 when a ``fail-on`` guardrail is violated (after everything is published).

``mode: verify`` and ``mode: reconcile`` are in :mod:`gitops_karmada.action.verify` and
:mod:`gitops_karmada.action.reconcile`. Every mode writes every output before the step exits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
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
from gitops_karmada.action.publish import (
    EXIT_ERROR,
    EXIT_GUARDRAIL,
    EXIT_OK,
    StepResult,
    annotate,
    append_summary,
    log,
    tool_command,
    tool_environment,
    write_outputs,
)
from gitops_karmada.action.reconcile import run_reconcile
from gitops_karmada.action.settings import ActionSettings, Mode, SettingsError, read_settings
from gitops_karmada.action.verify import run_verify
from gitops_karmada.adapters.gc_tuning import tune_garbage_collector
from gitops_karmada.adapters.github import GitHubClient, is_permission_denied
from gitops_karmada.model.errors import GitHubError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

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


def diff_arguments(settings: ActionSettings, reports: Reports) -> list[str]:
    """The ``gitops-karmada diff`` command line (small values only: the reports go to files)."""
    arguments = tool_command(
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
    )
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
    with reports.comment.open("wb") as stdout:
        done = subprocess.run(
            diff_arguments(settings, reports),
            stdout=stdout,
            env=tool_environment(env),
            cwd=settings.workspace,
            check=False,
        )
    return done.returncode


@dataclass(frozen=True, slots=True)
class Published:
    note: str
    """The job-summary note (``""`` when the comment was posted or left as it was)."""
    url: str = ""
    """The sticky comment's ``html_url`` when it exists after this run (created, updated or up to date)."""


def publish_comment(settings: ActionSettings, report: str, *, worth_posting: bool) -> Published:
    """Create or update the sticky comment."""
    if settings.pull_request is None:
        return Published(no_pull_request_note())
    if not settings.comment:
        return Published("")
    if not settings.token or not settings.repository:
        raise SettingsError("commenting needs a token (input github-token) and GITHUB_REPOSITORY")
    client = GitHubClient(api_url=settings.api_url, repository=settings.repository, token=settings.token)
    number = settings.pull_request.number
    key = comment_key(settings)
    body = sticky_body(report, key)
    url = ""
    try:
        existing = find_sticky(client.list_issue_comments(number), key)
        plan = plan_comment(existing, body, worth_posting=worth_posting)
        if plan.action is CommentAction.CREATE:
            posted = client.create_issue_comment(number, body)
            url = posted.url
            log(f"created the placement comment {posted.url or posted.id}")
        elif plan.action is CommentAction.UPDATE:
            assert plan.comment_id is not None
            posted = client.update_issue_comment(plan.comment_id, body)
            url = posted.url
            log(f"updated the placement comment {posted.url or posted.id}")
        elif plan.action is CommentAction.UNCHANGED:
            url = existing.url if existing is not None else ""
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
            return Published(read_only_note())
        raise
    return Published("", url)


def run_diff_mode(settings: ActionSettings, env: Mapping[str, str]) -> StepResult:
    """``mode: diff``: the placement diff, the sticky comment and the job summary."""
    reports = Reports.under(settings.work_dir)
    code = run_diff(settings, reports, env)
    if not reports.json.is_file():
        annotate("error", f"gitops-karmada diff failed (exit {code}); see the log above")
        return StepResult(exit_code=EXIT_ERROR)
    result = json.loads(reports.json.read_text(encoding="utf-8"))
    has_changes = bool(result.get("hasChanges"))
    failed = code == DIFF_EXIT_ERROR
    violations = [
        {"guardrail": str(v.get("guardrail", "")), "detail": str(v.get("detail", ""))}
        for v in result.get("guardrails", {}).get("violations", [])
    ]
    status = EXIT_OK
    try:
        published = publish_comment(
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
        published, status = Published(""), EXIT_ERROR
    append_summary(settings.summary_file, published.note + reports.summary.read_text(encoding="utf-8"))
    if failed:
        annotate("error", "a side of the diff does not render; see the report")
        status = EXIT_ERROR
    elif code == DIFF_EXIT_GUARDRAIL:
        for violation in violations:
            title = f"gitops-karmada guardrail {violation['guardrail']}"
            annotate("error", violation["detail"], title)
        status = EXIT_GUARDRAIL
    return StepResult(
        exit_code=status,
        report_json=reports.json,
        violations=violations,
        comment_url=published.url,
        has_changes=has_changes,
        changed_clusters=[str(c) for c in result.get("changedClusters", [])],
        report_path=reports.full,
    )


MODES: dict[Mode, Callable[[ActionSettings, Mapping[str, str]], StepResult]] = {
    Mode.DIFF: run_diff_mode,
    Mode.VERIFY: run_verify,
    Mode.RECONCILE: run_reconcile,
}


def main(env: Mapping[str, str] | None = None) -> int:
    environment = dict(os.environ if env is None else env)
    try:
        settings = read_settings(environment)
    except SettingsError as err:
        annotate("error", str(err))
        output_file = environment.get("GITHUB_OUTPUT")
        write_outputs(Path(output_file) if output_file else None, StepResult(exit_code=EXIT_ERROR).outputs())
        return EXIT_ERROR
    result = MODES[settings.mode](settings, environment)
    write_outputs(settings.output_file, result.outputs())
    return result.exit_code


def entry_point() -> None:
    tune_garbage_collector()
    sys.exit(main())
