"""The daemon runs a reconcile when failover work falls due, with no commit to wake it, and its status page
shows the evictions waiting for their time.

In process on the example fleet (the README's Flink walkthrough): the cluster running the FlinkDeployment
reports NotReady, the ClusterTaintPolicy taints it NoExecute and the job will be evicted once the not-ready
toleration (300 s) runs out. The clock is the one the daemon's commits carry (``GIT_COMMITTER_DATE``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.main import assemble, worker_settings
from gitops_karmada.daemon.page import status_page
from gitops_karmada.daemon.settings import DaemonSettings
from gitops_karmada.daemon.status import RunResult
from tests.cli.test_failover import T0, binding_at, record, snapshot
from tests.cli.test_failover_walkthrough import example_fleet, flink_cluster, flink_reported
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.fleet import FleetRepo

FLINK = "FlinkDeployment.flink.apache.org/analytics/flink-example"


def placed(repo: FleetRepo) -> list[str]:
    binding = binding_at(repo, "analytics", "flinkdeployment.flink.apache.org", "flink-example")
    return [c["name"] for c in binding["spec"]["clusters"]]


def _clock(monkeypatch: pytest.MonkeyPatch, when: datetime) -> None:
    stamp = f"{int(when.timestamp())} +0000"
    monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
    monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)


def test_the_daemon_wakes_when_an_eviction_falls_due(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = example_fleet(tmp_path)
    home = flink_cluster(repo)
    down = T0 + timedelta(seconds=20)
    record(repo, down, snapshot(home, down, ready="False", objects=[flink_reported()]))
    record(
        repo, down, *(snapshot(c, down) for c in ("member1", "member2", "member3", "member4") if c != home)
    )
    _clock(monkeypatch, down)
    store = GitStore.open(repo.path)
    settings = DaemonSettings(repo.path, listen=None, interval=3600)
    daemon = assemble(store, settings, worker_settings(store, settings))
    worker, status = daemon.worker, daemon.worker.status

    assert worker.run_once() is RunResult.COMMITTED
    due = down + timedelta(seconds=300)
    failover = status.read().failover
    # everything on the failed cluster waits for the same toleration, the job among it
    assert (FLINK, home) in {(p.template, p.cluster) for p in failover.pending}
    assert {(p.cluster, p.due) for p in failover.pending} == {(home, due.strftime("%Y-%m-%dT%H:%M:%SZ"))}
    assert failover.due == due.strftime("%Y-%m-%dT%H:%M:%SZ")
    page = status_page(status.read(), ready=True)
    assert '<table id="pending">' in page and FLINK in page
    assert "the daemon runs a reconcile then by itself" in page
    # the worker sleeps until then, not for its poll interval
    assert worker._until_due(3600) == 300.0
    assert worker._until_due(60) == 60
    # before then a wake-up has nothing to do
    _clock(monkeypatch, down + timedelta(seconds=120))
    assert worker.run_once() is None
    head = repo.head()

    # when it is due, a run is made although nothing was committed; the eviction queue then gives one
    # eviction a turn at a time, and each next turn wakes the daemon again, until the job has left the
    # failed cluster (where it goes is the scheduler's business: the other clusters' reports aged too)
    _clock(monkeypatch, due + timedelta(seconds=1))
    assert worker._until_due(3600) == 0.0
    assert worker.run_once() is RunResult.COMMITTED
    assert repo.head() != head
    assert "Run-Time: " in git(repo.path, "log", "-1", "--format=%B")
    turns = 1
    while home in placed(repo):
        next_turn = status.read().failover.due
        assert next_turn, "the job is still on the failed cluster and nothing is due"
        assert worker.run_once() is None  # the run made for a time is made once
        _clock(monkeypatch, datetime.strptime(next_turn, "%Y-%m-%dT%H:%M:%S%z"))
        assert worker._until_due(3600) == 0.0
        before = repo.head()
        assert worker.run_once() in (RunResult.COMMITTED, RunResult.FAILED_TEMPLATES)
        assert repo.head() != before
        turns += 1
        assert turns < 40
    assert FLINK not in {p.template for p in status.read().failover.pending}
