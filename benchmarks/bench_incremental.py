"""Issue 12's table: what each command costs on fleets M and K, beside the floor measured in the same run.

``python -m benchmarks.bench_incremental [--fleet M|K|MO|both] [--repeat N] [--quick]`` (``--quick``
with ``both``: fleet M only)

* Fleet M: ``benchmarks.fleet.write_fleet`` (5,000 Deployments, 2,500 policies, 50 clusters; about 250,000
  rendered files: half of the workloads Duplicated on every cluster).
* Fleet K: Karmada's v1.15 report scale with small Divided workloads (``write_karmada_fleet``: 2 to 10
  replicas by dynamic weight over 50 clusters; about 30,000 files).
* Fleet MO (not in ``both``): fleet M with one ClusterOverridePolicy per cluster, so every cluster renders
  each workload differently: 250,000 distinct manifests, which a run must not hold all at once.
* The true floor (``benchmarks.floor``), measured in this run from the first reconcile's commit: the same
  tree, each distinct content emitted once with the project's YAML emitter and sent once, every path
  pointing at it, one ``git fast-import`` commit. Every step's median is also given divided by it. Issue
  12's loose floor (every file emitted and sent) follows it, for the history.

Every figure is appended to the history (``benchmarks.history``) and printed beside the history's median and
spread on this machine class, with a regression beyond the noise flagged.

Every step is the real CLI in a subprocess on a bare repository (cold: a new process each time; the
decoded-input cache in the git directory is warm after the first run, as on any machine that ran it
before); median of ``--repeat`` and the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.fleet import regional_policy_doc, write_fleet, write_karmada_fleet
from benchmarks.history import Recorder
from benchmarks.run import (
    FIRST_RECONCILE,
    GIT_ENV,
    Results,
    cli,
    figures,
    git,
    one_template_change,
    table,
    timed,
)
from gitops_karmada.core.codecs.serialize import dump_yaml_documents, load_yaml_documents

POLICY = "apps/team-00/pp-00000.yaml"

WORKLOAD = "Deployment/team-00/svc-00000"


REPO_LAYOUT = Path(__file__).resolve().parents[1] / "repo-layout"


def build(work: Path, fleet: str, templates: int, policies: int, clusters: int) -> tuple[Path, str]:
    """A bare repository holding fleet M, K, MO, MR (``fleet.regional_policy_doc``) or the example
    (repo-layout/; the sizes do not apply)."""
    source = work / f"source-{fleet}"
    if fleet == "example":
        shutil.copytree(REPO_LAYOUT, source)
    elif fleet == "K":
        write_karmada_fleet(source, templates, policies, clusters)
    else:
        write_fleet(
            source, templates, policies, clusters, policy=regional_policy_doc if fleet == "MR" else None
        )
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


def measure(fleet: str, templates: int, policies: int, clusters: int, repeat: int, work: Path) -> Results:
    results = Results()
    bare, source = build(work, fleet, templates, policies, clusters)
    repo = ["--repo", str(bare)]
    for _ in range(repeat):
        git(bare, "update-ref", "refs/heads/main", source)
        results.record(FIRST_RECONCILE, timed(cli("reconcile", *repo), work))
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
    # last, each in a process of its own: a process holding the tree would count in every later child's peak
    results.floors(bare, reconciled, repeat, loose=True)
    return results


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
    args = parser.parse_args()
    if args.quick:
        args.templates, args.policies, args.clusters, args.repeat = 500, 250, 10, 1
    if args.fleet == "both":
        # one process per fleet: a child's peak memory as the kernel reports it includes its parent's children
        # (--quick: fleet M only; at 500 x 10, K tells little more, and --quick must stay under 2 minutes)
        for fleet in ("M",) if args.quick else ("M", "K"):
            subprocess.run(
                [sys.executable, "-m", "benchmarks.bench_incremental", *sys.argv[1:], "--fleet", fleet],
                check=True,
            )
        return
    work = Path(tempfile.mkdtemp(prefix="gitops-karmada-bench-"))
    recorder = Recorder.start("bench_incremental")
    try:
        for fleet in (args.fleet,):
            print(
                f"fleet {fleet}: {args.templates} Deployments, {args.policies} policies, "
                f"{args.clusters} clusters; {args.repeat} run(s) each",
                file=sys.stderr,
                flush=True,
            )
            results = measure(fleet, args.templates, args.policies, args.clusters, args.repeat, work)
            print(f"### Fleet {fleet} (commit {recorder.commit}, load {recorder.load:g} at the start)\n")
            print(table(results) + "\n")
            size = f"{fleet} {args.templates}x{args.policies}x{args.clusters}"
            print(recorder.remember(size, figures(results)))
            print(flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
