"""Issue 12's table: what each command costs on fleets M and K, beside the floor measured in the same run.

``python -m benchmarks.bench_incremental [--fleet M|K|MO|both] [--repeat N] [--quick]``

* Fleet M: ``benchmarks.fleet.write_fleet`` (5,000 Deployments, 2,500 policies, 50 clusters; about 250,000
  rendered files: half of the workloads Duplicated on every cluster).
* Fleet K: Karmada's v1.15 report scale with small Divided workloads (``write_karmada_fleet``: 2 to 10
  replicas by dynamic weight over 50 clusters; about 30,000 files).
* Fleet MO (not in ``both``): fleet M with one ClusterOverridePolicy per cluster, so every cluster renders
  each workload differently: 250,000 distinct manifests, which a run must not hold all at once.
* The floor: the same rendered tree emitted with the project's YAML emitter and written with one
  ``git fast-import`` commit (no loading, matching, scheduling or overriding), measured in this run.

Every step is the real CLI in a subprocess on a bare repository (cold: a new process each time; the
decoded-input cache in the git directory is warm after the first run, as on any machine that ran it
before); median of ``--repeat`` and the peak RSS of the process.
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

from benchmarks.fleet import write_fleet, write_karmada_fleet
from benchmarks.run import GIT_ENV, Sample, cli, git, one_template_change, timed
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.codecs.serialize import dump_yaml_documents, load_yaml_documents

POLICY = "apps/team-00/pp-00000.yaml"
WORKLOAD = "Deployment/team-00/svc-00000"


@dataclass
class Results:
    samples: dict[str, list[Sample]] = field(default_factory=dict)

    def record(self, step: str, sample: Sample) -> None:
        self.samples.setdefault(step, []).append(sample)
        print(f"  {step}: {sample.seconds:.2f} s, {sample.peak_rss_mb:.0f} MB", file=sys.stderr, flush=True)


REPO_LAYOUT = Path(__file__).resolve().parents[1] / "repo-layout"


def build(work: Path, fleet: str, templates: int, policies: int, clusters: int) -> tuple[Path, str]:
    """A bare repository holding fleet M, K, MO or the example (repo-layout/; the sizes do not apply)."""
    source = work / f"source-{fleet}"
    if fleet == "example":
        shutil.copytree(REPO_LAYOUT, source)
    else:
        writer = write_karmada_fleet if fleet == "K" else write_fleet
        writer(source, templates, policies, clusters)
    if fleet == "MO":
        write_cluster_overrides(source, clusters)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "fleet")
    bare = work / f"{fleet}.git"
    git(work, "clone", "-q", "--bare", str(source), str(bare))
    return bare, git(bare, "rev-parse", "HEAD")


def write_cluster_overrides(root: Path, clusters: int) -> None:
    """One ClusterOverridePolicy per cluster, each annotating the Deployments with its cluster's name: no two
    clusters' manifests are alike (fleet MO)."""
    folder = root / "overrides"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(clusters):
        name = f"c{i:02d}"
        policy = {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterOverridePolicy",
            "metadata": {"name": f"on-{name}"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                "overrideRules": [
                    {
                        "targetCluster": {"clusterNames": [name]},
                        "overriders": {
                            "annotationsOverrider": [
                                {"operator": "add", "value": {"example.io/cluster": name}}
                            ]
                        },
                    }
                ],
            },
        }
        (folder / f"{name}.yaml").write_text(dump_yaml_documents([policy]))


def commit_file(bare: Path, parent: str, path: str, content: str, message: str) -> str:
    """A commit on top of ``parent`` with one file replaced (plumbing: no work tree)."""
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
        ["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"],
        cwd=bare,
        env=env,
        check=True,
    )
    tree = subprocess.run(
        ["git", "write-tree"], cwd=bare, env=env, capture_output=True, text=True, check=True
    )
    index.unlink()
    return git(bare, "commit-tree", tree.stdout.strip(), "-p", parent, "-m", message)


def one_policy_change(bare: Path, parent: str) -> str:
    """pp-00000 re-places its Deployments: static weights over three clusters instead of what it had."""
    (document,) = [d.body for d in load_yaml_documents(git(bare, "show", f"{parent}:{POLICY}").encode())]
    document["spec"]["placement"] = {
        "clusterAffinity": {"clusterNames": ["c00", "c01", "c02"]},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": ["c00"]}, "weight": 2},
                    {"targetCluster": {"clusterNames": ["c01", "c02"]}, "weight": 1},
                ]
            },
        },
    }
    return commit_file(bare, parent, POLICY, dump_yaml_documents([document]), "re-place pp-00000")


