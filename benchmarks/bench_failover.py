"""What failover costs: one-template reconciles with the Failover gate off and on, with and without status.

``python -m benchmarks.bench_failover [--templates N] [--clusters N] [--repeat N] [--quick]``

On fleet M (``benchmarks.fleet.write_fleet``), every step the real CLI in a subprocess on a bare repository,
measured in the same run so the ratios hold on a noisy machine:

* gate off: a one-template change reconciled (the incremental engine as before);
* gate on, no status: the same, with ``featureGates.Failover`` (the failover pass reads every binding
  record: Karmada's controllers see every binding);
* gate on, every cluster reporting Ready: the same after one status report per cluster (the snapshots
  fold into the inventory and each record gets its aggregatedStatus);
* ``simulate --cluster-down c00 --after 10m``: the what-if, in memory, stepping through every eviction.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.bench_incremental import Results, build, commit_file
from benchmarks.run import cli, git, timed
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.status_store import record_snapshots
from gitops_karmada.model.status import ClusterStatusSnapshot

TEMPLATE = "apps/team-00/svc-00000.yaml"
CONFIG = "featureGates:\n  Failover: true\nfailover:\n  enableNoExecuteTaintEviction: true\n"


def change_template(bare: Path, parent: str, number: int) -> str:
    """A commit on top of ``parent`` giving svc-00000 the image tag ``1.0.<number>``."""
    content = git(bare, "show", f"{parent}:{TEMPLATE}")
    before = content.split("image: ", 1)[1].split("\n", 1)[0]
    changed = content.replace(before, before.rsplit(":", 1)[0] + f":1.0.{number}") + "\n"
    return commit_file(bare, parent, TEMPLATE, changed, f"image 1.0.{number}")


def report_every_cluster(bare: Path, clusters: int) -> None:
    """One status report per cluster (Ready, no objects), recorded in one status-branch commit."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    snapshots = [
        ClusterStatusSnapshot.model_validate(
            {
                "metadata": {"name": f"c{i:02d}"},
                "collectedAt": now,
                "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}]},
            }
        )
        for i in range(clusters)
    ]
    record_snapshots(GitStore.open(bare), "gitops-karmada-status", snapshots, "every cluster reports Ready")


def measure(templates: int, policies: int, clusters: int, repeat: int, work: Path) -> Results:
    results = Results()
    bare, source = build(work, "M", templates, policies, clusters)
    repo = ["--repo", str(bare)]
    timed(cli("reconcile", *repo), work)
    number = 1
    for _ in range(repeat):
        git(
            bare,
            "update-ref",
            "refs/heads/main",
            change_template(bare, git(bare, "rev-parse", "HEAD"), number),
        )
        number += 1
        results.record("gate off: one template changed, reconcile", timed(cli("reconcile", *repo), work))
    head = git(bare, "rev-parse", "HEAD")
    git(
        bare,
        "update-ref",
        "refs/heads/main",
        commit_file(bare, head, "gitops-karmada.yaml", CONFIG, "failover"),
    )
    results.record("turning the gate on: every template redone", timed(cli("reconcile", *repo), work))
    for _ in range(repeat):
        git(
            bare,
            "update-ref",
            "refs/heads/main",
            change_template(bare, git(bare, "rev-parse", "HEAD"), number),
        )
        number += 1
        results.record("gate on, no status: one template changed", timed(cli("reconcile", *repo), work))
    report_every_cluster(bare, clusters)
    results.record("first status report of every cluster: reconcile", timed(cli("reconcile", *repo), work))
    for _ in range(repeat):
        git(
            bare,
            "update-ref",
            "refs/heads/main",
            change_template(bare, git(bare, "rev-parse", "HEAD"), number),
        )
        number += 1
        results.record(
            "gate on, clusters reporting: one template changed", timed(cli("reconcile", *repo), work)
        )
    for _ in range(repeat):
        results.record(
            "simulate --cluster-down c00 --after 10m",
            timed(
                cli("simulate", "--cluster-down", "c00", "--after", "10m", "-o", "json", *repo),
                work,
                ok=(0, 1),
            ),
        )
    del source
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--templates", type=int, default=5000)
    parser.add_argument("--policies", type=int, default=2500)
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="500 templates, 250 policies, 10 clusters, 1 run"
    )
    args = parser.parse_args()
    if args.quick:
        args.templates, args.policies, args.clusters, args.repeat = 500, 250, 10, 1
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    try:
        print(
            f"fleet M: {args.templates} Deployments, {args.policies} policies, {args.clusters} clusters; "
            f"{args.repeat} run(s) each",
            file=sys.stderr,
            flush=True,
        )
        results = measure(args.templates, args.policies, args.clusters, args.repeat, work)
        print("| step | median | min | max | peak RSS |\n|---|---:|---:|---:|---:|")
        for step, samples in results.samples.items():
            seconds = [s.seconds for s in samples]
            rss = max(s.peak_rss_mb for s in samples)
            median, low, high = statistics.median(seconds), min(seconds), max(seconds)
            print(f"| {step} | {median:.2f} s | {low:.2f} s | {high:.2f} s | {rss:.0f} MB |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
