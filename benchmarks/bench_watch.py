"""The watch daemon's latency: a user push to the remote → the reconcile commit of it on the remote.

``python -m benchmarks.bench_watch [--fleet example|M|both] [--pushes N] [--quick]``

A bare remote holds the fleet; ``gitops-karmada watch --remote origin`` runs on a bare clone of it (as it
would in a management cluster) with a 0.1 s poll interval. Each round commits a one-template change on the
remote tip (an annotation, so the template's output really changes) and updates the remote branch, then
polls the remote until its tip is a reconcile commit whose ``Source-Commit`` is that change. Reported:
p50, p95 and max over ``--pushes`` rounds, and the same after a burst of 5 pushes (the newest counts).
The poll interval bounds the detection delay (≤ 0.1 s); a webhook removes it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_incremental import build, commit_file
from benchmarks.run import GIT_ENV, git
from gitops_karmada.core.serialize import dump_yaml_documents, load_yaml_documents

EXAMPLE_TEMPLATE = "apps/shop/frontend.yaml"
M_TEMPLATE = "apps/team-00/svc-00000.yaml"
BURST = 5
TIMEOUT = 600.0


def daemon_clone(remote: Path, work: Path) -> Path:
    """A bare clone whose main branch tracks the remote's, as remote mode requires."""
    clone = work / "daemon.git"
    git(work, "clone", "-q", "--bare", str(remote), str(clone))
    git(clone, "config", "branch.main.remote", "origin")
    git(clone, "config", "branch.main.merge", "refs/heads/main")
    return clone


def source_of(remote: Path) -> str:
    return git(remote, "log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", "refs/heads/main")


def wait_reconciled(remote: Path, source: str) -> float:
    start = time.perf_counter()
    while source_of(remote) != source:
        if time.perf_counter() - start > TIMEOUT:
            raise RuntimeError(f"{source[:12]} was not reconciled within {TIMEOUT:.0f} s")
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


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure(fleet: str, pushes: int, work: Path, size: tuple[int, int, int]) -> list[str]:
    remote, _ = build(work, fleet, *size)
    path = EXAMPLE_TEMPLATE if fleet == "example" else M_TEMPLATE
    clone = daemon_clone(remote, work)
    command = [
        *(sys.executable, "-m", "gitops_karmada", "--log-level", "warning", "watch", "--repo", str(clone)),
        *("--remote", "origin", "--interval", "0.1", "--listen", "off"),
    ]
    log = (work / f"{fleet}-daemon.log").open("wb")
    daemon = subprocess.Popen(command, stdout=log, stderr=log, env={**os.environ, **GIT_ENV})
    try:
        started = time.perf_counter()
        wait_reconciled(remote, git(remote, "rev-parse", "refs/heads/main"))
        first = time.perf_counter() - started
        single: list[float] = []
        for round_ in range(pushes):
            sha = user_push(remote, path, round_)
            pushed = time.perf_counter()
            single.append(wait_reconciled(remote, sha) - pushed)
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
    return [
        f"| {fleet}: first reconcile after start | {first:.2f} s | | | 1 |",
        f"| {fleet}: one push → its reconcile commit on the remote | {statistics.median(single):.2f} s "
        f"| {percentile(single, 0.95):.2f} s | {max(single):.2f} s | {len(single)} |",
        f"| {fleet}: burst of {BURST} pushes → the newest reconciled | {statistics.median(burst):.2f} s "
        f"| {percentile(burst, 0.95):.2f} s | {max(burst):.2f} s | {len(burst)} |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fleet", choices=["example", "M", "both"], default="both")
    parser.add_argument("--pushes", type=int, default=20)
    parser.add_argument(
        "--quick", action="store_true", help="fleet M at 500 templates x 10 clusters, 5 pushes"
    )
    args = parser.parse_args()
    size = (500, 250, 10) if args.quick else (5000, 2500, 50)
    pushes = 5 if args.quick else args.pushes
    fleets = ["example", "M"] if args.fleet == "both" else [args.fleet]
    rows = ["| step | p50 | p95 | max | runs |", "|---|---:|---:|---:|---:|"]
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-watch-"))
    try:
        for fleet in fleets:
            print(f"fleet {fleet}: {pushes} pushes", file=sys.stderr, flush=True)
            rows += measure(fleet, pushes, work, size)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
