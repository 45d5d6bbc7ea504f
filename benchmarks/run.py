"""Time validate, render and reconcile on a synthetic fleet: ``python -m benchmarks.run [--quick]``.

Every step runs the real CLI in a subprocess; the table gives the median, min and max wall time over
``--repeat`` runs and the peak RSS of the process. The fleet repository is bare (no work tree), so
reconcile times cover reading the commit, rendering and committing, not checking files out.
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
from dataclasses import dataclass
from pathlib import Path

from benchmarks.fleet import write_fleet

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


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


def measure(templates: int, policies: int, clusters: int, repeat: int, work: Path) -> dict[str, list[Sample]]:
    bare, source = build_repository(work, templates, policies, clusters)
    results: dict[str, list[Sample]] = {}

    def record(step: str, sample: Sample) -> None:
        results.setdefault(step, []).append(sample)
        print(f"  {step}: {sample.seconds:.2f} s, {sample.peak_rss_mb:.0f} MB", file=sys.stderr)

    for _ in range(repeat):
        record("validate", timed(cli("validate", "--repo", str(bare)), work))
        record("render (placement table, nothing written)", timed(cli("render", "--repo", str(bare)), work))
        git(bare, "update-ref", "refs/heads/main", source)
        record(
            "reconcile: first run (render + commit everything)",
            timed(cli("reconcile", "--repo", str(bare)), work),
        )
        reconciled = git(bare, "rev-parse", "HEAD")
        record("reconcile: no input change (no commit)", timed(cli("reconcile", "--repo", str(bare)), work))
        git(bare, "update-ref", "refs/heads/main", one_template_change(bare, reconciled))
        record("reconcile: one template changed", timed(cli("reconcile", "--repo", str(bare)), work))
        git(bare, "update-ref", "refs/heads/main", source)
    return results


def table(results: dict[str, list[Sample]]) -> str:
    lines = ["| step | median | min | max | peak RSS |", "|---|---:|---:|---:|---:|"]
    for step, samples in results.items():
        seconds = [s.seconds for s in samples]
        lines.append(
            f"| {step} | {statistics.median(seconds):.2f} s | {min(seconds):.2f} s | {max(seconds):.2f} s "
            f"| {max(s.peak_rss_mb for s in samples):.0f} MB |"
        )
    return "\n".join(lines)


def fleet_arguments(description: str | None, *, repeat: int = 3) -> argparse.Namespace:
    """The fleet-M benchmarks' command line: the fleet's size, runs per step, and ``--quick``."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
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
    return args


def main() -> None:
    args = fleet_arguments(__doc__)
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    try:
        print(
            f"fleet: {args.templates} Deployments, {args.policies} policies, {args.clusters} clusters; "
            f"{args.repeat} run(s) each",
            file=sys.stderr,
        )
        results = measure(args.templates, args.policies, args.clusters, args.repeat, work)
        print(table(results))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
