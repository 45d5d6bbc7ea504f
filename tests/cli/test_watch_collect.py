"""``watch --collect``: the daemon reads member clusters with the real kubectl (against a loopback API server)
and records their status on the status branch, one commit per round; real repositories and remotes.

The daemon runs as a subprocess; the growth of the status branch is also measured in process, with the
collector's clock injected, so a simulated quarter of an hour takes a few seconds.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.status_store import record_snapshots
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.daemon.collect_loop import CollectLoop
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.settings import CollectLoopSettings, WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, Snapshot
from gitops_karmada.model.status import ClusterStatusSnapshot
from gitops_karmada.usecases.collect import Member
from tests.builders import configmap, deployment
from tests.cli.test_reconcile import shop
from tests.cli.watch_harness import Daemon, Remote, clone, wait_for
from tests.gitrepos import git
from tests.kube_api import Answer, KubeApi, closed_port, kubeconfig, object_list, status_answer

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.fleet import FleetRepo

STATUS = "gitops-karmada-status"
FAST = ("--interval", "60", "--collect-interval", "0.5")
"""The poll is 60 s: every run in these tests was started by a ref event or the collector's trigger."""


def member_api() -> KubeApi:
    """A healthy member1 holding the shop's objects as the fleet renders them."""
    web = deployment("web", "shop", replicas=3)
    web["status"] = {"replicas": 3, "readyReplicas": 3, "observedGeneration": 1}
    web["metadata"]["generation"] = 1
    return KubeApi(
        {
            "/readyz": Answer("ok"),
            "/version": Answer({"major": "1", "minor": "30", "gitVersion": "v1.30.2"}),
            "/api/v1/nodes": object_list("NodeList", []),
            "/api/v1/pods": object_list("PodList", []),
            "/apis/apps/v1/deployments": object_list("DeploymentList", [web], "apps/v1"),
            "/api/v1/configmaps": object_list("ConfigMapList", [configmap("settings", "shop")]),
        }
    )


@pytest.fixture
def api() -> Iterator[KubeApi]:
    with member_api() as served:
        yield served


def with_grace(repo: FleetRepo, seconds: float) -> None:
    repo.write(
        "gitops-karmada.yaml",
        {
            "apiVersion": "gitops-karmada.io/v1alpha1",
            "kind": "Config",
            "failover": {"clusterMonitorGracePeriodSeconds": seconds},
        },
    )
    repo.commit(f"monitor grace period {seconds} s")


# -- reading the status branch ---------------------------------------------------------------------------------


def status_commits(repo: Path, branch: str = STATUS) -> list[str]:
    """The status branch's commits, oldest first, without its empty root."""
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--reverse", "--first-parent", f"refs/heads/{branch}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.split()[1:] if done.returncode == 0 else []


def snapshot_at(repo: Path, rev: str, cluster: str = "member1") -> dict[str, Any] | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"{rev}:clusters/{cluster}.yaml"],
        capture_output=True,
        text=True,
        check=False,
    )
    found: dict[str, Any] | None = yaml.safe_load(done.stdout) if done.returncode == 0 else None
    return found


SHOP_OBJECTS = {("ConfigMap", "settings"), ("Deployment", "web")}


def found_objects(repo: Path, rev: str | None) -> set[tuple[str, str]]:
    """(kind, name) of the objects member1's snapshot at ``rev`` found on the cluster."""
    snapshot = snapshot_at(repo, rev) if rev else None
    return {(o["kind"], o["name"]) for o in (snapshot or {}).get("objects", ()) if "observed" in o}


def heartbeats(repo: Path, commits: list[str]) -> list[datetime]:
    """member1's collectedAt in each of ``commits``."""
    found = []
    for commit in commits:
        snapshot = snapshot_at(repo, commit)
        assert snapshot is not None, commit
        found.append(parse_time(snapshot["collectedAt"]))
    return found