def floor(work: Path, bare: Path, rev: str) -> float:
    """Seconds to emit the rendered tree of ``rev`` with the project's emitter and commit it in one go."""
    store = GitStore.open(bare)
    entries = [e for e in store.list_entries(rev, ["clusters"]) if e.is_regular_file]
    blobs = store.read_blobs([e.oid for e in entries])
    documents = {e.path: [d.body for d in load_yaml_documents(blobs[e.oid])] for e in entries}
    target = work / "floor.git"
    shutil.rmtree(target, ignore_errors=True)
    git(work, "init", "-q", "--bare", str(target))
    empty = git(
        target, "commit-tree", git(target, "hash-object", "-t", "tree", "-w", "/dev/null"), "-m", "empty"
    )
    git(target, "update-ref", "refs/heads/main", empty)
    sink = GitStore.open(target)
    start = time.perf_counter()
    files = {path: dump_yaml_documents(docs).encode() for path, docs in documents.items()}
    sink.commit(parent=empty, ref="refs/heads/main", changes=files, message="floor")
    return time.perf_counter() - start


def floor_in_subprocess(work: Path, bare: Path, rev: str) -> Sample:
    """``floor`` in a process of its own, so the tree it holds never inflates this process (whose memory
    every later child would otherwise report as its own peak)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_incremental", "--floor-of", str(bare), rev, str(work)],
        capture_output=True,
        text=True,
        check=True,
    )
    return Sample(float(done.stdout.strip()), 0)


def measure(fleet: str, templates: int, policies: int, clusters: int, repeat: int, work: Path) -> Results:
    results = Results()
    bare, source = build(work, fleet, templates, policies, clusters)
    repo = ["--repo", str(bare)]
    for _ in range(repeat):
        git(bare, "update-ref", "refs/heads/main", source)
        results.record(
            "first reconcile (everything rendered and committed)", timed(cli("reconcile", *repo), work)
        )
        reconciled = git(bare, "rev-parse", "HEAD")
        results.record("no-change reconcile", timed(cli("reconcile", *repo), work))
        git(bare, "update-ref", "refs/heads/main", one_template_change(bare, reconciled))
        results.record("one template changed: reconcile", timed(cli("reconcile", *repo), work))
        results.record("verify after one change", timed(cli("verify", *repo), work))
        results.record(f"explain {WORKLOAD}", timed(cli("explain", WORKLOAD, *repo), work))
        after_template = git(bare, "rev-parse", "HEAD")
        changed = one_policy_change(bare, after_template)
        results.record(
            "one policy changed: diff -o markdown",
            timed(
                cli("diff", "--base", after_template, "--head", changed, "-o", "markdown", *repo),
                work,
                ok=(0, 1),
            ),
        )
        git(bare, "update-ref", "refs/heads/main", changed)
        results.record("one policy changed: reconcile", timed(cli("reconcile", *repo), work))
    # last: a process whose memory the kernel would count in every later child's peak
    for _ in range(repeat):
        results.record(
            "floor: emit the same tree + one fast-import commit", floor_in_subprocess(work, bare, reconciled)
        )
    return results


def table(results: Results) -> str:
    lines = ["| step | median | min | max | peak RSS |", "|---|---:|---:|---:|---:|"]
    for step, samples in results.samples.items():
        seconds = [s.seconds for s in samples]
        rss = max(s.peak_rss_mb for s in samples)
        lines.append(
            f"| {step} | {statistics.median(seconds):.2f} s | {min(seconds):.2f} s | {max(seconds):.2f} s "
            f"| {f'{rss:.0f} MB' if rss else '–'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--fleet",
        choices=["M", "K", "MO", "both"],
        default="both",
        help="both: M and K; MO: M with one ClusterOverridePolicy per cluster, so no two clusters' "
        "manifests are alike (not in both)",
    )
    parser.add_argument("--templates", type=int, default=5000)
    parser.add_argument("--policies", type=int, default=2500)
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="500 templates, 250 policies, 10 clusters, 1 run"
    )
    parser.add_argument(
        "--floor-of",
        nargs=3,
        metavar=("BARE", "REV", "WORK"),
        help="internal: print the floor's seconds for REV of BARE (run in a process of its own)",
    )
    args = parser.parse_args()
    if args.floor_of:
        bare_path, rev, work_path = args.floor_of
        print(f"{floor(Path(work_path), Path(bare_path), rev):.4f}")
        return
    if args.quick:
        args.templates, args.policies, args.clusters, args.repeat = 500, 250, 10, 1
    if args.fleet == "both":
        # one process per fleet: a child's peak memory as the kernel reports it includes its parent's children
        for fleet in ("M", "K"):
            subprocess.run(
                [sys.executable, "-m", "benchmarks.bench_incremental", *sys.argv[1:], "--fleet", fleet],
                check=True,
            )
        return
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    try:
        for fleet in (args.fleet,):
            print(
                f"fleet {fleet}: {args.templates} Deployments, {args.policies} policies, "
                f"{args.clusters} clusters; {args.repeat} run(s) each",
                file=sys.stderr,
                flush=True,
            )
            print(f"### Fleet {fleet}\n")
            print(table(measure(fleet, args.templates, args.policies, args.clusters, args.repeat, work)))
            print(flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
