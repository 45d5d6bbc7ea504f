"""Issue 39: the daemon's Prometheus series stay bounded as the fleet grows. No family is labelled per
workload; every label takes values from a fixed set (results, operations, queues) or from the member
clusters and resource kinds, so a fleet that gains templates gains no series."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.builders import configmap
from tests.cli.watch_harness import Daemon, Remote, wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def _series(daemon: Daemon) -> set[str]:
    _, text = daemon.get("/metrics")
    return {line.rpartition(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def test_a_fleet_that_gains_templates_gains_no_series(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        before = _series(daemon)
        user = remote.user
        git(user.path, "pull", "-q", "--ff-only")
        for batch in range(3):
            for index in range(10):
                name = f"config-{batch}-{index}"
                user.write(
                    f"apps/{name}.yaml", configmap(name, "shop")
                )  # placed by the fleet's ConfigMap policy
            user.commit(f"10 more templates ({batch})")
            git(user.path, "push", "-q", "origin", "main")
            wait_for(lambda batch=batch: daemon.runs() == batch + 2, f"the run of batch {batch}")  # type: ignore[misc]
            git(user.path, "pull", "-q", "--ff-only")
        assert daemon.runs("committed") == 4, daemon.log()
        assert _series(daemon) == before
