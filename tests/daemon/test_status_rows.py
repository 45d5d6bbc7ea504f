"""The status page's placements after each run of one daemon, made from the rows that changed and the run's own
index, equal rows made afresh from the committed index by a new worker; the clusters they name and the
templates that moved follow every change (scaled, added, deleted)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.settings import WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, RunResult, Snapshot
from gitops_karmada.daemon.worker import Worker
from tests.builders import configmap, deployment
from tests.cli.test_reconcile import shop

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo


def _worker(repo: FleetRepo) -> Worker:
    status = DaemonStatus(Snapshot(repository=str(repo.path), branch="main", mode="local"))
    settings = WorkerSettings(branch="main", remote=None, push=False, interval=0.05)
    return Worker(GitStore.open(repo.path), settings, status, DaemonMetrics())


def _afresh(repo: FleetRepo) -> Snapshot:
    """The status a new daemon shows for the branch as committed: its first run finds it up to date and
    reads the index from git."""
    fresh = _worker(repo)
    assert fresh.run_once() is RunResult.UP_TO_DATE
    return fresh.status.read()


def test_status_rows_follow_each_run_and_equal_rows_made_afresh(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    worker = _worker(repo)
    assert worker.run_once() is RunResult.COMMITTED
    first = worker.status.read()
    assert {p.template for p in first.placements} == {
        "Deployment.apps/shop/web",
        "ConfigMap/shop/settings",
    }
    assert first.clusters == ("member1", "member2", "member3")
    steps = [
        ("apps/web.yaml", deployment("web", "shop", replicas=8), ("Deployment.apps/shop/web",)),
        ("apps/extra.yaml", configmap("extra", "shop"), ("ConfigMap/shop/extra",)),
        ("apps/config.yaml", None, ("ConfigMap/shop/settings",)),
    ]
    for path, content, moved in steps:
        kept = {p.template: p for p in worker.status.read().placements}
        if content is None:
            repo.delete(path)
        else:
            repo.write(path, content)
        repo.commit(f"change {path}")
        assert worker.run_once() is RunResult.COMMITTED, path
        now = worker.status.read()
        assert now.runs[0].moved == moved, path
        fresh = _afresh(repo)
        assert now.placements == fresh.placements, path
        assert now.clusters == fresh.clusters, path
        assert {p.template for p in now.placements} - set(moved) <= set(kept), path
