"""The watch daemon's latency: a user push to the remote → the reconcile commit of it on the remote.

``python -m benchmarks.bench_watch [--fleet example|M|both] [--pushes N] [--quick] [--backlog SECONDS]``

A bare remote holds the fleet; ``gitops-karmada watch --remote origin`` runs on a bare clone of it (as it
would in a management cluster) with a 0.1 s poll interval. Each round commits a one-template change on the
remote tip (an annotation, so the template's output really changes) and updates the remote branch, then
polls the remote until its tip is a reconcile commit whose ``Source-Commit`` is that change. Reported:
p50, p95 and max over ``--pushes`` rounds, and the same after a burst of 5 pushes (the newest counts).
The poll interval bounds the detection delay (≤ 0.1 s); a webhook removes it. The first reconcile after
start is given beside the true floor of the tree it wrote (``benchmarks.floor``, measured once the daemon has
stopped); every figure goes to the history (``benchmarks.history``).

``--backlog SECONDS`` measures the same pushes again while the daemon has other work: every member cluster
reports a status snapshot (a fresh heartbeat) on the remote's status branch every SECONDS, each report a
reason for a run, as collectors on a short interval would make. A run made for reports alone stops when a
user commit reaches the remote (the daemon asks the remote every poll interval while it runs), so a push
waits for that run's next checkpoint, not for its end; the daemon then reconciles the newest fleet and
status tips together, so a user commit never queues behind older reports.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.bench_incremental import build, commit_file
from benchmarks.floor import BY_FLOOR, TRUE_FLOOR, measure_in_subprocess
from benchmarks.history import Figure, Recorder
from benchmarks.run import GIT_ENV, git
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.status_store import record_snapshots
from gitops_karmada.core.codecs.serialize import dump_yaml_documents, load_yaml_documents
from gitops_karmada.model.status import ClusterStatusSnapshot

if TYPE_CHECKING:
    from collections.abc import Callable

EXAMPLE_TEMPLATE = "apps/shop/frontend.yaml"
M_TEMPLATE = "apps/team-00/svc-00000.yaml"
BURST = 5
TIMEOUT = 600.0


def daemon_clone(remote: Path, work: Path) -> Path:
    """A bare clone whose main branch tracks the remote's, as remote mode requires (one per remote, so
    ``--fleet both`` measures each fleet on its own clone)."""
    clone = work / f"{remote.stem}-daemon.git"
    git(work, "clone", "-q", "--bare", str(remote), str(clone))
    git(clone, "config", "branch.main.remote", "origin")
    git(clone, "config", "branch.main.merge", "refs/heads/main")
    return clone


def trailer_of(remote: Path, key: str) -> str:
    """The ``key`` trailer of the remote branch's tip (the reconcile commit's Source- or Status-Commit)."""
    return git(remote, "log", "-1", f"--format=%(trailers:key={key},valueonly)", "refs/heads/main")


def wait_reconciled(
    remote: Path, commit: str, key: str = "Source-Commit", until: Callable[[str], bool] | None = None
) -> float:
    """Poll until the remote's tip is a reconcile commit naming ``commit`` in its ``key`` trailer (or, with
    ``until``, a trailer value it accepts)."""
    start = time.perf_counter()
    accepts = until or commit.__eq__
    while not accepts(trailer_of(remote, key)):
        if time.perf_counter() - start > TIMEOUT:
            raise RuntimeError(f"{key} {commit[:12] or '(any)'} was not reconciled within {TIMEOUT:.0f} s")
        time.sleep(0.01)
    return time.perf_counter()


def user_push(remote: Path, path: str, round_: int) -> str:
    """Commit an annotation change of ``path`` on the remote tip and move the remote branch to it."""
    parent = git(remote, "rev-parse", "refs/heads/main")
    documents = [d.body for d in load_yaml_documents(git(remote, "show", f"{parent}:{path}").encode())]
    first = documents[0]
    assert isinstance(first, dict)
    first["metadata"].setdefault("annotations", {})["bench.gitops-karmada.io/round"] = str(round_)
    sha = commit_file(remote, parent, path, dump_yaml_documents(documents), f"round {round_}")
    git(remote, "update-ref", "refs/heads/main", sha, parent)
    return sha


class StatusChurn:
    """Every cluster reports a fresh heartbeat on the remote's status branch every ``interval`` seconds."""

    def __init__(self, remote: Path, interval: float) -> None:
        self.store = GitStore.open(remote)
        self.interval = interval
        self.clusters = self._clusters(remote)
        self.reports = 0
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="status-churn", daemon=True)

    @staticmethod
    def _clusters(remote: Path) -> list[str]:
        listed = subprocess.run(
            [sys.executable, "-m", "gitops_karmada", "--log-level", "error", "get", "clusters", "-o", "name"],
            cwd=remote,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        return [line.partition("/")[2] for line in listed]

    def report(self) -> str | None:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        snapshots = [
            ClusterStatusSnapshot.model_validate(
                {
                    "apiVersion": "status.gitops-karmada.io/v1alpha1",
                    "kind": "ClusterStatusSnapshot",
                    "metadata": {"name": cluster},
                    "collectedAt": now,
                    "status": {
                        "conditions": [
                            {
                                "type": "Ready",
                                "status": "True",
                                "reason": "ClusterReady",
                                "lastTransitionTime": "2026-01-01T00:00:00Z",
                            }
                        ]
                    },
                }
            )
            for cluster in self.clusters
        ]
        commit = record_snapshots(self.store, "gitops-karmada-status", snapshots, f"bench: heartbeat {now}")
        self.reports += commit is not None
        return commit

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.report()
            except Exception as err:  # a lost report is part of the result, not the end of the churn
                self.failures += 1
                print(f"status report failed: {err}", file=sys.stderr, flush=True)

    def __enter__(self) -> StatusChurn:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def pushes_latency(remote: Path, path: str, pushes: int, first_round: int) -> list[float]:
    latencies: list[float] = []
    for round_ in range(first_round, first_round + pushes):
        sha = user_push(remote, path, round_)
        pushed = time.perf_counter()
        latencies.append(wait_reconciled(remote, sha) - pushed)
    return latencies


def row(label: str, values: list[float]) -> str:
    return (
        f"| {label} | {statistics.median(values):.2f} s | {percentile(values, 0.95):.2f} s "
        f"| {max(values):.2f} s | {len(values)} |"
    )


PREEMPTED_LOG = "a user commit arrived during a status run"
"""What the daemon logs when a run for status reports alone stops for a user commit."""


COMMITTED_RUN = re.compile(r"^(?:\S+ )?reconciled \S+: committed .*\bdurationSeconds=([0-9.]+)", re.MULTILINE)
"""The daemon's line for a run that committed, after its timestamp if the log has one; ``durationSeconds``
runs from after the fetch to after the push."""


def committed_run_seconds(log: str) -> list[float]:
    return [float(seconds) for seconds in COMMITTED_RUN.findall(log)]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure(
    fleet: str, pushes: int, work: Path, size: tuple[int, int, int], backlog: float | None = None
) -> tuple[list[str], list[Figure]]:
    remote, _ = build(work, fleet, *size)
    path = EXAMPLE_TEMPLATE if fleet == "example" else M_TEMPLATE
    clone = daemon_clone(remote, work)
    command = [
        *(sys.executable, "-m", "gitops_karmada", "--log-level", "info", "watch", "--repo", str(clone)),
        # every run pushed at once (no --push-interval): the figures are each push's reconcile latency
        *("--remote", "origin", "--interval", "0.1", "--push-interval", "0", "--listen", "off"),
    ]
    log = (work / f"{fleet}-daemon.log").open("wb")
    daemon = subprocess.Popen(command, stdout=log, stderr=log, env={**os.environ, **GIT_ENV})
    try:
        started = time.perf_counter()
        wait_reconciled(remote, git(remote, "rev-parse", "refs/heads/main"))
        first = time.perf_counter() - started
        first_commit = git(remote, "rev-parse", "refs/heads/main")
        single = pushes_latency(remote, path, pushes, 0)
        churned: list[float] = []
        reports = 0
        if backlog is not None:
            churn = StatusChurn(remote, backlog)
            with churn:
                # the clusters' first reports change the inventory (every template once): not what is
                # measured. The reports go on meanwhile: a heartbeat older than the grace period (40 s)
                # when the next user commit comes would turn every cluster Ready=Unknown (and back)
                wait_reconciled(remote, "", "Status-Commit", until=lambda found: bool(found))
                churned = pushes_latency(remote, path, pushes, 500)
            reports = churn.reports
            print("latencies with reports: " + " ".join(f"{v:.2f}" for v in churned), file=sys.stderr)
            if churn.failures:
                print(f"{churn.failures} status report(s) failed", file=sys.stderr, flush=True)
        burst: list[float] = []
        for round_ in range(max(1, pushes // BURST)):
            for i in range(BURST):
                sha = user_push(remote, path, 1000 + round_ * BURST + i)
            pushed = time.perf_counter()
            burst.append(wait_reconciled(remote, sha) - pushed)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=TIMEOUT)
        log.close()
    if daemon.returncode != 0:
        raise RuntimeError(f"the daemon exited {daemon.returncode}: see {work}/{fleet}-daemon.log")
    daemon_log = (work / f"{fleet}-daemon.log").read_text(errors="replace")
    gave_way = daemon_log.count(PREEMPTED_LOG)
    # the runs that committed, in order: the first reconcile, then one per push of the single-push rounds
    own_work = committed_run_seconds(daemon_log)[1 : 1 + pushes]
    # after the daemon, in a process of its own: the true floor of the tree the first reconcile wrote
    tries = measure_in_subprocess(remote, first_commit)
    floor = min(tries)
    rows = [
        f"| {fleet}: first reconcile after start ({first / floor:.2f} × the true floor) | {first:.2f} s "
        "| | | 1 |",
        f"| {fleet}: {TRUE_FLOOR} (the fastest try) | {floor:.2f} s | | | {len(tries)} |",
        row(f"{fleet}: one push → its reconcile commit on the remote", single),
        row(f"{fleet}: the daemon's own work per push (reconcile, commit, push; not the fetch)", own_work),
        row(f"{fleet}: burst of {BURST} pushes → the newest reconciled", burst),
    ]
    if churned:
        label = (
            f"{fleet}: one push, with every cluster reporting every {backlog:g} s "
            f"({reports} reports; {gave_way} status runs gave way to a push)"
        )
        rows.append(row(label, churned))
    figures = [
        Figure("first reconcile after start", first),
        Figure(TRUE_FLOOR, floor),
        Figure(f"first reconcile after start {BY_FLOOR}", first / floor, "×"),
        *latency_figures("one push → its reconcile commit on the remote", single),
        *latency_figures("the daemon's own work per push", own_work),
        *latency_figures(f"burst of {BURST} pushes → the newest reconciled", burst),
        *latency_figures(f"one push, every cluster reporting every {backlog or 0:g} s", churned),
    ]
    return rows, figures


def latency_figures(step: str, values: list[float]) -> list[Figure]:
    """p50 (with the spread of all the values) and p95, for the history; none without values."""
    if not values:
        return []
    return [Figure.of(f"{step}: p50", values), Figure(f"{step}: p95", percentile(values, 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fleet", choices=["example", "M", "both"], default="both")
    parser.add_argument("--pushes", type=int, default=20)
    parser.add_argument(
        "--quick", action="store_true", help="fleet M at 500 templates x 10 clusters, 5 pushes"
    )
    parser.add_argument(
        "--backlog",
        type=float,
        metavar="SECONDS",
        help="also measure the pushes while every cluster reports a status heartbeat every SECONDS",
    )
    args = parser.parse_args()
    size = (500, 250, 10) if args.quick else (5000, 2500, 50)
    pushes = 5 if args.quick else args.pushes
    fleets = ["example", "M"] if args.fleet == "both" else [args.fleet]
    rows = ["| step | p50 | p95 | max | runs |", "|---|---:|---:|---:|---:|"]
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-watch-"))
    recorder = Recorder.start("bench_watch")
    remembered = []
    try:
        for fleet in fleets:
            print(f"fleet {fleet}: {pushes} pushes", file=sys.stderr, flush=True)
            fleet_rows, figures = measure(fleet, pushes, work, size, args.backlog)
            rows += fleet_rows
            described = fleet if fleet == "example" else f"{fleet} {'x'.join(map(str, size))}"
            remembered.append(recorder.remember(f"{described}, {pushes} pushes", figures))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"Commit {recorder.commit}, load {recorder.load:g} at the start.\n")
    print("\n".join(rows) + "\n")
    print("\n\n".join(remembered))


if __name__ == "__main__":
    main()
