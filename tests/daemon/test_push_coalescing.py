"""Issue 36: the daemon pushes to its remote at most once per ``--push-interval``. A run sooner commits and
holds its push; when the interval is over the branch is pushed with the newest commit, with no further event,
and ``gitops_karmada_pushes_held_back_total`` counts the runs held back."""

from __future__ import annotations

import itertools
import json
import math
import time
from typing import TYPE_CHECKING

from gitops_karmada.daemon.push_gate import PushGate
from tests.cli.test_watch import SECRET, _signed
from tests.cli.watch_harness import Daemon, Remote, clone, wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

INTERVAL = 2.0


def _count_pushes(bare: Path, log: Path) -> None:
    """A post-receive hook on the remote: one line (time, new commit) per push that moves main (a user's or
    the daemon's)."""
    hook = bare / "hooks" / "post-receive"
    hook.write_text(
        "#!/bin/sh\n"
        "while read old new ref; do\n"
        f'  if [ "$ref" = refs/heads/main ]; then echo "$(date +%s.%N) $new" >> {log}; fi\n'
        "done\n"
    )
    hook.chmod(0o755)


def _pushes(log: Path) -> list[tuple[float, str]]:
    if not log.exists():
        return []
    return [(float(when), sha) for when, sha in (line.split() for line in log.read_text().splitlines())]


def _counter(daemon: Daemon, name: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    _, text = daemon.get("/metrics")
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    raise AssertionError(f"no {name} in /metrics")


def test_a_burst_of_commits_is_pushed_at_most_once_per_interval_and_the_last_one_arrives(
    tmp_path: Path,
) -> None:
    remote = Remote.create(tmp_path)
    log = tmp_path / "pushes.log"
    _count_pushes(remote.bare, log)
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    # no poll: after the last webhook nothing but the held push's own timer can move the remote
    args = ("--remote", "origin", "--interval", "60", "--webhook-secret-file", str(secret))
    with Daemon.start(
        work, *args, "--push-interval", str(INTERVAL), log_path=tmp_path / "daemon.log"
    ) as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        body = json.dumps({"ref": "refs/heads/main"}).encode()
        started = time.time()
        for replicas in range(5, 10):
            remote.push_change(replicas)
            assert daemon.post("/hooks/git", body, _signed(body)) == 202
            time.sleep(0.3)
        last = remote.pushed[-1]
        wait_for(
            lambda: remote.reconciled(last), "the reconcile of the last commit, pushed later", timeout=20
        )
        elapsed = time.time() - started
        # the remote's branch moves before its post-receive hook runs: wait for the hook's line too
        wait_for(lambda: any(sha == remote.tip() for _, sha in _pushes(log)), "the hook's line of that push")

        # the daemon's pushes: those that moved main to a reconcile commit (the users push too)
        pushes = [(when, sha) for when, sha in _pushes(log) if "Source-Commit" in remote.trailers(sha)]
        in_burst = [when for when, _ in pushes if when >= started]
        assert len(in_burst) <= math.ceil(elapsed / INTERVAL) + 1, (pushes, elapsed)
        gaps = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(pushes)]
        assert all(gap >= INTERVAL - 0.2 for gap in gaps), gaps
        assert pushes[-1][1] == remote.tip()
        held = _counter(daemon, "gitops_karmada_pushes_held_back_total")
        assert held >= 1
        assert _counter(daemon, "gitops_karmada_pushes_total") == len(pushes)
        assert any(e["msg"].startswith("push of ") and "held back" in e["msg"] for e in daemon.entries())
        # no user commit was lost: every one is in the remote's history, under the reconcile of the newest
        on_main = set(git(remote.bare, "log", "--format=%H", "refs/heads/main").splitlines())
        assert set(remote.pushed) <= on_main
        assert daemon.terminate() == 0


def test_a_commit_held_when_the_daemon_stops_is_pushed_on_the_way_out(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    args = ("--remote", "origin", "--interval", "60", "--webhook-secret-file", str(secret))
    with Daemon.start(work, *args, "--push-interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile, pushed at once")
        source = remote.push_change(7)
        body = json.dumps({"ref": "refs/heads/main"}).encode()
        assert daemon.post("/hooks/git", body, _signed(body)) == 202
        wait_for(lambda: _counter(daemon, "gitops_karmada_pushes_held_back_total") == 1, "the held run")
        assert not remote.reconciled(source)
        assert daemon.terminate() == 0
        assert remote.reconciled(source)
        assert any(e["msg"] == "stopping: pushed the held commit" for e in daemon.entries())


def test_the_gate_opens_an_interval_after_each_push_and_zero_never_closes_it() -> None:
    now = [100.0]
    gate = PushGate(10.0, clock=lambda: now[0])
    assert gate.wait("origin") == 0.0  # never pushed: at once
    gate.pushed("origin")
    now[0] += 4.0
    assert gate.wait("origin") == 6.0
    assert gate.wait("mirror") == 0.0  # each remote its own
    now[0] += 6.0
    assert gate.wait("origin") == 0.0
    open_gate = PushGate(0.0, clock=lambda: now[0])
    open_gate.pushed("origin")
    assert open_gate.wait("origin") == 0.0
