"""What the schema check of rendered manifests costs: a first reconcile with ``schemaCheck.enabled`` true
and false, alternating in one run (so machine noise hits both), on fleet M by default.

``python -m benchmarks.bench_schema [--templates N --policies N --clusters N] [--repeat N] [--quick]``

Every run is the real CLI in a new process on its own branch of one bare repository; the "off" branch is
the same commit plus a ``gitops-karmada.yaml`` that turns the check off. Prints each run and the medians,
beside the true floor of the check-on tree (``benchmarks.floor``, measured last in the same run); the
figures go to the history (``benchmarks.history``).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_incremental import build
from benchmarks.floor import BY_FLOOR, TRUE_FLOOR, measure_in_subprocess
from benchmarks.history import Figure, Recorder
from benchmarks.run import GIT_ENV, fleet_arguments


def _with_config(bare: Path, parent: str, content: str) -> str:
    """A commit on top of ``parent`` that adds ``gitops-karmada.yaml`` (plumbing: no work tree)."""
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(bare / "bench-index")}

    def git(*args: str, stdin: str | None = None) -> str:
        done = subprocess.run(["git", *args], cwd=bare, env=env, input=stdin, capture_output=True, text=True)
        done.check_returncode()
        return done.stdout.strip()

    blob = git("hash-object", "-w", "--stdin", stdin=content)
    git("read-tree", parent)
    git("update-index", "--add", "--cacheinfo", f"100644,{blob},gitops-karmada.yaml")
    tree = git("write-tree")
    (bare / "bench-index").unlink()
    return git("commit-tree", tree, "-p", parent, "-m", "schema check off")


def _reconcile(bare: Path, branch: str) -> float:
    env = {**os.environ, **GIT_ENV}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "gitops_karmada", "reconcile", "--repo", str(bare), "--rev", branch],
        env=env,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def main() -> None:
    args = fleet_arguments(__doc__, repeat=2)
    with tempfile.TemporaryDirectory(prefix="bench-schema-") as folder:
        work = Path(folder)
        bare, head = build(work, "M", args.templates, args.policies, args.clusters)
        off = _with_config(bare, head, "schemaCheck: {enabled: false}\n")
        seconds: dict[str, list[float]] = {"on": [], "off": []}
        for run in range(args.repeat):
            for mode, commit in (("on", head), ("off", off)):
                branch = f"bench-{mode}-{run}"
                subprocess.run(["git", "update-ref", f"refs/heads/{branch}", commit], cwd=bare, check=True)
                seconds[mode].append(_reconcile(bare, branch))
                print(f"  first reconcile, check {mode}: {seconds[mode][-1]:.2f} s", flush=True)
        # last, in a process of its own: the true floor of the tree the check-on runs wrote
        floor = min(measure_in_subprocess(bare, "bench-on-0", repeat=args.repeat))
    on, off_median = statistics.median(seconds["on"]), statistics.median(seconds["off"])
    recorder = Recorder.start("bench_schema")
    print(
        f"{args.templates} templates x {args.clusters} clusters: check on {on:.2f} s "
        f"({on / floor:.2f} × the true floor, {floor:.2f} s), off {off_median:.2f} s "
        f"({off_median / floor:.2f} ×), cost {on - off_median:.2f} s ({(on / off_median - 1) * 100:.0f} %) "
        f"(commit {recorder.commit}, load {recorder.load:g} at the start)\n"
    )
    figures = [
        Figure.of("first reconcile, schema check on", seconds["on"]),
        Figure.of("first reconcile, schema check off", seconds["off"]),
        Figure(TRUE_FLOOR, floor),
        Figure.of(f"first reconcile, schema check on {BY_FLOOR}", [s / floor for s in seconds["on"]], "×"),
    ]
    print(recorder.remember(f"M {args.templates}x{args.policies}x{args.clusters}", figures))


if __name__ == "__main__":
    main()
