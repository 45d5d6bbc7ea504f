"""Time validate, render and reconcile on a synthetic fleet: ``python -m benchmarks.run [--quick]``.

Every step runs the real CLI in a subprocess; the table gives the median, min and max wall time over
``--repeat`` runs, each median divided by the true floor of the first reconcile's tree measured last in the
same run (``benchmarks.floor``), and the peak RSS of the process. Every figure goes to the history
(``benchmarks.history``) and is printed beside the history's median and spread on this machine class. The
fleet repository is bare (no work tree), so reconcile times cover reading the commit, rendering and
committing, not checking files out.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.fleet import write_fleet
from benchmarks.floor import BY_FLOOR, LOOSE_FLOOR, TRUE_FLOOR, measure_in_subprocess
from benchmarks.history import Figure, Recorder

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


FIRST_RECONCILE = "first reconcile (everything rendered and committed)"


@dataclass(frozen=True)
class Sample:
    seconds: float
    peak_rss_mb: float


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def timed(args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> Sample:
    """Run ``args``; wall time and peak resident memory of that one process (from wait4).

    An exit code outside ``ok`` raises: a failed command must never pass for a fast one (``diff`` exits 1
    when there are differences, so its callers pass ``ok=(0, 1)``)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        args, cwd=cwd, env={**os.environ, **GIT_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok:
        stderr = process.stderr.read().decode() if process.stderr else ""
        raise RuntimeError(f"{' '.join(args)} exited {process.returncode}: {stderr[-2000:]}")
    if process.stderr:
        process.stderr.close()
    return Sample(elapsed, usage.ru_maxrss / 1024)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gitops_karmada", "--log-level", "warning", *args]


def build_repository(work: Path, templates: int, policies: int, clusters: int) -> tuple[Path, str]:
    source = work / "source"
    write_fleet(source, templates, policies, clusters)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "fleet")
    bare = work / "fleet.git"
    git(work, "clone", "-q", "--bare", str(source), str(bare))
    return bare, git(bare, "rev-parse", "HEAD")


def one_template_change(bare: Path, parent: str) -> str:
    """A commit on top of ``parent`` that changes one Deployment's image (built with plumbing)."""
    path = "apps/team-00/svc-00000.yaml"
    content = git(bare, "show", f"{parent}:{path}").replace(":1.0.0", ":1.0.1") + "\n"
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=bare,
        input=content,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    index = bare / "bench-index"
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "read-tree", parent], cwd=bare, env=env, check=True)
    subprocess.run(
        ["git", "update-index", "--cacheinfo", f"100644,{blob},{path}"], cwd=bare, env=env, check=True
    )
    tree = subprocess.run(
        ["git", "write-tree"], cwd=bare, env=env, capture_output=True, text=True, check=True
    )
    index.unlink()
    return git(bare, "commit-tree", tree.stdout.strip(), "-p", parent, "-m", "bump svc-00000")


def measure(templates: int, policies: int, clusters: int, repeat: int, work: Path) -> Results:
    bare, source = build_repository(work, templates, policies, clusters)
    results = Results()
    record = results.record

    for _ in range(repeat):
        record("validate", timed(cli("validate", "--repo", str(bare)), work))
        record("render (placement table, nothing written)", timed(cli("render", "--repo", str(bare)), work))
        git(bare, "update-ref", "refs/heads/main", source)
        record(FIRST_RECONCILE, timed(cli("reconcile", "--repo", str(bare)), work))
        reconciled = git(bare, "rev-parse", "HEAD")
        record("reconcile: no input change (no commit)", timed(cli("reconcile", "--repo", str(bare)), work))
        git(bare, "update-ref", "refs/heads/main", one_template_change(bare, reconciled))
        record("reconcile: one template changed", timed(cli("reconcile", "--repo", str(bare)), work))
        git(bare, "update-ref", "refs/heads/main", source)
    results.floors(bare, reconciled, repeat)  # last: see bench_incremental.measure
    return results


