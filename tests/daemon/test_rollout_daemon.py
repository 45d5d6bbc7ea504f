"""Issue 37 in the daemon: it promotes the first wave of a change, shows each template's waves on the status
page (a cluster waiting for its wave is marked), and wakes by itself when the gate's time comes
(``Rollout-Due``), with no commit to wake it. In process, on a real repository; the clock is the one the
daemon's commits carry (``GIT_COMMITTER_DATE``)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.main import assemble, worker_settings
from gitops_karmada.daemon.page import status_page
from gitops_karmada.daemon.settings import DaemonSettings
from gitops_karmada.daemon.status import RunResult
from gitops_karmada.usecases.up_to_date import next_due
from tests.cli.test_failover import T0
from tests.cli.test_rollout import CLUSTERS, change_image, fleet, images, report, rollout_state

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

    import pytest


def _clock(monkeypatch: pytest.MonkeyPatch, when: datetime) -> None:
    stamp = f"{int(when.timestamp())} +0000"
    monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
    monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)


def test_the_daemon_rolls_out_wave_by_wave_and_the_page_shows_the_waves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fleet(tmp_path, gate={"healthyFor": "20s"})
    t1 = T0 + timedelta(minutes=1)
    change_image(repo, t1, "nginx:1.28")
    _clock(monkeypatch, t1)
    store = GitStore.open(repo.path)
    settings = DaemonSettings(repo.path, listen=None, interval=3600)
    daemon = assemble(store, settings, worker_settings(store, settings))
    worker, status = daemon.worker, daemon.worker.status

    assert worker.run_once() is RunResult.COMMITTED
    assert images(repo) == {"member1": "nginx:1.28", "member2": "nginx:1.27", "member3": "nginx:1.27"}
    page = status_page(status.read(), ready=True)
    assert ">wave</th>" in page
    assert "canary, rest (waiting)" in page
    assert page.count('data-wave="waiting"') == 2

    # healthy reports; the run they start judges the gate and names when it passes
    t2 = t1 + timedelta(seconds=30)
    report(repo, t2)
    _clock(monkeypatch, t2)
    assert worker.run_once() is RunResult.COMMITTED
    due = next_due(store, "HEAD")
    assert due == (t2 + timedelta(seconds=20)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _clock(monkeypatch, t2 + timedelta(seconds=10))
    assert worker.run_once() is None  # nothing new, and not due yet

    # at that time the daemon runs by itself, with no commit to wake it (the reports are still fresh)
    _clock(monkeypatch, t2 + timedelta(seconds=20))
    assert worker.run_once() is RunResult.COMMITTED
    assert images(repo) == dict.fromkeys(CLUSTERS, "nginx:1.28")
    assert rollout_state(repo)["reached"] == ["canary", "rest"]
    assert "(waiting)" not in status_page(status.read(), ready=True)
