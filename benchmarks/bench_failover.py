"""What failover costs: one-template reconciles with the Failover gate off and on, with and without status.

``python -m benchmarks.bench_failover [--templates N] [--clusters N] [--repeat N] [--quick] [--regional]``

On fleet M (``benchmarks.fleet.write_fleet``; with ``--regional`` fleet MR, each policy choosing the clusters
of one region of three), every step the real CLI in a subprocess on a bare repository, measured in the same
run so the ratios hold on a noisy machine:

* gate off: a one-template change reconciled (the incremental engine as before);
* gate on, no status: the same, with ``featureGates.Failover`` (the failover pass reads every binding
  record: Karmada's controllers see every binding);
* gate on, every cluster reporting Ready: the same after one status report per cluster (the snapshots
  fold into the inventory and each record gets its aggregatedStatus);
* one cluster's Ready condition changing (c00 goes NotReady, comes back, goes again; one status commit
  each): what it redoes is the templates c00 can hold (every one in fleet M, about a third in MR);
* ``simulate --cluster-down c00 --after 10m``: the what-if, in memory, stepping through every eviction
  (``--after 2m`` with ``--quick``, which must keep ``python -m benchmarks --quick`` under two minutes).

The first reconcile is given beside the true floor of its tree (``benchmarks.floor``), measured last; every
figure goes to the history (``benchmarks.history``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.bench_incremental import build, commit_file
from benchmarks.history import Recorder
from benchmarks.run import Results, cli, figures, fleet_arguments, git, table, timed
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.status_store import record_snapshots
from gitops_karmada.model.status import ClusterStatusSnapshot

if TYPE_CHECKING:
    from collections.abc import Sequence

TEMPLATE = "apps/team-00/svc-00000.yaml"
FIRST_RUN = "first reconcile, gate off (everything rendered and committed)"
NOT_READY = "one cluster's Ready condition changes (c00): reconcile"
CONFIG = "featureGates:\n  Failover: true\nfailover:\n  enableNoExecuteTaintEviction: true\n"


def change_template(bare: Path, parent: str, number: int) -> str:
    """A commit on top of ``parent`` giving svc-00000 the image tag ``1.0.<number>``."""
    content = git(bare, "show", f"{parent}:{TEMPLATE}")
    before = content.split("image: ", 1)[1].split("\n", 1)[0]
    changed = content.replace(before, before.rsplit(":", 1)[0] + f":1.0.{number}") + "\n"
    return commit_file(bare, parent, TEMPLATE, changed, f"image 1.0.{number}")


def report(bare: Path, clusters: Sequence[str], *, ready: bool = True) -> None:
    """One status report per cluster of ``clusters`` (Ready or not, no objects), in one status-branch
    commit."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    condition = {"type": "Ready", "status": "True", "reason": "ClusterReady"}
    if not ready:
        condition = {"type": "Ready", "status": "False", "reason": "ClusterNotReachable"}
    snapshots = [
        ClusterStatusSnapshot.model_validate(
            {"metadata": {"name": name}, "collectedAt": now, "status": {"conditions": [condition]}}
        )
        for name in clusters
    ]
    message = f"{', '.join(clusters[:3])}{' …' if len(clusters) > 3 else ''} report(s) Ready: {ready}"
    record_snapshots(GitStore.open(bare), "gitops-karmada-status", snapshots, message)


def measure(
    templates: int,
    policies: int,
    clusters: int,
    repeat: int,
    work: Path,
    after: str = "10m",
    fleet: str = "M",
) -> Results:
    results = Results()
    bare, _ = build(work, fleet, templates, policies, clusters)
    repo = ["--repo", str(bare)]
    results.record(FIRST_RUN, timed(cli("reconcile", *repo), work))
    first = git(bare, "rev-parse", "HEAD")
    changes = iter(range(1, 1_000_000))

    def one_template_changed(step: str) -> None:
        for _ in range(repeat):
            head = git(bare, "rev-parse", "HEAD")
            git(bare, "update-ref", "refs/heads/main", change_template(bare, head, next(changes)))
            results.record(step, timed(cli("reconcile", *repo), work))

    one_template_changed("gate off: one template changed, reconcile")
    head = git(bare, "rev-parse", "HEAD")
    git(
        bare,
        "update-ref",
        "refs/heads/main",
        commit_file(bare, head, "gitops-karmada.yaml", CONFIG, "failover"),
    )
    results.record("turning the gate on: every template redone", timed(cli("reconcile", *repo), work))
    one_template_changed("gate on, no status: one template changed")
    report(bare, [f"c{i:02d}" for i in range(clusters)])
    results.record("first status report of every cluster: reconcile", timed(cli("reconcile", *repo), work))
    one_template_changed("gate on, clusters reporting: one template changed")
    for turn in range(repeat):  # c00 goes NotReady, comes back, goes again: one cluster's status each time
        report(bare, ["c00"], ready=bool(turn % 2))
        results.record(NOT_READY, timed(cli("reconcile", *repo), work))
    simulate = cli("simulate", "--cluster-down", "c00", "--after", after, "-o", "json", *repo)
    for _ in range(repeat):
        results.record(f"simulate --cluster-down c00 --after {after}", timed(simulate, work, ok=(0, 1)))
    results.floors(bare, first, repeat)  # last: see bench_incremental.measure
    return results


def main() -> None:
    args = fleet_arguments(__doc__, regional=True)
    fleet = "MR" if args.regional else "M"
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    recorder = Recorder.start("bench_failover")
    try:
        print(
            f"fleet {fleet}: {args.templates} Deployments, {args.policies} policies, "
            f"{args.clusters} clusters; {args.repeat} run(s) each",
            file=sys.stderr,
            flush=True,
        )
        after = "2m" if args.quick else "10m"
        results = measure(args.templates, args.policies, args.clusters, args.repeat, work, after, fleet)
        print(f"Commit {recorder.commit}, load {recorder.load:g} at the start.\n")
        print(table(results) + "\n")
        size = f"{fleet} {args.templates}x{args.policies}x{args.clusters}"
        print(recorder.remember(size, figures(results, FIRST_RUN)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
