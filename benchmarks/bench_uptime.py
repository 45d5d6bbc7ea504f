"""The watch daemon over many runs: resident memory, open descriptors, threads and Prometheus series.

``python -m benchmarks.bench_uptime [--runs N] [--fleet example|M]``

A bare remote holds the fleet; ``gitops-karmada watch --remote origin`` runs on a bare clone of it with a
0.1 s poll interval and its HTTP endpoints on a free loopback port. Each round commits a one-template change
on the remote (``bench_watch.user_push``) and waits for its reconcile commit. After runs 100, 500, 1000, …
and N the daemon's RSS (``/proc/PID/status`` VmRSS), open descriptors (``/proc/PID/fd``), threads and the
number of series on ``/metrics`` are printed; the issue asks for RSS after N within 1.2× of RSS after 100.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.bench_incremental import build
from benchmarks.bench_watch import EXAMPLE_TEMPLATE, M_TEMPLATE, daemon_clone, user_push, wait_reconciled
from benchmarks.run import GIT_ENV

MARKS = (100, 500, 1000, 1500, 2000, 5000)


def _status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {key}")


def _series(url: str) -> int:
    with urllib.request.urlopen(url + "/metrics", timeout=30) as response:
        text = response.read().decode()
    return sum(1 for line in text.splitlines() if line and not line.startswith("#"))


def _listening(log: Path) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"serving (http://127\.0\.0\.1:\d+)", log.read_text())
        if found:
            return found.group(1)
        time.sleep(0.1)
    raise RuntimeError("the daemon did not start:\n" + log.read_text())


def measure(runs: int, fleet: str) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-uptime-") as tmp:
        work = Path(tmp)
        remote, _ = build(work, fleet, 5000, 100, 50)
        clone = daemon_clone(remote, work)
        log = work / "daemon.log"
        # every run pushed at once (no --push-interval): runs, not pushes, are measured
        command = [sys.executable, "-m", "gitops_karmada", "watch", "--repo", str(clone),
                   "--remote", "origin", "--interval", "0.1", "--push-interval", "0",
                   "--listen", "127.0.0.1:0"]  # fmt: skip
        with log.open("wb") as out:
            daemon = subprocess.Popen(command, stdout=out, stderr=out, env={**os.environ, **GIT_ENV})
        try:
            url = _listening(log)
            template = EXAMPLE_TEMPLATE if fleet == "example" else M_TEMPLATE
            print(f"{'runs':>6} {'RSS MiB':>8} {'fds':>5} {'threads':>7} {'series':>7} {'s/run':>6}")
            started = time.perf_counter()
            for round_ in range(1, runs + 1):
                wait_reconciled(remote, user_push(remote, template, round_))
                if round_ in MARKS or round_ == runs:
                    pid = daemon.pid
                    rss = _status(pid, "VmRSS") / 1024
                    fds = sum(1 for _ in Path(f"/proc/{pid}/fd").iterdir())
                    threads = _status(pid, "Threads")
                    per_run = (time.perf_counter() - started) / round_
                    print(f"{round_:>6} {rss:>8.1f} {fds:>5} {threads:>7} {_series(url):>7} {per_run:>6.2f}",
                          flush=True)  # fmt: skip
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--fleet", choices=("example", "M"), default="example")
    args = parser.parse_args()
    measure(args.runs, args.fleet)


if __name__ == "__main__":
    main()
