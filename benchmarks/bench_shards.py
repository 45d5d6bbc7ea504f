"""Issue 36's table: sharded output (``branch-per-cluster``) beside the single tree, on one fleet.

``python -m benchmarks.bench_shards [--templates N --policies N --clusters N] [--repeat N] [--quick]``

The fleet is ``benchmarks.fleet.write_fleet`` (fleet M's shape: half of the workloads Duplicated on every
cluster). Fleet XL, the issue's target, is ``--templates 20000 --policies 10000 --clusters 200`` (about 4
million rendered manifests); the default is fleet M (5,000 × 50, about 250,000), which this machine runs in
minutes. For each mode, on a bare repository, every step is the real CLI in a new process (median of
``--repeat``, peak RSS): the first reconcile, a no-change reconcile, one template changed, one policy
changed; then the true floor of writing the same output (``benchmarks.floor``: each distinct content emitted
and sent once; in the sharded mode one commit per cluster branch), measured in the same run. Then the watch
daemon on a clone of the repository (remote mode, as in a management cluster; ``--daemon-pushes N``, 0 to
leave it out): N one-template pushes, each timed from the push to its reconcile commit on the remote, beside
the daemon's own work per push and its peak RSS. The first push, which loads the whole fleet into the
daemon's memory, is not counted.

Every figure goes to the history (``benchmarks.history``), beside its median and spread on this machine.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_incremental import one_policy_change
from benchmarks.bench_watch import (
    M_TEMPLATE,
    TIMEOUT,
    committed_run_seconds,
    daemon_clone,
    user_push,
    wait_reconciled,
)
from benchmarks.fleet import write_fleet
from benchmarks.floor import TRUE_FLOOR, measure_in_subprocess
from benchmarks.history import Recorder
from benchmarks.run import (
    FIRST_RECONCILE,
    GIT_ENV,
    Results,
    Sample,
    cli,
    figures,
    fleet_arguments,
    git,
    one_template_change,
    table,
    timed,
)

MODES = ("branch-per-cluster", "tree")
DAEMON_PUSH = "watch daemon: one template pushed → its reconcile commit on the remote"
DAEMON_WORK = "watch daemon: its own work per push (reconcile, commit, push; not the fetch)"


def build(work: Path, mode: str, templates: int, policies: int, clusters: int) -> tuple[Path, str]:
    """A bare repository holding the fleet, configured for ``mode``."""
    source = work / f"source-{mode}"
    write_fleet(source, templates, policies, clusters)
    (source / "gitops-karmada.yaml").write_text(
        f"apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\noutput:\n  mode: {mode}\n"
    )
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "fleet")
    bare = work / f"{mode}.git"
    git(work, "clone", "-q", "--bare", str(source), str(bare))
    shutil.rmtree(source)
    return bare, git(bare, "rev-parse", "HEAD")


def daemon_pushes(bare: Path, work: Path, pushes: int, results: Results) -> None:
    """The watch daemon on a clone of ``bare``: ``pushes`` one-template pushes after a first that warms it."""
    clone = daemon_clone(bare, work)
    command = [
        *(sys.executable, "-m", "gitops_karmada", "--log-level", "info", "watch", "--repo", str(clone)),
        *("--remote", "origin", "--interval", "0.1", "--push-interval", "0", "--listen", "off"),
    ]
    log_path = work / f"{bare.stem}-daemon.log"
    peak_mb = 0.0
    with log_path.open("wb") as log:
        daemon = subprocess.Popen(command, stdout=log, stderr=log, env={**os.environ, **GIT_ENV})
        try:
            for round_ in range(pushes + 1):
                sha = user_push(bare, M_TEMPLATE, round_)
                pushed = time.perf_counter()
                latency = wait_reconciled(bare, sha) - pushed
                if round_:
                    results.record(DAEMON_PUSH, Sample(latency, 0))
            status = Path(f"/proc/{daemon.pid}/status").read_text()
            peak_mb = int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM:")).split()[1]) / 1024
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=TIMEOUT)
    if daemon.returncode != 0:
        raise RuntimeError(f"the daemon exited {daemon.returncode}: see {log_path}")
    for seconds in committed_run_seconds(log_path.read_text(errors="replace"))[1 : 1 + pushes]:
        results.record(DAEMON_WORK, Sample(seconds, peak_mb))
    shutil.rmtree(clone, ignore_errors=True)


def measure(
    mode: str, templates: int, policies: int, clusters: int, repeat: int, work: Path, pushes: int
) -> Results:
    results = Results()
    bare, source = build(work, mode, templates, policies, clusters)
    repo = ["--repo", str(bare)]
    reconciled = source
    for _ in range(repeat):
        git(bare, "update-ref", "refs/heads/main", source)
        for branch in git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/clusters/").split():
            git(bare, "update-ref", "-d", branch)
        results.record(FIRST_RECONCILE, timed(cli("reconcile", *repo), work))
        reconciled = git(bare, "rev-parse", "HEAD")
        results.record("no-change reconcile", timed(cli("reconcile", *repo), work))
        git(bare, "update-ref", "refs/heads/main", one_template_change(bare, reconciled))
        results.record("one template changed: reconcile", timed(cli("reconcile", *repo), work))
        after_template = git(bare, "rev-parse", "HEAD")
        git(bare, "update-ref", "refs/heads/main", one_policy_change(bare, after_template))
        results.record("one policy changed: reconcile", timed(cli("reconcile", *repo), work))
    for seconds in measure_in_subprocess(bare, reconciled, repeat=repeat, shards=mode != "tree"):
        results.record(TRUE_FLOOR, Sample(seconds, 0))
    if pushes:
        daemon_pushes(bare, work, pushes, results)
    shutil.rmtree(bare, ignore_errors=True)
    return results


def main() -> None:
    args = fleet_arguments(__doc__, repeat=1, daemon=True)
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    recorder = Recorder.start("bench_shards")
    try:
        for mode in MODES:
            print(
                f"{mode}: {args.templates} Deployments, {args.policies} policies, {args.clusters} clusters; "
                f"{args.repeat} run(s) each",
                file=sys.stderr,
                flush=True,
            )
            results = measure(
                mode, args.templates, args.policies, args.clusters, args.repeat, work, args.daemon_pushes
            )
            print(f"### {mode} (commit {recorder.commit}, load {recorder.load:g} at the start)\n")
            print(table(results) + "\n")
            size = f"{mode} {args.templates}x{args.policies}x{args.clusters}"
            print(recorder.remember(size, figures(results)))
            print(flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
