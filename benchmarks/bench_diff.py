"""Time ``gitops-karmada diff`` for a one-policy change: ``python -m benchmarks.bench_diff [--quick]``.

Builds the synthetic fleet (``benchmarks.fleet``, default 5,000 Deployments x 50 clusters) in a bare
repository, reconciles it (commit A: inputs plus rendered output, as a fleet's main branch is), commits one
changed policy on top (commit B: a Duplicated policy becomes a Divided one with static weights, so its
Deployments are re-placed), and times ``diff --base A --head B -o markdown`` (median of ``--repeat``). The
figures go to the history (``benchmarks.history``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from benchmarks.fleet import write_fleet
from benchmarks.history import Figure, Recorder
from benchmarks.run import GIT_ENV, Sample, cli, fleet_arguments, git, timed
from gitops_karmada.core.codecs.serialize import dump_yaml_documents

POLICY = "apps/team-00/pp-00000.yaml"


def build(work: Path, templates: int, policies: int, clusters: int) -> tuple[Path, str, str]:
    """A bare fleet repository; (path, reconciled main, main plus one changed policy)."""
    source = work / "source"
    write_fleet(source, templates, policies, clusters)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "fleet")
    bare = work / "fleet.git"
    git(work, "clone", "-q", "--bare", str(source), str(bare))
    subprocess.run(
        cli("reconcile", "--repo", str(bare)),
        cwd=work,
        env={**os.environ, **GIT_ENV},
        stdout=subprocess.DEVNULL,
        check=True,
    )
    base = git(bare, "rev-parse", "main")
    return bare, base, one_policy_change(bare, base, clusters)


def one_policy_change(bare: Path, parent: str, clusters: int) -> str:
    """A commit on ``parent`` where pp-00000 divides its Deployments 2:1:1... over the clusters."""
    policy = yaml.safe_load(git(bare, "show", f"{parent}:{POLICY}"))
    policy["spec"]["placement"]["replicaScheduling"] = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": [f"c{i:02d}"]}, "weight": 2 if i == 0 else 1}
                for i in range(clusters)
            ]
        },
    }
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=bare,
        input=dump_yaml_documents([policy]),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    index = bare / "bench-index"
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "read-tree", parent], cwd=bare, env=env, check=True)
    subprocess.run(
        ["git", "update-index", "--cacheinfo", f"100644,{blob},{POLICY}"], cwd=bare, env=env, check=True
    )
    tree = subprocess.run(
        ["git", "write-tree"], cwd=bare, env=env, capture_output=True, text=True, check=True
    )
    index.unlink()
    return git(bare, "commit-tree", tree.stdout.strip(), "-p", parent, "-m", "pp-00000: weighted division")


def main() -> None:
    args = fleet_arguments(__doc__)
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-diff-"))
    try:
        print(
            f"fleet: {args.templates} Deployments, {args.policies} policies, {args.clusters} clusters; "
            f"building and reconciling...",
            file=sys.stderr,
        )
        bare, base, head = build(work, args.templates, args.policies, args.clusters)
        samples: list[Sample] = []
        for _ in range(args.repeat):
            sample = timed(
                cli("diff", "--repo", str(bare), "--base", base, "--head", head, "-o", "markdown"),
                work,
                ok=(0, 1),
            )
            samples.append(sample)
            print(f"  diff: {sample.seconds:.2f} s, {sample.peak_rss_mb:.0f} MB", file=sys.stderr)
        seconds = [s.seconds for s in samples]
        recorder = Recorder.start("bench_diff")
        print(f"Commit {recorder.commit}, load {recorder.load:g} at the start.\n")
        print("| step | median | min | max | peak RSS |\n|---|---:|---:|---:|---:|")
        print(
            f"| diff -o markdown, one policy changed ({args.templates:,} x {args.clusters}) "
            f"| {statistics.median(seconds):.2f} s | {min(seconds):.2f} s | {max(seconds):.2f} s "
            f"| {max(s.peak_rss_mb for s in samples):.0f} MB |\n"
        )
        step = "diff -o markdown, one policy changed"
        figures = [
            Figure.of(step, seconds),
            Figure(f"{step}: peak RSS", max(s.peak_rss_mb for s in samples), "MB"),
        ]
        print(recorder.remember(f"M {args.templates}x{args.policies}x{args.clusters}", figures))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