@dataclass
class Results:
    samples: dict[str, list[Sample]] = field(default_factory=dict)

    def record(self, step: str, sample: Sample) -> None:
        self.samples.setdefault(step, []).append(sample)
        print(f"  {step}: {sample.seconds:.2f} s, {sample.peak_rss_mb:.0f} MB", file=sys.stderr, flush=True)

    def median(self, step: str) -> float | None:
        samples = self.samples.get(step)
        return statistics.median(s.seconds for s in samples) if samples else None

    def floor(self) -> float | None:
        """The true floor: the fastest of its tries (``benchmarks.floor.FLOOR_TRIES``)."""
        samples = self.samples.get(TRUE_FLOOR)
        return min(s.seconds for s in samples) if samples else None

    def floors(self, bare: Path, rev: str, repeat: int, *, loose: bool = False) -> None:
        """The true floor of ``rev`` (and with ``loose``, issue 12's), ``repeat`` tries each (at least
        ``FLOOR_TRIES``), recorded."""
        for seconds in measure_in_subprocess(bare, rev, repeat=repeat):
            self.record(TRUE_FLOOR, Sample(seconds, 0))
        if loose:
            for seconds in measure_in_subprocess(bare, rev, loose=True, repeat=repeat):
                self.record(LOOSE_FLOOR, Sample(seconds, 0))


def table(results: Results) -> str:
    """The steps, each beside the true floor of the same run when there is one (the step's median ÷ the
    floor's fastest try)."""
    floor = results.floor()
    ratio = ["| ÷ true floor "] if floor else []
    lines = [
        "| step | median | min | max " + "".join(ratio) + "| peak RSS |",
        "|---|---:|---:|---:" + ("|---:" if floor else "") + "|---:|",
    ]
    for step, samples in results.samples.items():
        seconds = [s.seconds for s in samples]
        rss = max(s.peak_rss_mb for s in samples)
        median = statistics.median(seconds)
        beside = f"| {median / floor:.2f} × " if floor else ""
        lines.append(
            f"| {step} | {median:.2f} s | {min(seconds):.2f} s | {max(seconds):.2f} s "
            f"{beside}| {f'{rss:.0f} MB' if rss else '–'} |"
        )
    return "\n".join(lines)


def figures(results: Results, first: str = FIRST_RECONCILE) -> list[Figure]:
    """What the history remembers: every step's seconds and peak RSS, and ``first`` ÷ the true floor."""
    out = []
    for step, samples in results.samples.items():
        out.append(Figure.of(step, [s.seconds for s in samples]))
        if any(s.peak_rss_mb for s in samples):
            out.append(Figure(f"{step}: peak RSS", max(s.peak_rss_mb for s in samples), "MB"))
    floor = results.floor()
    if floor and first in results.samples:
        ratios = [s.seconds / floor for s in results.samples[first]]
        out.append(Figure.of(f"{first} {BY_FLOOR}", ratios, "×"))
    return out


def fleet_arguments(
    description: str | None, *, repeat: int = 3, regional: bool = False, daemon: bool = False
) -> argparse.Namespace:
    """The fleet-M benchmarks' command line: the fleet's size, runs per step, and ``--quick``
    (``regional``: and ``--regional``, each policy choosing the clusters of one region; ``daemon``: and
    ``--daemon-pushes``, the watch daemon's one-template pushes to time)."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    if daemon:
        parser.add_argument("--daemon-pushes", type=int, default=5, metavar="N")
    if regional:
        parser.add_argument(
            "--regional",
            action="store_true",
            help="each policy selects the clusters of one region of three (fleet MR), not every cluster",
        )
    parser.add_argument("--templates", type=int, default=5000)
    parser.add_argument("--policies", type=int, default=2500)
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument(
        "--quick", action="store_true", help="500 templates, 250 policies, 10 clusters, 1 run"
    )
    args = parser.parse_args()
    if args.quick:
        args.templates, args.policies, args.clusters, args.repeat = 500, 250, 10, 1
        if daemon:
            args.daemon_pushes = min(args.daemon_pushes, 2)
    return args


def main() -> None:
    args = fleet_arguments(__doc__)
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    recorder = Recorder.start("run")
    try:
        print(
            f"fleet: {args.templates} Deployments, {args.policies} policies, {args.clusters} clusters; "
            f"{args.repeat} run(s) each",
            file=sys.stderr,
        )
        results = measure(args.templates, args.policies, args.clusters, args.repeat, work)
        print(f"Commit {recorder.commit}, load {recorder.load:g} at the start.\n")
        print(table(results) + "\n")
        print(recorder.remember(f"M {args.templates}x{args.policies}x{args.clusters}", figures(results)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
