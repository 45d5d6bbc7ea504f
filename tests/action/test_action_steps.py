"""The composite action's steps, run as scripts with ``GITHUB_*`` variables, against a loopback GitHub."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gitops_karmada import __version__
from gitops_karmada.action.comment import marker
from tests.action.action_runner import ROOT, SETUP_PYTHON_VERSION, ActionRun, run_action
from tests.action.github_server import FakeGitHub
from tests.action.scenarios import (
    SECRET_VALUES,
    build_fleet,
    change_secret,
    change_weight,
    clone_fleet,
    exceed_quota,
    isolated_git,
)
from tests.gitrepos import git

if TYPE_CHECKING:
    from tests.fleet import FleetRepo

TOKEN = "ghs_actionTOKEN0123456789abcdef"
REPOSITORY = "acme/fleet"
PR = 42


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with isolated_git(tmp_path_factory.mktemp("home")):
        return build_fleet(tmp_path_factory.mktemp("fleet") / "fleet").path


@dataclass
class Runner:
    """One pull request's workspace and runner files."""

    repo: FleetRepo
    work: Path

    @property
    def summary(self) -> Path:
        return self.work / "step-summary.md"

    def env(self, github: FakeGitHub) -> dict[str, str]:
        event = self.work / "event.json"
        base = git(self.repo.path, "rev-parse", "main")
        event.write_text(
            json.dumps(
                {
                    "action": "synchronize",
                    "number": PR,
                    "pull_request": {
                        "number": PR,
                        "base": {"sha": base, "ref": "main"},
                        "head": {"sha": self.repo.head(), "ref": "feature"},
                    },
                }
            )
        )
        (self.work / "runner-temp").mkdir(exist_ok=True)
        return {
            "HOME": str(self.work),
            "PATH": "/usr/bin:/bin",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.repo.path),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_API_URL": github.url,
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.work / "runner-temp"),
        }

    def run(self, github: FakeGitHub, **inputs: str) -> ActionRun:
        return run_action(inputs, self.env(github), self.work, token=TOKEN)


@pytest.fixture
def pull_request(fleet: Path, tmp_path: Path) -> Runner:
    repo = clone_fleet(fleet, tmp_path / "workspace")
    change_weight(repo)
    repo.commit("frontend: equal weights")
    work = tmp_path / "runner"
    work.mkdir()
    return Runner(repo, work)