def ready(repo: Path, rev: str = STATUS, cluster: str = "member1") -> tuple[str, str] | None:
    snapshot = snapshot_at(repo, rev, cluster)
    if snapshot is None:
        return None
    condition = next(c for c in snapshot["status"]["conditions"] if c["type"] == "Ready")
    return condition["status"], condition["reason"]


def trailers(repo: Path, rev: str) -> dict[str, str]:
    body = git(repo, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    return dict(line.split(": ", 1) for line in body.splitlines() if ": " in line)


def metric(daemon: Daemon, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    _, text = daemon.get("/metrics")
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


# -- the daemon, local mode --------------------------------------------------------------------------------------


def test_the_daemon_collects_records_and_reconciles_with_the_status_commit(
    tmp_path: Path, api: KubeApi
) -> None:
    repo = shop(tmp_path)
    config = api.kubeconfig(tmp_path / "member1.kubeconfig", context="member")
    collect = ("--collect", f"member1={config}@member", "--collect", f"ghost={config}")
    with Daemon.start(repo.path, *FAST, *collect, log_path=tmp_path / "daemon.log") as daemon:
        # the first round may read the branch before its first reconcile (no cluster folders yet); the next
        # reads the reconciled commit and lists what it rendered into member1's folder
        wait_for(lambda: found_objects(repo.path, STATUS) == SHOP_OBJECTS, "member1's objects", timeout=20)
        assert ready(repo.path) == ("True", "ClusterReady")
        # a status commit starts a run (the poll is 60 s); the reconcile commit names the status it read
        wait_for(
            lambda: (
                found_objects(repo.path, trailers(repo.path, "main").get("Status-Commit")) == SHOP_OBJECTS
            ),
            "a reconcile commit naming the status commit with member1's objects",
            timeout=20,
        )
        observed = snapshot_at(repo.path, STATUS)
        assert observed is not None
        assert observed["status"]["kubernetesVersion"] == "v1.30.2"
        assert metric(daemon, "cluster_ready_state", member_cluster="member1") == 1
        assert metric(daemon, "gitops_karmada_collect_rounds_total", result="recorded") >= 1
        # a name the inventory does not have is an error line of every round, not a crash
        wait_for(
            lambda: metric(daemon, "gitops_karmada_collect_errors_total", member_cluster="ghost") >= 2,
            "two rounds that could not collect ghost",
        )
        lines = [e for e in daemon.entries() if e["msg"].startswith("cannot collect ghost")]
        assert len(lines) >= 2 and all(e["level"] == "error" for e in lines), lines
        assert "no cluster 'ghost' in the fleet's inventory" in lines[0]["msg"]
        # the cluster's health endpoint fails: the next snapshot says so, and a run follows
        runs = daemon.runs()
        api.routes["/readyz"] = status_answer(500, "InternalError", "etcd is down")
        wait_for(lambda: ready(repo.path) == ("False", "ClusterNotReady"), "the snapshot saying not ready")
        wait_for(lambda: daemon.runs() > runs, "a run for the status commit")
        wait_for(lambda: metric(daemon, "cluster_ready_state", member_cluster="member1") == 0, "ready 0")
        stopping = time.monotonic()
        assert daemon.terminate() == 0
        assert time.monotonic() - stopping < 5, "SIGTERM waits for no collection interval"
    messages = [e["msg"] for e in daemon.entries()]
    assert any(m.startswith("member1 is Ready=False (ClusterNotReady") for m in messages), messages
    assert "stopped" in messages
    # status went to a branch of its own: the fleet branch never held a snapshot
    assert git(repo.path, "log", "--format=%H", "main", "--", "clusters/member1.yaml") == ""


def heartbeat_only(repo: Path, earlier: str, later: str) -> bool:
    """Whether member1's snapshot changed in collectedAt alone between two status commits."""
    changed = git(repo, "diff", "--unified=0", earlier, later, "--", "clusters/member1.yaml")
    lines = [line for line in changed.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    return bool(lines) and all("collectedAt" in line for line in lines)


def test_unchanged_rounds_record_nothing_until_half_the_grace_period(tmp_path: Path, api: KubeApi) -> None:
    repo = shop(tmp_path)
    with_grace(repo, 6)  # half: 3 s, several rounds of 0.5 s
    config = api.kubeconfig(tmp_path / "member1.kubeconfig")
    collect = ("--collect", f"member1={config}")

    def heartbeat_pairs() -> list[tuple[str, str]]:
        pairs = itertools.pairwise(status_commits(repo.path))
        return [(a, b) for a, b in pairs if heartbeat_only(repo.path, a, b)]

    def rounds(result: str) -> float:
        return metric(daemon, "gitops_karmada_collect_rounds_total", result=result)

    with Daemon.start(repo.path, *FAST, *collect, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(
            lambda: rounds("unchanged") >= 1 and len(heartbeat_pairs()) >= 1,
            "a round with nothing to record, and a commit of the heartbeat alone",
            timeout=20,
        )
        assert rounds("error") == 0
        assert daemon.terminate() == 0
    # a change is recorded at once (the objects, once the first reconcile rendered member1's folder); the
    # heartbeat alone only once the recorded one is half the grace period old
    for earlier, later in heartbeat_pairs():
        first, second = heartbeats(repo.path, [earlier, later])
        assert (second - first).total_seconds() >= 3, (earlier, later)


# -- the daemon, remote mode ---------------------------------------------------------------------------------------


def push_status(user: FleetRepo, cluster: str, at: datetime) -> str:
    """Record ``cluster``'s snapshot in the user's clone on top of the remote's status branch and push it, as
    another collector would; retried when the daemon's push won the race."""
    snapshot = ClusterStatusSnapshot.model_validate(
        {
            "metadata": {"name": cluster},
            "collectedAt": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}]},
        }
    )
    store = GitStore.open(user.path)
    for _ in range(20):
        git(user.path, "fetch", "-q", "origin", f"+{STATUS}:{STATUS}")
        commit = record_snapshots(store, STATUS, [snapshot], f"collect {cluster}")
        assert commit is not None
        pushed = subprocess.run(
            ["git", "-C", str(user.path), "push", "-q", "origin", STATUS], capture_output=True, check=False
        )
        if pushed.returncode == 0:
            return commit
        time.sleep(0.05)
    raise AssertionError("could not push the status branch in 20 tries")


def test_remote_mode_pushes_the_status_branch_and_keeps_other_collectors_commits(
    tmp_path: Path, api: KubeApi
) -> None:
    remote = Remote.create(tmp_path)
    clone(remote.bare, tmp_path / "daemon")
    config = api.kubeconfig(tmp_path / "member1.kubeconfig")
    args = (
        "--remote",
        "origin",
        "--interval",
        "0.3",
        "--collect-interval",
        "0.5",
        "--collect",
        f"member1={config}",
    )
    with Daemon.start(tmp_path / "daemon", *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: ready(remote.bare) == ("True", "ClusterReady"), "member1's snapshot on the remote")
        # another collector records member2 meanwhile: the daemon's later rounds go on top of it
        theirs = push_status(remote.user, "member2", datetime.now(UTC))
        api.routes["/readyz"] = status_answer(500, "InternalError", "etcd is down")
        wait_for(lambda: ready(remote.bare) == ("False", "ClusterNotReady"), "the change on the remote")
        tip = git(remote.bare, "rev-parse", STATUS)
        assert git(remote.bare, "merge-base", "--is-ancestor", theirs, tip) == "", (
            "a collector's commit was lost"
        )
        assert ready(remote.bare, cluster="member2") == ("True", "ClusterReady")
        wait_for(
            lambda: trailers(remote.bare, "main").get("Status-Commit") in status_commits(remote.bare),
            "a pushed reconcile commit naming a pushed status commit",
        )
        assert daemon.terminate() == 0
    pushed = [e for e in daemon.entries() if e.get("pushed") is True and "statusCommit" in e]
    assert pushed, "the recording lines say the status commits were pushed"


# -- options ---------------------------------------------------------------------------------------------------------


def _refused(repo: Path, *cases: tuple[str, ...]) -> list[str]:
    """``watch --collect ...`` with each case's values, run side by side; each must exit 2: its stderr."""
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitops_karmada", "watch", "--repo", str(repo), "--listen", "off",
             *(arg for value in values for arg in ("--collect", value))],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        for values in cases
    ]  # fmt: skip
    errors = []
    for values, run in zip(cases, runs, strict=True):
        _, stderr = run.communicate(timeout=60)
        assert run.returncode == 2, (values, stderr)
        errors.append(stderr)
    return errors


