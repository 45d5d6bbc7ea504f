"""The composite action's steps, run as scripts with ``GITHUB_*`` variables, against a loopback GitHub."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

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
from tests.fleet import FleetRepo
from tests.gitrepos import git

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

    push: bool = False
    """A push to main instead of a pull request (the verify and reconcile workflows)."""

    def event(self) -> dict[str, object]:
        if self.push:
            return {"ref": "refs/heads/main", "after": self.repo.head()}
        return {
            "action": "synchronize",
            "number": PR,
            "pull_request": {
                "number": PR,
                "base": {"sha": git(self.repo.path, "rev-parse", "main"), "ref": "main"},
                "head": {"sha": self.repo.head(), "ref": "feature"},
            },
        }

    def env(self, github: FakeGitHub) -> dict[str, str]:
        event = self.work / "event.json"
        event.write_text(json.dumps(self.event()))
        (self.work / "runner-temp").mkdir(exist_ok=True)
        return {
            "HOME": str(self.work),
            "PATH": "/usr/bin:/bin",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.repo.path),
            "GITHUB_EVENT_NAME": "push" if self.push else "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_API_URL": github.url,
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.work / "runner-temp"),
        }

    def run(self, github: FakeGitHub, **inputs: str) -> ActionRun:
        return run_action(inputs, self.env(github), self.work, token=TOKEN)

    def run_with(self, github: FakeGitHub, inputs: dict[str, str], env: dict[str, str]) -> ActionRun:
        """With variables of the calling step's ``env:`` (a git identity for the reconcile commit)."""
        return run_action(inputs, {**self.env(github), **env}, self.work, token=TOKEN)


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
        "--clear",
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
    assert run.outputs["comment-url"] == comment["html_url"]
    assert (
        comment["html_url"] == f"https://github.example/{REPOSITORY}/pull/{PR}#issuecomment-{comment['id']}"
    )
    document = json.loads(Path(run.outputs["report-json"]).read_text())
    assert document["hasChanges"] is True and document["changedClusters"] == ["member1", "member2", "member3"]
    assert (run.outputs["violations"], run.outputs["exit-code"]) == ("[]", "0")
    summary = pull_request.summary.read_text()
    assert summary.startswith("## Karmada placement diff")  # posted: the job summary is the report only
    _assert_no_token(run, pull_request, github)


def test_a_second_run_updates_the_same_comment(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        for i in range(130):  # the sticky comment lands on the second page
            github.state.add_comment(PR, f"review comment {i}")
        assert pull_request.run(github).returncode == 0
        first = github.state.comments[PR][-1]
        unchanged = pull_request.run(github)
        assert unchanged.returncode == 0  # nothing new: nothing written, the comment is still there
        assert [r.method for r in github.state.writes()] == ["POST"]
        assert unchanged.outputs["comment-url"] == first["html_url"]
        change_secret(pull_request.repo)
        pull_request.repo.commit("rotate the database password")
        run = pull_request.run(github)
    assert run.returncode == 0, run.log
    assert [r.method for r in github.state.writes()] == ["POST", "PATCH"]
    sticky = [c for c in github.state.comments[PR] if c["body"].startswith(marker("."))]
    assert [c["id"] for c in sticky] == [first["id"]]
    assert run.outputs["comment-url"] == first["html_url"]
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
    assert (run.outputs["comment-url"], run.outputs["exit-code"]) == ("", "0")
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
    assert run.outputs["exit-code"] == "3"  # written before the step failed
    assert run.outputs["comment-url"] == comment["html_url"]
    (violation,) = json.loads(run.outputs["violations"])
    assert violation["guardrail"] == "replicas-moved>20%"
    assert "frontend" in violation["detail"]


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
    assert run.outputs["exit-code"] == "2"


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


# -- mode: verify and mode: reconcile ------------------------------------------------------------------------

IDENTITY = {
    "GIT_AUTHOR_NAME": "gitops-karmada",
    "GIT_AUTHOR_EMAIL": "gitops-karmada@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "gitops-karmada",
    "GIT_COMMITTER_EMAIL": "gitops-karmada@users.noreply.github.com",
}


def _on_main(fleet: Path, tmp_path: Path) -> Runner:
    """The reconciled fleet checked out on main, as the verify workflow's push event sees it."""
    git(fleet.parent, "clone", "-q", str(fleet), str(tmp_path / "workspace"))
    runner = Runner(FleetRepo(tmp_path / "workspace"), tmp_path / "runner", push=True)
    runner.work.mkdir()
    return runner


def _verify_json(repo: FleetRepo) -> dict[str, object]:
    done = repo.cli("verify", "-o", "json", check=None)
    document: dict[str, object] = json.loads(done.stdout)
    return document


def test_verify_a_reconciled_fleet(fleet: Path, tmp_path: Path) -> None:
    runner = _on_main(fleet, tmp_path)
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run(github, mode="verify")
    assert run.returncode == 0, run.log
    assert run.outputs["exit-code"] == "0"
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert report == _verify_json(runner.repo)  # the command's own document, as it is
    assert report["ok"] is True and report["commit"] == runner.repo.head()
    assert (run.outputs["violations"], run.outputs["comment-url"], run.outputs["has-changes"]) == (
        "[]",
        "",
        "false",
    )
    summary = runner.summary.read_text()
    assert summary.startswith(f"## gitops-karmada verify\n\n**verified {runner.repo.head()[:12]}: the output")
    assert f"verified {runner.repo.head()[:12]}" in run.log
    assert github.state.requests == []  # verify never calls the API
    _assert_no_token(run, runner, github)


def test_verify_on_a_pull_request_allows_inputs_not_reconciled_yet(pull_request: Runner) -> None:
    """The pull request changes inputs; its output is rendered by the reconcile after the merge."""
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github, mode="verify")
    assert run.returncode == 0, run.log
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert report["ok"] is True
    assert report["info"] and {item["finding"] for item in report["info"]} == {"pending"}
    pull_request.repo.cli("verify", check=1)  # without --allow-stale the same commit is stale


