"""The Action's settings, read from the environment a workflow step gets (inputs arrive as ``INPUT_*``).

``action.yml`` maps each input to an ``INPUT_<NAME>`` variable; the runner sets the ``GITHUB_*`` ones.
Only small values travel this way: the report itself passes through files.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.github import DEFAULT_API_URL
from gitops_karmada.core.diff import COMMENT_LIMIT
from gitops_karmada.model.errors import AdapterError

if TYPE_CHECKING:
    from collections.abc import Mapping

TOKEN_VARIABLE = "INPUT_GITHUB_TOKEN"
MIN_SIZE_BUDGET = 12_000
"""The diff command's minimum (10,000) plus room for the marker line."""
_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off", ""})


class SettingsError(AdapterError):
    """An input or variable of the workflow step that cannot be used."""


class Mode(enum.StrEnum):
    """The ``mode`` input: what the one action does (``action.yml`` documents the same three)."""

    DIFF = "diff"
    """The placement diff of a pull request and its sticky comment (the default)."""
    VERIFY = "verify"
    """``gitops-karmada verify``: the committed output is what the inputs render to."""
    RECONCILE = "reconcile"
    """``gitops-karmada reconcile --push`` with the repository's guardrails on."""


def read_mode(env: Mapping[str, str]) -> Mode:
    """The ``mode`` input (``INPUT_MODE``); empty means ``diff``."""
    raw = env.get("INPUT_MODE", "")
    value = raw.strip().lower() or Mode.DIFF.value
    try:
        return Mode(value)
    except ValueError:
        choices = ", ".join(m.value for m in Mode)
        raise SettingsError(f"input mode: {raw.strip()!r} is not one of {choices}") from None


@dataclass(frozen=True, slots=True)
class PullRequest:
    number: int
    base_sha: str = ""
    head_sha: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionSettings:
    mode: Mode
    base_ref: str
    head_ref: str
    repo_path: Path
    comment: bool
    fail_on: tuple[str, ...]
    size_budget: int
    token: str = field(repr=False)
    api_url: str
    repository: str
    pull_request: PullRequest | None
    workspace: Path
    work_dir: Path
    """Where the reports are written (under ``RUNNER_TEMP``)."""
    output_file: Path | None
    summary_file: Path | None


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingsError(f"{name}={raw!r}: expected true or false")


def _pull_request(event: Any) -> PullRequest | None:
    """The pull request of a ``pull_request``/``pull_request_target`` event (or an issue comment on one)."""
    if not isinstance(event, dict):
        return None
    pull = event.get("pull_request")
    if isinstance(pull, dict) and isinstance(pull.get("number"), int):
        base, head = pull.get("base"), pull.get("head")
        return PullRequest(
            number=pull["number"],
            base_sha=str(base.get("sha", "")) if isinstance(base, dict) else "",
            head_sha=str(head.get("sha", "")) if isinstance(head, dict) else "",
        )
    issue = event.get("issue")
    if isinstance(issue, dict) and isinstance(issue.get("number"), int) and "pull_request" in issue:
        return PullRequest(number=issue["number"])
    return None


def read_settings(env: Mapping[str, str]) -> ActionSettings:
    """Settings from ``env`` (``os.environ`` in the step); ``SettingsError`` names a bad input."""
    mode = read_mode(env)
    event: Any = None
    event_path = env.get("GITHUB_EVENT_PATH", "")
    if event_path and Path(event_path).is_file():
        try:
            event = json.loads(Path(event_path).read_text(encoding="utf-8"))
        except ValueError as err:
            raise SettingsError(f"GITHUB_EVENT_PATH {event_path}: not JSON ({err})") from err
    pull_request = _pull_request(event)
    budget_text = env.get("INPUT_SIZE_BUDGET", "").strip() or str(COMMENT_LIMIT)
    try:
        budget = int(budget_text)
    except ValueError:
        raise SettingsError(f"size-budget {budget_text!r} is not a number") from None
    if not MIN_SIZE_BUDGET <= budget <= COMMENT_LIMIT:
        raise SettingsError(
            f"size-budget {budget} must be between {MIN_SIZE_BUDGET:,} and {COMMENT_LIMIT:,} characters"
        )
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    repo_path = Path(env.get("INPUT_REPO_PATH", "").strip() or ".")
    temp = Path(env.get("RUNNER_TEMP") or workspace / ".gitops-karmada-tmp")
    base_ref = env.get("INPUT_BASE_REF", "").strip() or (pull_request.base_sha if pull_request else "")
    return ActionSettings(
        mode=mode,
        base_ref=base_ref,
        head_ref=env.get("INPUT_HEAD_REF", "").strip() or "HEAD",
        repo_path=repo_path if repo_path.is_absolute() else workspace / repo_path,
        comment=_flag(env, "INPUT_COMMENT", True),
        # one condition (or a comma-separated list) per line
        fail_on=tuple(line.strip() for line in env.get("INPUT_FAIL_ON", "").splitlines() if line.strip()),
        size_budget=budget,
        token=env.get(TOKEN_VARIABLE, ""),
        api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
        repository=env.get("GITHUB_REPOSITORY", ""),
        pull_request=pull_request,
        workspace=workspace,
        work_dir=temp / f"gitops-karmada-{mode.value}",
        output_file=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
        summary_file=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
    )