def _assert_no_token(run: ActionRun, runner: Runner, github: FakeGitHub) -> None:
    files = [p for p in runner.work.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert TOKEN not in path.read_text(errors="replace"), path
    assert TOKEN not in run.log
    assert all(TOKEN not in line for line in github.state.log_lines)


def test_creates_the_comment_and_sets_the_outputs(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github)
    assert run.returncode == 0, run.log
    temp = pull_request.work / "runner-temp"
    venv = temp / "gitops-karmada-venv"
    pip_cache = temp / "gitops-karmada-pip-cache"
    setup_python, cache = run.uses
    assert setup_python.uses.startswith("actions/setup-python@")
    assert setup_python.inputs == {"python-version": "3.12", "update-environment": "false"}
    assert cache.uses.startswith("actions/cache@")
    assert cache.inputs == {
        "path": str(pip_cache),
        "key": f"gitops-karmada-pip-Linux-py{SETUP_PYTHON_VERSION}-{__version__}",
    }
    # a venv of setup-python's interpreter, the action installed into it without extras, the cache dir set
    assert (pull_request.work / "pip.log").read_text().splitlines() == [
        str(pull_request.work / "shims" / "python"),
        "-m",
        "venv",
        str(venv),
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
        str(ROOT),
        f"PIP_CACHE_DIR={pip_cache}",
    ]
    (comment,) = github.state.comments[PR]
    assert comment["body"].startswith(marker(".") + "\n## Karmada placement diff")
    assert (
        "| `Deployment.apps/shop/frontend` | pp/frontend | 8 | **4 → 2** | **2 → 3** | **2 → 3** | 2 of 8 (25 %) |"
        in comment["body"]
    )
    assert run.outputs["has-changes"] == "true"
    assert json.loads(run.outputs["changed-clusters"]) == ["member1", "member2", "member3"]
    report = Path(run.outputs["report-path"])
    assert report.is_file() and report.read_text().startswith("## Karmada placement diff")
    summary = pull_request.summary.read_text()
    assert summary.startswith("## Karmada placement diff")  # posted: the job summary is the report only
    _assert_no_token(run, pull_request, github)


def test_a_second_run_updates_the_same_comment(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        for i in range(130):  # the sticky comment lands on the second page
            github.state.add_comment(PR, f"review comment {i}")
        assert pull_request.run(github).returncode == 0
        first = github.state.comments[PR][-1]
        assert pull_request.run(github).returncode == 0  # nothing new: nothing written
        assert [r.method for r in github.state.writes()] == ["POST"]
        change_secret(pull_request.repo)
        pull_request.repo.commit("rotate the database password")
        run = pull_request.run(github)
    assert run.returncode == 0, run.log
    assert [r.method for r in github.state.writes()] == ["POST", "PATCH"]
    sticky = [c for c in github.state.comments[PR] if c["body"].startswith(marker("."))]
    assert [c["id"] for c in sticky] == [first["id"]]
    assert "Secret/shop/db-credentials" in sticky[0]["body"]
    for value in SECRET_VALUES:
        assert value not in sticky[0]["body"]
        assert value not in pull_request.summary.read_text()


def test_a_fork_gets_the_job_summary_and_does_not_fail(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY, read_only=True) as github:
        run = pull_request.run(github)
    assert run.returncode == 0, run.log
    assert github.state.comments == {}
    assert "::notice title=gitops-karmada::cannot comment with a read-only token" in run.log
    summary = pull_request.summary.read_text()
    assert summary.startswith("> [!NOTE]\n> The placement report could not be posted")
    assert "## Karmada placement diff" in summary
    assert run.outputs["has-changes"] == "true"
    _assert_no_token(run, pull_request, github)


def test_a_redirect_to_another_origin_fails_without_sending_the_token(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as elsewhere, FakeGitHub(TOKEN, REPOSITORY) as github:
        github.state.redirects["/repos/"] = f"{elsewhere.url}/repos/"
        run = pull_request.run(github)
    assert run.returncode == 2, run.log
    assert "cannot post the placement comment: GitHub API 307: refusing to follow a redirect" in run.log
    assert elsewhere.state.requests == []
    _assert_no_token(run, pull_request, github)


def test_a_server_echoing_the_token_does_not_print_it(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY, echo_authorization=True) as github:
        run = pull_request.run(github)
    assert run.returncode == 2, run.log
    assert "cannot parse header Authorization: Bearer ***" in run.log
    _assert_no_token(run, pull_request, github)


def test_a_guardrail_fails_the_step_after_commenting(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github, **{"fail-on": "cluster-emptied\nreplicas-moved>20%"})
    assert run.returncode == 3
    (comment,) = github.state.comments[PR]
    assert "> [!CAUTION]\n> **1 guardrail violation**" in comment["body"]
    assert "::error title=gitops-karmada guardrail replicas-moved>20%25::" in run.log
    assert run.outputs["has-changes"] == "true"


def test_no_change_posts_nothing(fleet: Path, tmp_path: Path) -> None:
    repo = clone_fleet(fleet, tmp_path / "workspace")
    repo.write("README.md", "# the fleet\n")
    repo.commit("docs only")
    runner = Runner(repo, tmp_path / "runner")
    runner.work.mkdir()
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run(github)
    assert run.returncode == 0, run.log
    assert github.state.writes() == []
    assert run.outputs["has-changes"] == "false"
    assert json.loads(run.outputs["changed-clusters"]) == []
    assert "No change to the rendered fleet." in runner.summary.read_text()


def test_comment_off_never_calls_the_api(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github, comment="false")
    assert run.returncode == 0, run.log
    assert github.state.requests == []
    assert "**4 → 2**" in pull_request.summary.read_text()


def test_a_broken_head_fails_with_the_report_posted(pull_request: Runner) -> None:
    pull_request.repo.write(
        "policies/broken.yaml",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: x, namespace: shop}\nspec: {placement: {clusterAfinity: {}}}\n",
    )
    pull_request.repo.commit("typo")
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github)
    assert run.returncode == 2
    (comment,) = github.state.comments[PR]
    assert "**The head revision does not render**" in comment["body"]
    assert "::error title=gitops-karmada::a side of the diff does not render" in run.log


def test_bad_inputs_fail_clearly(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github, **{"size-budget": "500"})
    assert run.returncode == 2
    assert "size-budget 500 must be between 12,000 and 65,536 characters" in run.log
    assert github.state.requests == []


def test_a_new_quota_block_is_worth_a_comment_even_if_nothing_moves(fleet: Path, tmp_path: Path) -> None:
    repo = clone_fleet(fleet, tmp_path / "workspace")
    exceed_quota(repo)
    repo.commit("flink: 20 task managers")
    runner = Runner(repo, tmp_path / "runner")
    runner.work.mkdir()
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run(github)
    assert run.returncode == 0, run.log  # no guardrail asked for
    assert run.outputs["has-changes"] == "false"
    (comment,) = github.state.comments[PR]
    assert "is **quota-blocked** (QuotaExceeded)" in comment["body"]