def test_verify_finds_a_hand_edit(fleet: Path, tmp_path: Path) -> None:
    runner = _on_main(fleet, tmp_path)
    edited = "clusters/member1/shop/deployment.apps/frontend.yaml"
    deployment = runner.repo.load(edited)
    deployment["spec"]["replicas"] += 10
    runner.repo.write(edited, deployment)
    runner.repo.commit("scale frontend by hand")
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run(github, mode="verify")
    assert run.returncode == 1, run.log
    assert run.outputs["exit-code"] == "1"  # written before the step failed
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert report["ok"] is False
    assert [f["path"] for f in report["failures"]] == [edited]
    assert f"::error file={edited},title=gitops-karmada verify::" in run.log
    summary = runner.summary.read_text()
    assert "> [!CAUTION]\n> verify failed at" in summary
    assert f"| `{edited}` |" in summary


def test_reconcile_commits_and_pushes(fleet: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(fleet), str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "workspace"))
    repo = FleetRepo(tmp_path / "workspace")
    change_weight(repo)
    merged = repo.commit("frontend: equal weights")
    git(repo.path, "push", "-q", "origin", "main")  # the merge that starts the reconcile workflow
    runner = Runner(repo, tmp_path / "runner", push=True)
    runner.work.mkdir()
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run_with(github, {"mode": "reconcile"}, IDENTITY)
    assert run.returncode == 0, run.log
    assert run.outputs["exit-code"] == "0"
    pushed = git(remote, "rev-parse", "main")
    assert pushed != merged and pushed == repo.head()
    assert git(remote, "rev-parse", "main~1") == merged
    assert "clusters/member1/" in git(remote, "show", "--stat", "--format=", "main")
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert report["kind"] == "ReconcileReport" and report["outcome"] == "committed"
    assert {k: report[k] for k in ("mode", "exitCode", "commit", "pushed", "violations")} == {
        "mode": "reconcile",
        "exitCode": 0,
        "commit": pushed,
        "pushed": True,
        "violations": [],
    }
    assert report["changes"] and all(c["action"] in ("write", "delete") for c in report["changes"])
    assert run.outputs["violations"] == "[]"
    assert runner.summary.read_text().startswith(
        f"## gitops-karmada reconcile\n\n**Committed `{pushed[:12]}`.**"
    )
    assert "Deployment.apps/shop/frontend" in runner.summary.read_text()  # the command's own output
    # a second run (a later step of the same job) finds nothing to do, and the tool installed
    installs = (runner.work / "pip.log").read_text().count("install")
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        again = runner.run_with(github, {"mode": "reconcile"}, IDENTITY)
    assert again.returncode == 0, again.log
    assert (runner.work / "pip.log").read_text().count("install") == installs == 1
    assert f"gitops-karmada {__version__} is installed already" in again.log
    assert json.loads(Path(again.outputs["report-json"]).read_text())["commit"] is None
    assert git(remote, "rev-parse", "main") == pushed
    assert github.state.requests == []


