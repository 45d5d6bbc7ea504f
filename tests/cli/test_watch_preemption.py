"""User changes first: a run the daemon makes for a status report alone stops when a user commit arrives.

In process, on real repositories: the worker's run, the probe that asks where the branch is (``rev-parse``
locally, ``ls-remote`` on a remote) and the cancellation inside the render. The user commit is made while the
status run is in progress by wrapping the real ``reconcile_ref``, so the race is not left to the clock.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.status_store import record_snapshots
from gitops_karmada.daemon import worker as worker_module
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.settings import WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, RunResult, Snapshot
from gitops_karmada.daemon.worker import UserCommitProbe, Worker
from gitops_karmada.model.errors import GitError, RunCancelled
from gitops_karmada.model.status import ClusterStatusSnapshot
from gitops_karmada.usecases.reconcile import reconcile_and_push, reconcile_ref
from tests.builders import deployment
from tests.cli.test_reconcile import shop
from tests.cli.watch_harness import Remote, wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

STATUS = "gitops-karmada-status"


def _report(store: GitStore, at: str) -> str:
    snapshot = ClusterStatusSnapshot.model_validate(
        {
            "metadata": {"name": "member1"},
            "collectedAt": at,
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}]},
        }
    )
    commit = record_snapshots(store, STATUS, [snapshot], "collect member1")
    assert commit is not None
    return commit


def _worker(repo: FleetRepo) -> tuple[Worker, DaemonMetrics]:
    metrics = DaemonMetrics()
    status = DaemonStatus(Snapshot(repository=str(repo.path), branch="main", mode="local"))
    settings = WorkerSettings(branch="main", remote=None, push=False, interval=0.05)
    return Worker(GitStore.open(repo.path), settings, status, metrics), metrics


def _trailers(repo: FleetRepo, rev: str = "main") -> dict[str, str]:
    body = git(repo.path, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    return dict(line.split(": ", 1) for line in body.splitlines() if ": " in line)


def test_a_user_commit_stops_a_status_run_and_is_reconciled_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = shop(tmp_path)
    worker, metrics = _worker(repo)
    asked: list[bool] = []
    user_commit: list[str] = []

    def user_commits_meanwhile(*args: Any, cancelled: Any = None, **kwargs: Any) -> Any:
        asked.append(cancelled is not None)
        if cancelled is not None and not user_commit:
            repo.write("apps/web.yaml", deployment("web", "shop", replicas=6))
            user_commit.append(repo.commit("web: 6 replicas"))
            wait_for(cancelled, "the probe to see the user commit", timeout=10)
        return reconcile_ref(*args, cancelled=cancelled, **kwargs)

    monkeypatch.setattr(worker_module, "reconcile_ref", user_commits_meanwhile)
    assert worker.run_once() is RunResult.COMMITTED
    _report(worker.store, "2026-01-02T03:04:00Z")
    assert worker.run_once() is RunResult.PREEMPTED
    # nothing was written for the status: the branch is at the user's commit
    assert git(repo.path, "rev-parse", "main") == user_commit[0]
    assert worker.run_once() is RunResult.COMMITTED
    trailers = _trailers(repo)
    assert trailers["Source-Commit"] == user_commit[0]
    assert trailers.get("Status-Commit") == git(repo.path, "rev-parse", STATUS)
    assert "replicas: " in repo.read("clusters/member1/shop/deployment.apps/web.yaml")
    # only the status run was watched; the first run and the user's run were not
    assert asked == [False, True, False]
    assert metrics.reconcile.runs.labels(result="preempted")._value.get() == 1
    assert worker.run_once() is None  # nothing left to do


def test_a_status_run_without_a_user_commit_runs_to_the_end(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    worker, metrics = _worker(repo)
    assert worker.run_once() is RunResult.COMMITTED
    status = _report(worker.store, "2026-01-02T03:04:00Z")
    assert worker.run_once() in (RunResult.COMMITTED, RunResult.UP_TO_DATE)
    assert metrics.reconcile.runs.labels(result="preempted")._value.get() == 0
    assert worker.run_once() is None
    assert git(repo.path, "rev-parse", STATUS) == status


def test_a_cancelled_render_writes_nothing(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    store = GitStore.open(repo.path)
    before = repo.head()
    calls = 0

    def after_a_few() -> bool:
        nonlocal calls
        calls += 1
        return calls > 2

    with pytest.raises(RunCancelled):
        reconcile_ref(store, "refs/heads/main", cancelled=after_a_few)
    assert repo.head() == before and repo.status() == ""
    assert not repo.exists("clusters")
    outcome = reconcile_ref(store, "refs/heads/main", cancelled=lambda: False)
    assert outcome.commit is not None


def test_the_probe_sees_a_local_branch_move(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    store = GitStore.open(repo.path)
    with UserCommitProbe(lambda: store.try_resolve("refs/heads/main"), repo.head(), 0.05) as probe:
        assert not probe.arrived.wait(0.3)
        repo.write("apps/web.yaml", deployment("web", "shop", replicas=5))
        repo.commit("user")
        assert probe.arrived.wait(10)


def test_the_probe_asks_a_remote_without_fetching_and_outlives_a_failed_question(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    clone_dir = tmp_path / "daemon"
    git(tmp_path, "clone", "-q", str(remote.bare), str(clone_dir))
    store = GitStore.open(clone_dir)
    tip = remote.tip()
    assert store.remote_tip("origin", "main") == tip
    assert store.remote_tip("origin", "no-such-branch") is None
    with pytest.raises(GitError) as failed:
        store.remote_tip("no-such-remote", "main")
    assert failed.value.temporary
    answers = iter([GitError("ls-remote", "network down", temporary=True)])

    def look() -> str | None:
        error = next(answers, None)
        if error is not None:
            raise error
        return store.remote_tip("origin", "main")

    with UserCommitProbe(look, tip, 0.05) as probe:
        assert not probe.arrived.wait(0.3)
        pushed = remote.push_change(5)
        assert probe.arrived.wait(10)
    assert store.remote_tip("origin", "main") == pushed
    # ls-remote fetched nothing: the daemon's clone does not have the commit
    missing = subprocess.run(["git", "-C", str(clone_dir), "cat-file", "-e", pushed], check=False)
    assert missing.returncode != 0


def test_a_poke_makes_the_probe_ask_at_once(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    store = GitStore.open(repo.path)
    with UserCommitProbe(lambda: store.try_resolve("refs/heads/main"), repo.head(), 60) as probe:
        repo.write("apps/web.yaml", deployment("web", "shop", replicas=5))
        repo.commit("user")
        assert not probe.arrived.wait(0.3)  # the next scheduled question is a minute away
        probe.poke()
        assert probe.arrived.wait(10)


def test_a_webhook_during_a_status_run_on_a_remote_preempts_it_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Remote mode with a one-minute poll: the push arrives during the status run, the webhook's trigger
    makes the probe ask the remote at once, and the push is reconciled and pushed next."""
    remote = Remote.create(tmp_path)
    daemon_dir = tmp_path / "daemon"
    git(tmp_path, "clone", "-q", str(remote.bare), str(daemon_dir))
    metrics = DaemonMetrics()
    status = DaemonStatus(Snapshot(repository=str(daemon_dir), branch="main", mode="remote"))
    # every run pushes at once (no --push-interval): the second run's push is the one preempted
    settings = WorkerSettings(branch="main", remote="origin", push=True, interval=60, push_interval=0)
    worker = Worker(GitStore.open(daemon_dir), settings, status, metrics)
    pushed: list[str] = []

    def push_meanwhile(*args: Any, cancelled: Any = None, **kwargs: Any) -> Any:
        if cancelled is not None and not pushed:
            pushed.append(remote.push_change(6))
            worker.trigger("webhook")
            wait_for(cancelled, "the poked probe to see the push", timeout=10)
        return reconcile_and_push(*args, cancelled=cancelled, **kwargs)

    source = remote.tip()
    assert worker.run_once() is RunResult.COMMITTED
    assert remote.reconciled(source)
    _report(GitStore.open(remote.bare), "2026-01-02T03:04:00Z")
    monkeypatch.setattr(worker_module, "reconcile_and_push", push_meanwhile)
    assert worker.run_once() is RunResult.PREEMPTED
    assert worker.run_once() is RunResult.COMMITTED
    assert remote.reconciled(pushed[0])
    assert remote.trailers(remote.tip()).get("Status-Commit") == git(remote.bare, "rev-parse", STATUS)
