"""Issue 37: a change reaches the fleet in waves, each gated on what the clusters report, through the CLI on
real repositories with status snapshots (time moves through commit times, as in tests/cli/test_failover.py).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from gitops_karmada.adapters.git_store import GitStore
from tests.action.github_server import FakeGitHub
from tests.builders import cluster_doc, deployment, pp_doc
from tests.cli.test_failover import T0, record, snapshot
from tests.clirun import COMMAND
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

CLUSTERS = ("member1", "member2", "member3")
RECORD = "karmada-state/bindings/default/deployment.apps/web.yaml"


def manifest_path(cluster: str) -> str:
    return f"clusters/{cluster}/default/deployment.apps/web.yaml"


def rollout_policy(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "gitops-karmada.io/v1alpha1",
        "kind": "RolloutPolicy",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "waves": [
                {"name": "canary", "clusters": {"clusterNames": ["member1"]}},
                {"name": "rest", "clusters": {"clusterNames": ["member2", "member3"]}},
            ],
            "gate": {"healthyFor": "5m"},
            **spec,
        },
    }


def fleet(tmp_path: Path, **spec: Any) -> FleetRepo:
    """``web`` on three clusters at image 1.27, reconciled at T0; then the RolloutPolicy, reconciled (every
    folder already holds the render: nothing rolls out)."""
    files: dict[str, Any] = {
        "gitops-karmada.yaml": {},
        "apps/web.yaml": deployment("web", replicas=2),
        "policies/web.yaml": pp_doc(
            "web",
            "default",
            [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            placement={"clusterAffinity": {"clusterNames": list(CLUSTERS)}},
        ),
        **{f"inventory/{c}.yaml": cluster_doc(c) for c in CLUSTERS},
    }
    repo = FleetRepo.create(tmp_path / "fleet", files)
    run_at(repo, T0, "reconcile")
    repo.write("rollouts/web.yaml", rollout_policy(**spec))
    commit_at(repo, T0 + timedelta(seconds=1), "the web rollout")
    run_at(repo, T0 + timedelta(seconds=1), "reconcile")
    assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.27")
    return repo


def run_at(
    repo: FleetRepo, when: datetime, *args: str, check: int = 0, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The CLI with the clock of the commits it makes set to ``when`` (``env``: more variables)."""
    stamp = f"{int(when.timestamp())} +0000"
    variables = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp, **(env or {})}
    return repo.cli(*args, check=check, env=variables)


def commit_at(repo: FleetRepo, when: datetime, message: str) -> None:
    stamp = f"{int(when.timestamp())} +0000"
    git(repo.path, "add", "-A")
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", message],
        cwd=repo.path,
        env={**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
        check=True,
        capture_output=True,
    )


def change_image(repo: FleetRepo, when: datetime, image: str) -> None:
    repo.write("apps/web.yaml", deployment("web", replicas=2, image=image))
    commit_at(repo, when, f"web {image}")


def images(repo: FleetRepo) -> dict[str, str]:
    found = {}
    for cluster in CLUSTERS:
        if manifest_path(cluster) in repo.tree("clusters"):
            found[cluster] = repo.load(manifest_path(cluster))["spec"]["template"]["spec"]["containers"][0][
                "image"
            ]
    return found


def rollout_state(repo: FleetRepo) -> dict[str, Any]:
    annotations = yaml.safe_load(git(repo.path, "show", f"HEAD:{RECORD}"))["metadata"]["annotations"]
    state: dict[str, Any] = yaml.safe_load(annotations["gitops-karmada.io/rollout"])
    return state


def observed(repo: FleetRepo, cluster: str, *, ready: bool) -> dict[str, Any]:
    """What ``cluster`` reports of ``web``: the manifest its folder holds, as applied, with a status."""
    body = copy.deepcopy(repo.load(manifest_path(cluster)))
    body["metadata"]["generation"] = 1
    body["status"] = {
        "observedGeneration": 1,
        "replicas": 2,
        "readyReplicas": 2 if ready else 0,
        "updatedReplicas": 2,
        "availableReplicas": 2 if ready else 0,
    }
    return {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "web",
            "observed": body}  # fmt: skip


