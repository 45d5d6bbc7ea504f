"""The README's Flink walkthrough on the example fleet: a cluster fails and the job moves with its job id.

Karmada v1.12/v1.15 state preservation, end to end on ``repo-layout/`` as it ships: the cluster running
the FlinkDeployment reports NotReady, the ClusterTaintPolicy taints it NoExecute, the default toleration
(300 s) runs out, the taint manager evicts the job (purgeMode Directly) keeping the job id the failed
cluster last reported, and the copy rendered into the next cluster carries it as a label. Also
``simulate --cluster-down`` on the same fleet: it names what would move and exits 1.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import yaml

from tests.action.scenarios import REPO_LAYOUT
from tests.cli.test_failover import T0, binding_at, holds, record, run_at, snapshot
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

JOB_ID = "8e9d4b1c0a6f4c1e9a2b7d3e5f60718a"
LABEL = "application.karmada.io/cluster-failover-jobid"
FLINK = "clusters/{}/analytics/flinkdeployment.flink.apache.org/{}.yaml"


def flink_reported(job_id: str = JOB_ID) -> dict[str, Any]:
    return {
        "apiVersion": "flink.apache.org/v1beta1",
        "kind": "FlinkDeployment",
        "namespace": "analytics",
        "name": "flink-example",
        "observed": {
            "apiVersion": "flink.apache.org/v1beta1",
            "kind": "FlinkDeployment",
            "metadata": {"name": "flink-example", "namespace": "analytics", "generation": 1},
            "status": {
                "jobStatus": {"jobId": job_id, "jobName": "state-machine", "state": "RUNNING"},
                "lifecycleState": "STABLE",
                "jobManagerDeploymentStatus": "READY",
            },
        },
    }


def example_fleet(tmp_path: Path) -> FleetRepo:
    shutil.copytree(REPO_LAYOUT, tmp_path / "fleet")
    repo = FleetRepo.create(tmp_path / "fleet")
    run_at(repo, T0, "reconcile")
    return repo


def flink_cluster(repo: FleetRepo) -> str:
    clusters = [
        c["name"]
        for c in binding_at(repo, "analytics", "flinkdeployment.flink.apache.org", "flink-example")["spec"][
            "clusters"
        ]
    ]
    assert len(clusters) == 1
    return str(clusters[0])


def test_a_failed_clusters_flink_job_moves_with_its_job_id(tmp_path: Path) -> None:
    repo = example_fleet(tmp_path)
    home = flink_cluster(repo)
    others = [c for c in ("member1", "member2", "member3", "member4") if c != home]
    up = T0 + timedelta(seconds=10)
    record(repo, up, snapshot(home, up, objects=[flink_reported()]), *(snapshot(c, up) for c in others))
    run_at(repo, up, "reconcile")
    items = binding_at(repo, "analytics", "flinkdeployment.flink.apache.org", "flink-example")["status"][
        "aggregatedStatus"
    ]
    assert items == [
        {
            "clusterName": home,
            "applied": True,
            "health": "Healthy",
            "status": flink_reported()["observed"]["status"],
        }
    ]

    down = up + timedelta(seconds=10)
    # not ready: collect keeps the objects' last report (state preservation reads it), as Karmada's bindings do
    record(repo, down, snapshot(home, down, ready="False", objects=[flink_reported()]))
    run_at(repo, down, "reconcile")
    assert flink_cluster(repo) == home  # the default toleration of the not-ready taint: 300 s

    later = down + timedelta(seconds=301)
    record(repo, later, *(snapshot(c, later) for c in others))
    first = run_at(repo, later, "reconcile")
    assert "10 eviction(s) wait in the eviction queue" in first.stderr
    # every workload on that cluster leaves, one every 2 s (the eviction queue); 30 s later all have
    settled = later + timedelta(seconds=30)
    record(repo, settled, *(snapshot(c, settled) for c in others))
    done = run_at(repo, settled, "reconcile", check=1)
    # nginx is pinned to that cluster by the v1.12 note's policy: it has nowhere to go, which is an error
    assert "apps/default/nginx.yaml[0]: cannot be scheduled" in done.stderr
    moved_to = flink_cluster(repo)
    assert moved_to != home, done.stderr
    task = binding_at(repo, "analytics", "flinkdeployment.flink.apache.org", "flink-example")["spec"][
        "gracefulEvictionTasks"
    ]
    # no replicas: a component workload's target carries its components, not a replica count
    assert task == [
        {
            "fromCluster": home,
            "purgeMode": "Directly",
            "reason": "TaintUntolerated",
            "producer": "TaintManager",
            "preservedLabelState": {LABEL: JOB_ID},
            "creationTimestamp": task[0]["creationTimestamp"],
        }
    ]
    assert later < datetime.fromisoformat(task[0]["creationTimestamp"]) <= settled
    # Directly: the failed cluster's copy is gone; the new copy carries the job id
    assert not holds(repo, home, "flink-example", FLINK)
    rendered = yaml.safe_load(repo.read(FLINK.format(moved_to, "flink-example")))
    assert rendered["metadata"]["labels"][LABEL] == JOB_ID
    assert f"FlinkDeployment.flink.apache.org/analytics/flink-example: evicted {home}" in done.stderr


def test_simulate_cluster_down_names_what_moves_and_exits_1(tmp_path: Path) -> None:
    repo = example_fleet(tmp_path)
    home = flink_cluster(repo)
    done = run_at(repo, T0, "simulate", "--cluster-down", home, "--after", "10m", "-o", "json", check=1)
    report = json.loads(done.stdout)
    moved = {w["template"]: w for w in report["placement"]}
    assert moved["Deployment.apps/shop/cart"]["moved"] > 0
    # the Flink job's eviction needs the job id its cluster last reported; no cluster reported anything
    # here, so it waits (and says why) instead of moving without its state
    flink = [e for e in report["timeline"] if e["template"].startswith("FlinkDeployment")]
    assert flink and {e["action"] for e in flink} == {"failed", "queued"}  # retried with backoff
    assert "has not yet been collected" in flink[0]["message"]
    evicted = [e for e in report["timeline"] if e["action"] == "evicted"]
    assert evicted and all(e["cluster"] == home for e in evicted)
    # the first eviction waits for the default toleration; the queue spaces the rest 2 s apart
    first = min(e["at"] for e in evicted)
    assert first == (T0 + timedelta(seconds=300)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # nothing was written
    assert repo.tree("karmada-state/eviction-queue.yaml") == []
    assert run_at(repo, T0, "simulate", "--cluster-down", home, check=0).returncode == 0  # not yet: tolerated
    bad = run_at(repo, T0, "simulate", "--cluster-down", "nowhere", check=2)
    assert "no cluster 'nowhere' in the inventory" in bad.stderr


def test_the_eviction_queue_advances_with_time_without_a_new_commit(tmp_path: Path) -> None:
    repo = example_fleet(tmp_path)
    home = flink_cluster(repo)
    others = [c for c in ("member1", "member2", "member3", "member4") if c != home]
    down = T0 + timedelta(seconds=20)
    record(repo, down, snapshot(home, down, ready="False", objects=[flink_reported()]))
    record(repo, down, *(snapshot(c, down) for c in others))
    first = run_at(repo, down, "reconcile")
    # the summary names what will be evicted, and when (the not-ready toleration: 300 s)
    due = (down + timedelta(seconds=300)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (
        f"FlinkDeployment.flink.apache.org/analytics/flink-example will be evicted from {home} at {due}"
        in (first.stderr)
    )
    head = repo.head()
    # nothing is due yet: a run with no new commit has nothing to do
    assert "up to date" in run_at(repo, down + timedelta(seconds=60), "reconcile").stdout
    assert repo.head() == head
    # once the toleration has run out, a run with no new commit evicts: time alone moves the queue
    later = down + timedelta(seconds=302)
    done = run_at(repo, later, "reconcile")
    assert "eviction(s) wait in the eviction queue" in done.stderr, done.stderr
    assert repo.head() != head
    message = git(repo.path, "log", "-1", "--format=%B")
    assert f"Run-Time: {later.strftime('%Y-%m-%dT%H:%M:%SZ')}" in message
    assert "Failover-Due: " in message
    run_at(repo, later, "verify")
