"""The Action's pure parts: the sticky marker, the comment plan, step outputs, commands, settings."""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.action.comment import (
    CommentAction,
    CommentPlan,
    find_sticky,
    marker,
    marker_size,
    plan_comment,
    sticky_body,
)
from gitops_karmada.action.outputs import format_outputs, workflow_command
from gitops_karmada.action.settings import SettingsError, read_settings
from gitops_karmada.adapters.github import IssueComment
from tests.action.action_runner import parse_output_file

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (".", "<!-- gitops-karmada:diff . -->"),
        ("fleets/prod", "<!-- gitops-karmada:diff fleets/prod -->"),
        ("a b--> <x", "<!-- gitops-karmada:diff a_b____x -->"),
        ("", "<!-- gitops-karmada:diff . -->"),
    ],
    ids=["root", "sub-folder", "cannot-close-the-comment", "empty"],
)
def test_marker(key: str, expected: str) -> None:
    line = marker(key)
    assert line.count("-->") == 1 and line.endswith(" -->")
    assert "--" not in line[4:-3]
    assert line == expected


def test_sticky_comment_is_found_by_its_first_line_only() -> None:
    body = sticky_body("## report", "fleets/prod")
    comments = [
        IssueComment(1, "LGTM"),
        IssueComment(2, f"quoting the bot:\n> {marker('fleets/prod')}"),
        IssueComment(3, sticky_body("## other fleet", "fleets/dev")),
        IssueComment(4, body),
        IssueComment(5, body),
    ]
    found = find_sticky(comments, "fleets/prod")
    assert found is not None and found.id == 4
    assert find_sticky(comments[:3], "fleets/prod") is None
    assert marker_size("fleets/prod") == len(marker("fleets/prod")) + 1


@pytest.mark.parametrize(
    ("existing", "body", "worth", "expected"),
    [
        (None, "new", True, CommentPlan(CommentAction.CREATE)),
        (None, "new", False, CommentPlan(CommentAction.SKIP)),
        (IssueComment(9, "old"), "new", False, CommentPlan(CommentAction.UPDATE, 9)),
        (IssueComment(9, "same"), "same", True, CommentPlan(CommentAction.UNCHANGED, 9)),
    ],
    ids=["create-when-news", "no-noise-without-news", "update-even-to-say-nothing-changed", "unchanged"],
)
def test_plan_comment(existing: IssueComment | None, body: str, worth: bool, expected: CommentPlan) -> None:
    assert plan_comment(existing, body, worth_posting=worth) == expected


def test_outputs_round_trip_through_the_runner_format() -> None:
    values = {
        "has-changes": "true",
        "changed-clusters": json.dumps(["m1", "m2"], indent=2),
        "tricky": "line\nEOF\nghadelimiter_fixed\nmore=1",
    }
    delimiters = itertools.chain(["ghadelimiter_fixed"], (f"ghadelimiter_{i}" for i in itertools.count()))
    text = format_outputs(values, lambda: next(delimiters))
    assert parse_output_file(text) == values


def test_an_output_name_cannot_inject() -> None:
    with pytest.raises(ValueError, match="invalid output name"):
        format_outputs({"a\nb": "x"})


@pytest.mark.parametrize(
    ("kind", "message", "title", "expected"),
    [
        ("error", "plain", "", "::error::plain"),
        (
            "notice",
            "50 % done\nnext line",
            "gitops-karmada",
            "::notice title=gitops-karmada::50 %25 done%0Anext line",
        ),
        ("error", "x", "a:b,c", "::error title=a%3Ab%2Cc::x"),
    ],
    ids=["plain", "escapes-message", "escapes-title"],
)
def test_workflow_command(kind: str, message: str, title: str, expected: str) -> None:
    assert workflow_command(kind, message, title) == expected


def _env(tmp_path: Path, event: Mapping[str, object] | None = None, **extra: str) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "RUNNER_TEMP": str(tmp_path / "tmp")}
    if event is not None:
        path = tmp_path / "event.json"
        path.write_text(json.dumps(event))
        env["GITHUB_EVENT_PATH"] = str(path)
    env.update(extra)
    return env


def test_settings_from_a_pull_request_event(tmp_path: Path) -> None:
    event = {"pull_request": {"number": 5, "base": {"sha": "b" * 40}, "head": {"sha": "h" * 40}}}
    settings = read_settings(
        _env(
            tmp_path,
            event,
            INPUT_REPO_PATH="fleet",
            INPUT_FAIL_ON="cluster-emptied\n\nunschedulable",
            INPUT_GITHUB_TOKEN="t0k",
        )
    )
    assert settings.pull_request is not None and settings.pull_request.number == 5
    assert settings.base_ref == "b" * 40
    assert settings.head_ref == "HEAD"
    assert settings.repo_path == tmp_path / "fleet"
    assert settings.fail_on == ("cluster-emptied", "unschedulable")
    assert (settings.comment, settings.size_budget) == (True, 65_536)
    assert settings.api_url == "https://api.github.com"
    assert "t0k" not in repr(settings)


def test_explicit_inputs_win(tmp_path: Path) -> None:
    event = {"pull_request": {"number": 5, "base": {"sha": "b" * 40}}}
    settings = read_settings(
        _env(tmp_path, event, INPUT_BASE_REF="main", INPUT_HEAD_REF="topic", INPUT_COMMENT="false")
    )
    assert (settings.base_ref, settings.head_ref, settings.comment) == ("main", "topic", False)


def test_an_issue_comment_on_a_pull_request(tmp_path: Path) -> None:
    settings = read_settings(_env(tmp_path, {"issue": {"number": 8, "pull_request": {"url": "x"}}}))
    assert settings.pull_request is not None and settings.pull_request.number == 8
    assert settings.base_ref == ""


def test_a_push_event_has_no_pull_request(tmp_path: Path) -> None:
    assert read_settings(_env(tmp_path, {"ref": "refs/heads/main"})).pull_request is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"INPUT_COMMENT": "maybe"}, "expected true or false"),
        ({"INPUT_SIZE_BUDGET": "lots"}, "is not a number"),
        ({"INPUT_SIZE_BUDGET": "70000"}, "must be between"),
    ],
    ids=["comment-flag", "budget-not-a-number", "budget-over-github-limit"],
)
def test_bad_settings(tmp_path: Path, extra: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        read_settings(_env(tmp_path, None, **extra))