def report(repo: FleetRepo, at: datetime, *, unhealthy: tuple[str, ...] = ()) -> None:
    record(
        repo,
        at,
        *(snapshot(c, at, objects=[observed(repo, c, ready=c not in unhealthy)]) for c in CLUSTERS),
    )


def verify(repo: FleetRepo) -> None:
    """Every template re-rendered from the commit's inputs gives the commit's files and records."""
    repo.cli("verify", "--full")


def trailers(repo: FleetRepo) -> dict[str, str]:
    store = GitStore.open(repo.path)
    return store.trailers("HEAD")


def test_a_change_reaches_the_first_wave_and_the_next_once_healthy_for_the_gate(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:1.28")
    done = run_at(repo, t1, "reconcile")
    assert images(repo) == {"member1": "nginx:1.28", "member2": "nginx:1.27", "member3": "nginx:1.27"}
    state = rollout_state(repo)
    assert state["phase"] == "Progressing"
    assert state["reached"] == ["canary"]
    assert "wave canary promoted" in git(repo.path, "log", "-1", "--format=%B")
    assert trailers(repo)["Rollout-Due"] == "2026-01-02T03:05:06Z"
    verify(repo)

    # member1 reports the new manifest healthy: healthy since t2, for 5 minutes
    t2 = t1 + timedelta(minutes=1)
    report(repo, t2)
    run_at(repo, t2, "reconcile")
    assert images(repo)["member2"] == "nginx:1.27"
    assert "healthy since" in rollout_state(repo)["message"]
    assert trailers(repo)["Rollout-Due"] == "2026-01-02T03:11:05Z"
    verify(repo)

    # the time has come, but the last report is older than the heartbeat grace: a stale report never promotes
    t3 = t2 + timedelta(minutes=5, seconds=10)
    run_at(repo, t3, "reconcile", "--now", t3.isoformat())
    assert images(repo)["member2"] == "nginx:1.27"
    assert "member1: last report 2026-01-02T03:06:05Z is stale" in rollout_state(repo)["message"]
    verify(repo)

    # reported again: a report the rollout could not trust broke the healthy time, which starts again
    report(repo, t3)
    run_at(repo, t3, "reconcile")
    assert images(repo)["member2"] == "nginx:1.27"
    t4 = t3 + timedelta(minutes=5)
    report(repo, t4)
    run_at(repo, t4, "reconcile")
    assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.28")
    assert rollout_state(repo)["reached"] == ["canary", "rest"]
    verify(repo)
    del done


def test_an_unhealthy_first_wave_is_rolled_back_to_the_previous_files(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    before = repo.read(manifest_path("member1"))
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:broken")
    run_at(repo, t1, "reconcile")
    assert images(repo)["member1"] == "nginx:broken"
    t2 = t1 + timedelta(minutes=1)
    report(repo, t2, unhealthy=("member1",))
    run_at(repo, t2, "reconcile")
    assert repo.read(manifest_path("member1")) == before
    assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.27")
    state = rollout_state(repo)
    assert state["phase"] == "RolledBack"
    assert "onFailure: Rollback" in git(repo.path, "log", "-1", "--format=%B")
    verify(repo)


def test_an_approval_gate_waits_for_the_approve_commit(tmp_path: Path) -> None:
    repo = fleet(tmp_path, gate={"approval": True})
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:1.28")
    run_at(repo, t1, "reconcile")
    t2 = t1 + timedelta(minutes=1)
    run_at(repo, t2, "reconcile", "--now", t2.isoformat())
    assert images(repo)["member2"] == "nginx:1.27"
    assert "an approval" in rollout_state(repo)["message"]
    assert trailers(repo)["Rollout-Waiting"] == "approval"
    listed = repo.cli("get", "rollouts").stdout
    assert "canary,rest" in listed
    assert "PROGRESSING" in listed

    t3 = t2 + timedelta(minutes=1)
    done = run_at(repo, t3, "approve", "default/web")
    assert "approved wave canary of rollout default/web" in done.stderr
    log = git(repo.path, "log", "-2", "--format=%s")
    assert log.splitlines()[1] == "gitops-karmada: approve wave canary of rollout default/web"
    assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.28")
    verify(repo)
    described = repo.cli("describe", "rollout/default/web").stdout
    assert "Deployment.apps/default/web" in described
    assert "canary,rest" in described


def test_approving_a_rollout_that_waits_for_nothing_is_an_error_naming_it(tmp_path: Path) -> None:
    repo = fleet(tmp_path, gate={"approval": True})
    done = repo.cli("approve", "default/web", check=1)
    assert "no wave of rollout default/web is in flight" in done.stderr
    assert repo.cli("approve", "default/nope", check=1).stderr.count("RolloutPolicies: default/web") == 1
    assert "has no wave 'blue'" in repo.cli("approve", "default/web", "--wave", "blue", check=2).stderr


def test_a_commit_status_gate_reads_the_status_posted_on_the_reconcile_commit(tmp_path: Path) -> None:
    repo = fleet(tmp_path, gate={"commitStatus": "e2e"})
    with FakeGitHub("t0ken", "acme/fleet") as github:
        env = {"GITHUB_API_URL": github.url, "GITHUB_REPOSITORY": "acme/fleet", "GITHUB_TOKEN": "t0ken"}
        t1 = T0 + timedelta(minutes=1)
        change_image(repo, t1, "nginx:1.28")
        run_at(repo, t1, "reconcile", env=env)
        promoting = repo.head()
        assert images(repo)["member2"] == "nginx:1.27"

        t2 = t1 + timedelta(minutes=1)
        github.state.statuses[promoting] = {"e2e": "pending"}
        run_at(repo, t2, "reconcile", "--now", t2.isoformat(), env=env)
        assert images(repo)["member2"] == "nginx:1.27"
        assert "commit status e2e to succeed" in rollout_state(repo)["message"]
        verify(repo)

        t3 = t2 + timedelta(minutes=1)
        github.state.statuses[repo.head()] = {"e2e": "success"}
        run_at(repo, t3, "reconcile", "--now", t3.isoformat(), env=env)
        assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.28")
        assert trailers(repo)["Rollout-Statuses"].endswith("e2e=success")
        # verify reads the statuses the reconcile recorded, not what GitHub says now
        github.state.statuses.clear()
        verify(repo)
    # reading the fleet asks GitHub nothing; a reconcile without the variables says its waves would wait
    assert "GITHUB_TOKEN" not in repo.cli("get", "rollouts").stderr
    change_image(repo, t3 + timedelta(minutes=1), "nginx:1.29")
    warned = run_at(repo, t3 + timedelta(minutes=1), "reconcile").stderr
    assert "GITHUB_REPOSITORY and GITHUB_TOKEN are not both set" in warned


def test_a_failed_commit_status_rolls_the_wave_back(tmp_path: Path) -> None:
    repo = fleet(tmp_path, gate={"commitStatus": "e2e"})
    with FakeGitHub("t0ken", "acme/fleet") as github:
        env = {"GITHUB_API_URL": github.url, "GITHUB_REPOSITORY": "acme/fleet", "GITHUB_TOKEN": "t0ken"}
        t1 = T0 + timedelta(minutes=1)
        change_image(repo, t1, "nginx:1.28")
        run_at(repo, t1, "reconcile", env=env)
        github.state.statuses[repo.head()] = {"e2e": "failure"}
        t2 = t1 + timedelta(minutes=1)
        run_at(repo, t2, "reconcile", "--now", t2.isoformat(), env=env)
        assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.27")
        assert "commit status e2e is failure" in rollout_state(repo)["message"]


def test_the_diff_of_a_change_shows_its_wave_plan(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    base = repo.head()
    change_image(repo, T0 + timedelta(minutes=1), "nginx:1.28")
    markdown = repo.cli("diff", "--base", base, "--head", "HEAD", "-o", "markdown", check=1).stdout
    assert "### Rollouts" in markdown
    plan = (
        "- `Deployment.apps/default/web` (rollout `default/web`, Progressing): **canary** (`member1`), then "
        "waits for healthy for 5m → rest (`member2`, `member3`), then waits for healthy for 5m"
    )
    assert plan in markdown
    text = repo.cli("diff", "--base", base, "--head", "HEAD", check=1).stdout
    assert "    * canary: member1; then waits for healthy for 5m" in text
    assert "      rest: member2, member3; then waits for healthy for 5m" in text
    # only the first wave's file changes
    assert "clusters/member1/default/deployment.apps/web.yaml" in text
    assert "clusters/member2/default/deployment.apps/web.yaml" not in text


@pytest.mark.parametrize("delay", [0.3, 0.8, 1.5])
def test_a_reconcile_killed_during_a_rollout_step_converges_on_rerun(tmp_path: Path, delay: float) -> None:
    repo = fleet(tmp_path)
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:1.28")
    clean = FleetRepo(tmp_path / "clean")
    shutil.copytree(repo.path, clean.path)
    run_at(clean, t1, "reconcile")

    stamp = f"{int(t1.timestamp())} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    process = subprocess.Popen([*COMMAND, "reconcile"], cwd=repo.path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    run_at(repo, t1, "reconcile")
    assert git(repo.path, "rev-parse", "HEAD^{tree}") == git(clean.path, "rev-parse", "HEAD^{tree}")
    assert rollout_state(repo) == rollout_state(clean)
    verify(repo)
    git(repo.path, "fsck", "--no-progress", "--no-dangling")  # fails the test on a corrupt object


def test_simulate_runs_a_rollout_forward_when_the_clusters_apply_what_is_written(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    change_image(repo, T0 + timedelta(minutes=1), "nginx:1.28")
    done = repo.cli("simulate", "--applied", "--after", "15m", "-o", "json", check=1)
    report = json.loads(done.stdout)
    events = [(e["at"], e["message"]) for e in report["timeline"] if e["action"] == "rollout"]
    assert events[0] == ("2026-01-02T03:05:05Z", "wave canary promoted (member1)")
    # member1 reports it healthy from the next look on; 5 minutes later the rest goes
    assert ("2026-01-02T03:10:06Z", "wave rest promoted (member2, member3)") in events
    assert events[-1][1] == "wave rest passed its gate: the rollout succeeded"
    # without --applied nothing is reported: the first wave waits
    waiting = json.loads(repo.cli("simulate", "--after", "15m", "-o", "json").stdout)
    assert [e["message"] for e in waiting["timeline"] if e["action"] == "rollout"] == [
        "wave canary promoted (member1)"
    ]
    unhealthy = repo.cli("simulate", "--applied", "--unhealthy", "Deployment.apps/default/web@member1",
                         "--after", "15m", "-o", "json", check=None)  # fmt: skip
    messages = [e["message"] for e in json.loads(unhealthy.stdout)["timeline"] if e["action"] == "rollout"]
    assert any("rolled back (onFailure: Rollback)" in m for m in messages)


def test_a_cluster_deleted_during_a_rollout_loses_its_files_as_without_one(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:1.28")
    run_at(repo, t1, "reconcile")
    assert images(repo)["member3"] == "nginx:1.27"  # waits for its wave
    repo.delete("inventory/member3.yaml")
    t2 = t1 + timedelta(minutes=1)
    commit_at(repo, t2, "member3 leaves the fleet")
    done = run_at(repo, t2, "reconcile", "--allow", "cluster-emptied")  # member3 held web alone
    assert "member3" not in images(repo)
    assert "cluster-deleted" in done.stdout
    assert images(repo) == {"member1": "nginx:1.28", "member2": "nginx:1.27"}
    verify(repo)


def test_a_rollback_during_a_rollout_restores_every_cluster_at_once(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    good = repo.head()
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:broken")
    run_at(repo, t1, "reconcile")
    assert images(repo)["member1"] == "nginx:broken"
    run_at(repo, t1 + timedelta(minutes=1), "rollback", good)
    assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.27")
    assert rollout_state(repo)["phase"] == "Succeeded"
    verify(repo)
