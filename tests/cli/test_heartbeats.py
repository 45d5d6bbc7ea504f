"""A status round that only refreshes the clusters' heartbeats starts no rendering (issue 38): the last
reconcile's output stands. Real repositories, the real CLI; time moves through commit times."""

from __future__ import annotations

import os
import subprocess
from datetime import timedelta
from typing import TYPE_CHECKING

from tests.builders import deployment
from tests.cli.test_failover import CLUSTERS, T0, fleet, record, run_at, snapshot
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo


def _reported(tmp_path: Path) -> FleetRepo:
    """The failover fleet with every cluster reporting Ready at T0 + 10 s, reconciled then."""
    repo = fleet(tmp_path, {"web": {}})
    at = T0 + timedelta(seconds=10)
    record(repo, at, *(snapshot(c, at) for c in CLUSTERS))
    assert "committed" in run_at(repo, at, "reconcile").stdout
    return repo


def test_a_heartbeat_only_round_leaves_the_output_standing_without_a_run(tmp_path: Path) -> None:
    repo = _reported(tmp_path)
    reconciled = repo.head()
    beat = T0 + timedelta(seconds=35)
    record(repo, beat, *(snapshot(c, beat) for c in CLUSTERS))
    done = run_at(repo, beat, "reconcile")
    assert "nothing reconcile reads changed" in done.stdout, done.stdout + done.stderr
    assert repo.head() == reconciled
    repo.cli("verify")

    # a heartbeat that also says something is a change: member2 not ready
    changed = T0 + timedelta(seconds=60)
    record(repo, changed, snapshot("member2", changed, ready="False"))
    assert "committed" in run_at(repo, changed, "reconcile").stdout
    assert repo.head() != reconciled


def test_a_heartbeat_after_a_run_that_saw_it_stale_is_a_change(tmp_path: Path) -> None:
    repo = _reported(tmp_path)
    # a user commit 60 s later: its run judges the heartbeats of T0 + 10 s stale (the grace period is 40 s)
    later = T0 + timedelta(seconds=70)
    repo.write("apps/web.yaml", deployment("web", replicas=9))
    git(repo.path, "add", "-A")
    stamp = f"{int(later.timestamp())} +0000"
    git_env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(
        ["git", "commit", "-qm", "web: 9"], cwd=repo.path, env={**os.environ, **git_env}, check=True
    )
    assert "committed" in run_at(repo, later, "reconcile").stdout
    beat = T0 + timedelta(seconds=75)
    record(repo, beat, *(snapshot(c, beat) for c in CLUSTERS))
    done = run_at(repo, beat, "reconcile")
    assert "nothing reconcile reads changed" not in done.stdout, "fresh again after a run that saw them stale"