def test_collect_options_are_checked_before_the_daemon_starts(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    config = kubeconfig(tmp_path / "kc", "http://127.0.0.1:1")
    missing = tmp_path / "missing"
    cases = {
        ("member1",): "'member1' is not NAME=KUBECONFIG[@CONTEXT]",
        (f"member1={missing}",): f"the kubeconfig of member1, '{missing}', is not a file",
        (f"member1={missing}@ctx",): f"the kubeconfig of member1, '{missing}', is not a file",
        (f"Member_1={config}",): "'Member_1' is not a cluster name",
        (f"member1={config}", f"member1={config}@other"): "cluster 'member1' is given more than once",
    }
    for stderr, message in zip(_refused(repo.path, *cases), cases.values(), strict=True):
        assert message in stderr, stderr


def test_an_interval_not_below_the_grace_period_is_warned_about(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    config = kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{closed_port()}")
    args = ("--interval", "60", "--collect-interval", "40", "--collect", f"member1={config}")
    with Daemon.start(repo.path, *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(
            lambda: any("is not below failover.clusterMonitorGracePeriodSeconds (40 s)" in e["msg"]
                        for e in daemon.entries()),
            "the warning",
        )  # fmt: skip
        # the first round ran at once, the next is 40 s away: SIGTERM ends the wait
        wait_for(lambda: ready(repo.path) == ("False", "ClusterNotReachable"), "the first round's snapshot")
        stopping = time.monotonic()
        assert daemon.terminate() == 0
        assert time.monotonic() - stopping < 5


# -- the status branch's growth, measured with the collector's clock injected ---------------------------------------


class SteppedClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.parametrize(
    ("interval", "rounds", "commits", "period"), [(5, 24, 6, 20), (15, 8, 8, 15), (20, 6, 6, 20)]
)
def test_an_unchanged_fleet_costs_one_status_commit_per_half_grace_period(
    tmp_path: Path, interval: int, rounds: int, commits: int, period: int
) -> None:
    """Rounds over 120 simulated seconds with the default grace period (40 s) and a cluster that stays
    unreachable (its snapshot changes in the heartbeat only). A heartbeat is recorded before it would be more
    than 20 s old at the next round: every 20 s at 5 s or 20 s intervals, every round at 15 s (waiting for
    a 20 s old heartbeat would let it reach 30 s)."""
    repo = shop(tmp_path)
    store = GitStore.open(repo.path)
    member = Member("member1", kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{closed_port()}"))
    clock = SteppedClock(datetime(2026, 1, 2, 3, 5, tzinfo=UTC))
    woken: list[str] = []
    collector = CollectLoop(
        store,
        CollectLoopSettings((member,), interval=interval, timeout=2),
        WorkerSettings(branch="main", remote=None, push=False, interval=60),
        DaemonStatus(Snapshot(repository=str(repo.path), branch="main", mode="local")),
        DaemonMetrics(),
        lambda: woken.append("collect"),
        clock=clock,
    )
    results = []
    for _ in range(rounds):
        results.append(collector.run_round_guarded())
        clock.now += timedelta(seconds=interval)
    recorded = status_commits(repo.path)
    assert len(recorded) == commits == results.count("recorded") == len(woken)
    assert results.count("unchanged") == rounds - commits
    beats = heartbeats(repo.path, recorded)
    assert {(later - earlier).total_seconds() for earlier, later in itertools.pairwise(beats)} == {period}
    assert 86_400 // period in (4_320, 5_760), "status commits per day"