def test_reconcile_refused_by_a_guardrail_pushes_nothing(fleet: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(fleet), str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "workspace"))
    repo = FleetRepo(tmp_path / "workspace")
    documents = [d for d in yaml.safe_load_all(repo.read("namespaces/namespaces.yaml")) if d is not None]
    repo.write("namespaces/namespaces.yaml", [d for d in documents if d["metadata"]["name"] != "analytics"])
    merged = repo.commit("drop the analytics namespace")
    git(repo.path, "push", "-q", "origin", "main")
    runner = Runner(repo, tmp_path / "runner", push=True)
    runner.work.mkdir()
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run_with(github, {"mode": "reconcile"}, IDENTITY)
    assert run.returncode == 3, run.log
    assert run.outputs["exit-code"] == "3"
    assert git(remote, "rev-parse", "main") == merged == repo.head()
    violations = json.loads(run.outputs["violations"])
    assert violations and {v["guardrail"] for v in violations} == {"namespace-removed"}
    assert all("analytics" in v["detail"] for v in violations)
    assert "::error title=gitops-karmada guardrail namespace-removed::" in run.log
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert (report["exitCode"], report["commit"], report["violations"]) == (3, None, violations)
    assert "**Guardrails refused the commit**" in runner.summary.read_text()


def test_an_unknown_mode_names_the_input(pull_request: Runner) -> None:
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = pull_request.run(github, mode="deploy")
    assert run.returncode == 2
    assert (
        "::error title=gitops-karmada::input mode: 'deploy' is not one of diff, verify, reconcile" in run.log
    )
    assert run.outputs["exit-code"] == "2"
    assert github.state.requests == []


def test_the_pull_request_comment_and_the_reconcile_work_on_a_branch_per_cluster_fleet(
    fleet: Path, tmp_path: Path
) -> None:
    """The fleet's output on one branch per cluster: a clone (as actions/checkout with fetch-depth 0 makes
    it) diffs a pull request from the shards, and the reconcile mode pushes the shards with the branch."""
    source = FleetRepo(tmp_path / "source")
    git(tmp_path, "clone", "-q", str(fleet), str(source.path))
    config = source.read("gitops-karmada.yaml")
    assert "\n  mode: tree" in config
    source.write("gitops-karmada.yaml", config.replace("\n  mode: tree", "\n  mode: branch-per-cluster", 1))
    source.commit("one branch per cluster")
    source.cli("reconcile")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(source.path), str(remote))
    for branch in ("member1", "member2", "member3", "member4"):
        git(source.path, "push", "-q", str(remote), f"clusters/{branch}")

    repo = FleetRepo(tmp_path / "workspace")
    git(tmp_path, "clone", "-q", str(remote), str(repo.path))
    git(repo.path, "checkout", "-q", "-b", "feature")
    change_weight(repo)
    repo.commit("frontend: equal weights")
    runner = Runner(repo, tmp_path / "runner")
    runner.work.mkdir()
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        run = runner.run(github)
        assert run.returncode == 0, run.log
        (comment,) = github.state.comments[PR]
    assert (
        "| `Deployment.apps/shop/frontend` | pp/frontend | 8 | **4 → 2** | **2 → 3** | **2 → 3** |"
        in comment["body"]
    )

    git(repo.path, "checkout", "-q", "main")
    git(repo.path, "merge", "-q", "--ff-only", "feature")
    git(repo.path, "push", "-q", "origin", "main")
    merged = repo.head()
    pushing = Runner(repo, tmp_path / "runner-push", push=True)
    pushing.work.mkdir()
    with FakeGitHub(TOKEN, REPOSITORY) as github:
        done = pushing.run_with(github, {"mode": "reconcile"}, IDENTITY)
    assert done.returncode == 0, done.log
    assert git(remote, "rev-parse", "main~1") == merged
    assert "clusters/" not in git(remote, "show", "--stat", "--format=", "main")
    record = git(remote, "show", "main:karmada-state/shards.yaml")
    member1 = git(remote, "rev-parse", "clusters/member1")
    assert member1 in record, "the remote's shard branch is the commit the pushed record names"
    assert "replicas: 2" in git(remote, "show", "clusters/member1:shop/deployment.apps/frontend.yaml")
