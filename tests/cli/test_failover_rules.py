"""Issue 35 item 9: failover rules found wrong against Karmada, each reproduced through the CLI with status
snapshots on a real repository (the helpers of tests/cli/test_failover.py: time moves through commit times).
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import yaml

from tests.builders import cluster_doc, deployment, pp_doc
from tests.cli.test_failover import (
    CLUSTERS,
    T0,
    binding,
    holds,
    observed_deployment,
    placement,
    record,
    run_at,
    snapshot,
)
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

MEMORY = "gitops-karmada.io/unhealthy-since"
RECORD = "karmada-state/bindings/default/deployment.apps/web.yaml"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def fleet(tmp_path: Path, application: dict[str, Any], *, gates: dict[str, bool] | None = None) -> FleetRepo:
    """Three clusters, ``web`` (6 replicas, 2 per cluster) with application failover ``application``."""
    config = {"featureGates": {"Failover": True, **(gates or {})}}
    weights = [{"targetCluster": {"clusterNames": [c]}, "weight": 1} for c in CLUSTERS]
    policy = pp_doc(
        "web",
        "default",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
        propagateDeps=True,
        placement={
            "clusterAffinity": {"clusterNames": list(CLUSTERS)},
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {"staticWeightList": weights},
            },
        },
        failover={"application": application},
    )
    files: dict[str, Any] = {
        "gitops-karmada.yaml": config,
        "apps/web.yaml": deployment("web", replicas=6),
        "policies/web.yaml": policy,
        **{f"inventory/{c}.yaml": cluster_doc(c) for c in CLUSTERS},
    }
    repo = FleetRepo.create(tmp_path / "fleet", files)
    run_at(repo, T0, "reconcile")
    return repo


def report(repo: FleetRepo, at: datetime, unhealthy: tuple[str, ...] = ("member1",)) -> None:
    """Every cluster reports ``web``: unhealthy (nothing ready) on ``unhealthy``, healthy elsewhere."""
    record(
        repo,
        at,
        *(
            snapshot(c, at, objects=[observed_deployment("web", 2, ready=0 if c in unhealthy else 2)])
            for c in CLUSTERS
        ),
    )


def memory(repo: FleetRepo) -> dict[str, str]:
    raw = binding(repo, "web")["metadata"].get("annotations", {}).get(MEMORY)
    return json.loads(raw) if raw else {}


def test_an_evicted_cluster_leaves_the_unhealthy_memory(tmp_path: Path) -> None:
    repo = fleet(tmp_path, {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Directly"})
    first = T0 + timedelta(seconds=10)
    report(repo, first)
    run_at(repo, first, "reconcile")
    assert memory(repo) == {"member1": _iso(first)}
    later = first + timedelta(seconds=61)
    report(repo, later)
    done = run_at(repo, later, "reconcile")
    assert "member1" not in placement(repo, "web"), done.stderr
    # Karmada drops the clusters it evicted from what it remembers once the binding is updated
    assert memory(repo) == {}


def test_an_unhealthy_cluster_with_an_eviction_task_keeps_its_time(tmp_path: Path) -> None:
    repo = fleet(tmp_path, {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Never"})
    first = T0 + timedelta(seconds=10)
    report(repo, first)
    run_at(repo, first, "reconcile")
    assert memory(repo) == {"member1": _iso(first)}
    # a task for member1 while it is still scheduled (a record as another controller may leave it)
    edited = yaml.safe_load(repo.read(RECORD))
    edited["spec"]["gracefulEvictionTasks"] = [
        {"fromCluster": "member1", "purgeMode": "Never", "reason": "Manual", "suppressDeletion": True}
    ]
    repo.write(RECORD, edited)
    repo.commit("a task for member1")
    later = first + timedelta(seconds=20)
    report(repo, later)
    run_at(repo, later, "reconcile")
    # Karmada forgets only clusters that report Healthy or Unknown, or that are no longer scheduled
    assert "member1" in placement(repo, "web")
    assert memory(repo) == {"member1": _iso(first)}


def test_an_empty_state_preservation_is_valid_and_preserves_nothing(tmp_path: Path) -> None:
    repo = fleet(
        tmp_path,
        {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Directly"},
        gates={"StatefulFailoverInjection": True},
    )
    policy = yaml.safe_load(repo.read("policies/web.yaml"))
    policy["spec"]["failover"]["application"]["statePreservation"] = {"rules": []}
    policy["spec"]["failover"]["cluster"] = {"statePreservation": {"rules": []}}
    repo.write("policies/web.yaml", policy)
    repo.commit("no state to preserve")
    run_at(repo, T0, "validate")
    first = T0 + timedelta(seconds=10)
    report(repo, first)
    run_at(repo, first, "reconcile")
    later = first + timedelta(seconds=61)
    report(repo, later)
    run_at(repo, later, "reconcile")
    assert "member1" not in placement(repo, "web")
    tasks = binding(repo, "web")["spec"]["gracefulEvictionTasks"]
    assert [t["fromCluster"] for t in tasks] == ["member1"]
    assert "preservedLabelState" not in tasks[0]


def test_simulate_acts_just_after_a_toleration_runs_out(tmp_path: Path) -> None:
    repo = fleet(tmp_path, {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Directly"})
    done = run_at(
        repo,
        T0,
        "simulate",
        "--unhealthy",
        "Deployment.apps/default/web@member1",
        "--after",
        "10m",
        "-o",
        "json",
        check=1,
    )
    evicted = [e for e in json.loads(done.stdout)["timeline"] if e["action"] == "evicted"]
    # the toleration runs out at T0 + 60 s; the eviction comes at the next second, not at the scenario's end
    assert [(e["cluster"], e["at"]) for e in evicted] == [("member1", _iso(T0 + timedelta(seconds=61)))]


def test_a_run_at_a_deadline_asks_to_be_woken_just_after_it(tmp_path: Path) -> None:
    repo = fleet(
        tmp_path,
        {
            "decisionConditions": {"tolerationSeconds": 60},
            "purgeMode": "Gracefully",
            "gracePeriodSeconds": 30,
        },
    )
    first = T0 + timedelta(seconds=10)
    report(repo, first)
    run_at(repo, first, "reconcile")
    # exactly at the toleration's end nothing is due yet ("strictly after"): the run must ask for a next one
    deadline = first + timedelta(seconds=60)
    report(repo, deadline)
    done = run_at(repo, deadline, "reconcile")
    assert "member1" in placement(repo, "web")
    assert "failover decides more in 1 s" in done.stderr
    assert f"will be evicted from member1 at {_iso(deadline + timedelta(seconds=1))}" in done.stderr
    # evicted just after; the new placement stays unhealthy, so the task ends with its grace period
    evicted = deadline + timedelta(seconds=1)
    report(repo, evicted, unhealthy=CLUSTERS)
    run_at(repo, evicted, "reconcile")
    assert "member1" not in placement(repo, "web")
    assert holds(repo, "member1", "web")
    end = evicted + timedelta(seconds=30)
    report(repo, end, unhealthy=CLUSTERS)
    done = run_at(repo, end, "reconcile")
    assert holds(repo, "member1", "web")
    assert "failover decides more in 1 s" in done.stderr
    gone = end + timedelta(seconds=1)
    report(repo, gone, unhealthy=CLUSTERS)
    run_at(repo, gone, "reconcile")
    assert not holds(repo, "member1", "web")


def test_purge_mode_never_needs_no_graceful_eviction_gate(tmp_path: Path) -> None:
    repo = fleet(
        tmp_path,
        {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Never"},
        gates={"GracefulEviction": False},
    )
    first = T0 + timedelta(seconds=10)
    report(repo, first)
    run_at(repo, first, "reconcile")
    later = first + timedelta(seconds=61)
    report(repo, later)
    done = run_at(repo, later, "reconcile")
    assert "GracefulEviction featureGate must be enabled" not in done.stderr
    assert "member1" not in placement(repo, "web")
    tasks = binding(repo, "web")["spec"]["gracefulEvictionTasks"]
    assert [(t["fromCluster"], t["purgeMode"], t.get("suppressDeletion")) for t in tasks] == [
        ("member1", "Never", True)
    ]
    # the copy stays until the user lets it go
    assert holds(repo, "member1", "web")
