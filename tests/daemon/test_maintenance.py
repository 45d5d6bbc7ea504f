"""The worker packs its clone's objects between runs once there are as many packs (or loose objects) as make
``git gc --auto`` act: every run leaves a pack and loose trees, and the daemon's own git commands never collect
(``gc.auto=0``). In process, on a real repository, through the worker's loop."""

from __future__ import annotations

import re
import threading
import time
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.settings import WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, Snapshot
from gitops_karmada.daemon.worker import Worker
from tests.builders import configmap
from tests.cli.test_reconcile import shop
from tests.cli.watch_harness import wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.fleet import FleetRepo


def _packs(repo: FleetRepo, count: int) -> None:
    """``count`` more packs, one per commit (as fast-import leaves them)."""
    for index in range(count):
        repo.write(f"apps/extra-{index}.yaml", configmap(f"extra-{index}", "shop"))
        repo.commit(f"extra {index}")
        git(repo.path, "repack", "-q")  # the new loose objects, in a pack of their own


def _serve(
    store: GitStore, settings: WorkerSettings, until: str, idle: float = 0.0
) -> tuple[DaemonMetrics, list[str]]:
    """Run the worker's loop until ``until`` is logged, and ``idle`` seconds more; its metrics and log."""
    metrics = DaemonMetrics()
    status = DaemonStatus(Snapshot(repository=str(store.git_dir), branch="main", mode="local"))
    worker = Worker(store, settings, status, metrics)
    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="INFO", format="{message}")
    thread = threading.Thread(target=worker.serve)
    thread.start()
    try:
        wait_for(lambda: any(until in line for line in lines), until)
        time.sleep(idle)
    finally:
        worker.stop()
        thread.join()
        logger.remove(sink)
    return metrics, lines


def _maintenance_runs(metrics: DaemonMetrics) -> float:
    value = metrics.registry.get_sample_value("gitops_karmada_repository_maintenance_total")
    assert value is not None
    return value


def test_the_worker_packs_its_clone_past_the_pack_limit(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    _packs(repo, 6)
    store = GitStore.open(repo.path)
    assert store.object_counts()[1] >= 6
    head = repo.head()
    settings = WorkerSettings(branch="main", remote=None, push=False, interval=0.05, pack_limit=5)
    metrics, lines = _serve(store, settings, "packed the clone's objects")
    assert _maintenance_runs(metrics) == 1
    _, after = store.object_counts()
    assert after < 5, after
    git(repo.path, "fsck", "--no-progress")  # nothing lost
    assert git(repo.path, "rev-parse", "main~1") == head, "the run reconciled the tip, then packed"
    said = [
        m
        for line in lines
        if (m := re.search(r"(\d+) pack\(s\) and \d+ loose object\(s\) → (\d+) and", line))
    ]
    assert len(said) == 1 and int(said[0][1]) >= 5 and int(said[0][2]) == after, lines


def test_below_git_s_limits_nothing_is_packed_and_idle_polls_count_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = shop(tmp_path)
    _packs(repo, 3)
    store = GitStore.open(repo.path)
    _, packs = store.object_counts()
    counted: list[int] = []
    count_objects = GitStore.object_counts

    def counting(self: GitStore) -> tuple[int, int]:
        counted.append(1)
        return count_objects(self)

    monkeypatch.setattr(GitStore, "object_counts", counting)
    settings = WorkerSettings(branch="main", remote=None, push=False, interval=0.05)
    metrics, _ = _serve(store, settings, "reconciled", idle=0.5)
    assert _maintenance_runs(metrics) == 0
    assert len(counted) == 1, "counted after the run, not at each of the ten polls that found nothing to do"
    assert count_objects(store)[1] >= packs
