"""Failover end to end: status snapshots on the status branch drive taints, evictions and purge modes.

Real repositories and the real CLI (in process). Time moves only through commit times: each snapshot is
recorded by ``collect --snapshot`` with a chosen committer date, and a reconcile's clock is the later of
its source commit and the status commit it reads, so nothing here sleeps.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
"""tests.fleet.FIXED_DATE: the time of every fleet commit here."""
CLUSTERS = ("member1", "member2", "member3")
NOT_READY_NO_EXECUTE = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "ClusterTaintPolicy",
    "metadata": {"name": "not-ready-evicts"},
    "spec": {
        "addOnConditions": [
            {"conditionType": "Ready", "operator": "In", "statusValues": ["False", "Unknown"]}
        ],
        "removeOnConditions": [{"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}],
        "taints": [{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}],
    },
}
CONFIG = {
    "apiVersion": "gitops-karmada.io/v1alpha1",
    "kind": "Config",
    "featureGates": {"Failover": True},
    "failover": {"enableNoExecuteTaintEviction": True},
}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_at(repo: FleetRepo, when: datetime, *args: str, check: int = 0) -> subprocess.CompletedProcess[str]:
    """The CLI with the clock of the commits it makes set to ``when``."""
    stamp = f"{int(when.timestamp())} +0000"
    return repo.cli(*args, check=check, env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})


def snapshot(
    cluster: str,
    at: datetime,
    *,
    ready: str = "True",
    objects: list[dict[str, Any]] | None = None,
    since: datetime | None = None,
) -> dict[str, Any]:
    """What ``collect`` records at ``at``; Ready's lastTransitionTime is ``since`` (T0 for Ready=True, the
    report's time otherwise), as collect carries it while the status stays."""
    return {
        "apiVersion": "status.gitops-karmada.io/v1alpha1",
        "kind": "ClusterStatusSnapshot",
        "metadata": {"name": cluster},
        "collectedAt": _iso(at),
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": ready,
                    "reason": "ClusterReady" if ready == "True" else "ClusterNotReady",
                    "lastTransitionTime": _iso(since or (T0 if ready == "True" else at)),
                }
            ]
        },
        "objects": objects or [],
    }


def observed_deployment(name: str, replicas: int, *, ready: int | None = None) -> dict[str, Any]:
    ready = replicas if ready is None else ready
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "default",
        "name": name,
        "observed": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default", "generation": 1},
            "spec": {"replicas": replicas},
            "status": {
                "observedGeneration": 1,
                "replicas": replicas,
                "readyReplicas": ready,
                "updatedReplicas": replicas,
                "availableReplicas": ready,
            },
        },
    }


def record(repo: FleetRepo, at: datetime, *snapshots: dict[str, Any]) -> None:
    for number, document in enumerate(snapshots):
        path = repo.path.parent / f"snapshot-{document['metadata']['name']}-{number}.yaml"
        path.write_text(yaml.safe_dump(document))
        run_at(repo, at, "collect", "--cluster", document["metadata"]["name"], "--snapshot", str(path))


def binding_at(repo: FleetRepo, namespace: str, kind: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(
        git(repo.path, "show", f"HEAD:karmada-state/bindings/{namespace}/{kind}/{name}.yaml")
    )
    return found


def binding(repo: FleetRepo, name: str) -> dict[str, Any]:
    return binding_at(repo, "default", "deployment.apps", name)


def placement(repo: FleetRepo, name: str) -> dict[str, int]:
    return {c["name"]: c.get("replicas", 0) for c in binding(repo, name)["spec"]["clusters"]}


def holds(
    repo: FleetRepo, cluster: str, name: str, where: str = "clusters/{}/default/deployment.apps/{}.yaml"
) -> bool:
    return where.format(cluster, name) in repo.tree("clusters")


def fleet(
    tmp_path: Path, workloads: dict[str, dict[str, Any]], *, config: dict[str, Any] | None = None
) -> FleetRepo:
    """Three clusters, the NotReady → NoExecute policy, and per workload a policy spreading 6 replicas
    evenly (its ``failover``, ``clusterTolerations`` and ``clusters``, all three by default, from
    ``workloads``)."""
    files: dict[str, Any] = {
        "gitops-karmada.yaml": config or CONFIG,
        "taints.yaml": NOT_READY_NO_EXECUTE,
        **{f"inventory/{c}.yaml": cluster_doc(c) for c in CLUSTERS},
    }
    for name, extra in workloads.items():
        clusters = extra.get("clusters", CLUSTERS)
        files[f"apps/{name}.yaml"] = deployment(name, replicas=6)
        files[f"policies/{name}.yaml"] = pp_doc(
            name,
            "default",
            [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
            placement={
                "clusterAffinity": {"clusterNames": list(clusters)},
                "clusterTolerations": extra.get("tolerations", []),
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                    "weightPreference": {
                        "staticWeightList": [
                            {"targetCluster": {"clusterNames": [c]}, "weight": 1} for c in clusters
                        ]
                    },
                },
            },
            **({"failover": extra["failover"]} if "failover" in extra else {}),
        )
    repo = FleetRepo.create(tmp_path / "fleet", files)
    run_at(repo, T0, "reconcile")
    return repo


def test_a_cluster_falling_silent_redoes_only_the_workloads_that_can_be_on_it(tmp_path: Path) -> None:
    """member3 falls silent (its Ready turns Unknown after the grace period): the workload whose policy
    can choose member3 is redone, the one placed on member1 and member2 only stands as it was."""
    repo = fleet(tmp_path, {"api": {"clusters": CLUSTERS[:2]}, "web": {}})
    reported = T0 + timedelta(seconds=10)
    record(repo, reported, *(snapshot(c, reported) for c in CLUSTERS))
    run_at(repo, reported, "reconcile")
    silent = reported + timedelta(seconds=120)
    record(repo, silent, *(snapshot(c, silent) for c in CLUSTERS[:2]))
    changed = run_at(repo, silent, "reconcile")
    assert "1 reused, 1 redone" in changed.stderr, changed.stderr
    assert set(placement(repo, "api")) == {"member1", "member2"}


def tolerate(seconds: int) -> list[dict[str, Any]]:
    return [
        {
            "key": "cluster.karmada.io/not-ready",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": seconds,
        }
    ]


def test_a_not_ready_cluster_is_left_after_the_toleration_and_purge_modes_decide_its_files(
    tmp_path: Path,
) -> None:
    repo = fleet(
        tmp_path,
        {
            "graceful": {"tolerations": tolerate(60), "failover": {"cluster": {"purgeMode": "Gracefully"}}},
            "direct": {"tolerations": tolerate(60), "failover": {"cluster": {"purgeMode": "Directly"}}},
        },
    )
    even = {"member1": 2, "member2": 2, "member3": 2}
    assert placement(repo, "graceful") == placement(repo, "direct") == even
    healthy = [observed_deployment("graceful", 2), observed_deployment("direct", 2)]
    record(
        repo,
        T0 + timedelta(seconds=10),
        *(snapshot(c, T0 + timedelta(seconds=10), objects=healthy) for c in CLUSTERS),
    )
    run_at(repo, T0 + timedelta(seconds=10), "reconcile")
    status = binding(repo, "graceful")["status"]
    assert [(i["clusterName"], i["applied"], i["health"]) for i in status["aggregatedStatus"]] == [
        (c, True, "Healthy") for c in CLUSTERS
    ]
    assert next(c for c in status["conditions"] if c["type"] == "FullyApplied")["status"] == "True"

    # member1 stops being Ready: the taint policy adds NoExecute; the toleration holds for 60 s
    down = T0 + timedelta(seconds=20)
    record(repo, down, snapshot("member1", down, ready="False", objects=healthy))
    done = run_at(repo, down, "reconcile")
    # get reads the clusters as the last reconcile saw them: what they reported, not only the inventory
    listed = run_at(repo, down, "get", "clusters", "-o", "json")
    ready = {c["metadata"]["name"]: c["status"]["conditions"] for c in json.loads(listed.stdout)["items"]}
    assert [c["status"] for c in ready["member1"] if c["type"] == "Ready"] == ["False"]
    assert [c["status"] for c in ready["member2"] if c["type"] == "Ready"] == ["True"]
    taints = yaml.safe_load(git(repo.path, "show", "HEAD:karmada-state/cluster-taints.yaml"))
    assert taints["clusters"]["member1"] == [
        {"key": "cluster.karmada.io/not-ready", "effect": "NoExecute", "timeAdded": _iso(down)}
    ]
    assert placement(repo, "graceful") == even, done.stderr

    # 61 s later (the other clusters' reports move the clock) the toleration has run out; the eviction
    # queue takes one binding now and the next one a pause (1 / 0.5 evictions per second) later
    later = down + timedelta(seconds=61)
    record(repo, later, *(snapshot(c, later, objects=healthy) for c in ("member2", "member3")))
    run_at(repo, later, "reconcile")
    assert placement(repo, "direct") == {"member2": 3, "member3": 3}
    assert placement(repo, "graceful") == even
    queue = yaml.safe_load(git(repo.path, "show", "HEAD:karmada-state/eviction-queue.yaml"))
    assert [(i["binding"], i["cluster"]) for i in queue["items"]] == [
        ("Deployment.apps/default/graceful", "member1")
    ]
    assert queue["nextFreeAt"] == _iso(later + timedelta(seconds=2))
    later += timedelta(seconds=2)
    record(repo, later, *(snapshot(c, later, objects=healthy) for c in ("member2", "member3")))
    run_at(repo, later, "reconcile")
    assert placement(repo, "graceful") == {"member2": 3, "member3": 3}
    graceful_tasks = binding(repo, "graceful")["spec"]["gracefulEvictionTasks"]
    assert [(t["fromCluster"], t["purgeMode"], t["reason"], t["producer"]) for t in graceful_tasks] == [
        ("member1", "Gracefully", "TaintUntolerated", "TaintManager")
    ]
    # Gracefully keeps the old copy until the new placement is healthy; Directly removes it at once
    assert holds(repo, "member1", "graceful")
    assert not holds(repo, "member1", "direct")
    assert holds(repo, "member2", "direct")

    # the new placement reports healthy at 3 replicas each: the graceful task ends and its copy goes
    settled = later + timedelta(seconds=5)
    moved = [observed_deployment("graceful", 3), observed_deployment("direct", 3)]
    record(repo, settled, *(snapshot(c, settled, objects=moved) for c in ("member2", "member3")))
    run_at(repo, settled, "reconcile")
    assert "gracefulEvictionTasks" not in binding(repo, "graceful")["spec"]
    assert not holds(repo, "member1", "graceful")
    # never back to member1 while it is tainted, and the output reads back
    assert placement(repo, "graceful") == {"member2": 3, "member3": 3}
    run_at(repo, settled, "verify")


def test_without_the_failover_gate_nothing_is_evicted_and_the_policy_says_why(tmp_path: Path) -> None:
    config = {**CONFIG, "featureGates": {"Failover": False}}
    repo = fleet(tmp_path, {"web": {"failover": {"cluster": {"purgeMode": "Directly"}}}}, config=config)
    down = T0 + timedelta(seconds=30)
    record(repo, down, snapshot("member1", down, ready="False"))
    done = run_at(repo, down + timedelta(hours=1), "reconcile")
    assert placement(repo, "web") == {"member1": 2, "member2": 2, "member3": 2}
    assert "feature gate Failover, which is off" in done.stderr


@pytest.mark.parametrize("rate", [0.5, 0.25])
def test_the_eviction_queue_paces_evictions_at_the_configured_rate(tmp_path: Path, rate: float) -> None:
    config = {**CONFIG, "failover": {"enableNoExecuteTaintEviction": True, "resourceEvictionRate": rate}}
    names = [f"app{n:02d}" for n in range(20)]
    # tolerating the taint for 0 s: every binding is due at once, and only the queue spaces them
    due = {"tolerations": tolerate(0), "failover": {"cluster": {"purgeMode": "Directly"}}}
    repo = fleet(tmp_path, dict.fromkeys(names, due), config=config)
    down = T0 + timedelta(seconds=100)
    record(repo, down, snapshot("member1", down, ready="False"))
    run_at(repo, down, "reconcile")
    queue = yaml.safe_load(git(repo.path, "show", "HEAD:karmada-state/eviction-queue.yaml"))
    assert len(queue["items"]) == 19  # one evicted at once, the rest wait their turn
    # a run much later (a status report moves the clock) takes every waiting item, each at its own turn
    later = down + timedelta(minutes=5)
    record(repo, later, snapshot("member2", later))
    run_at(repo, later, "reconcile")
    assert "karmada-state/eviction-queue.yaml" not in repo.tree("karmada-state")
    times = sorted(
        datetime.fromisoformat(binding(repo, name)["spec"]["gracefulEvictionTasks"][0]["creationTimestamp"])
        for name in names
    )
    gaps = {(later - earlier).total_seconds() for earlier, later in itertools.pairwise(times)}
    assert gaps == {1 / rate}
    assert times[0] == down
    assert all(placement(repo, name) == {"member2": 3, "member3": 3} for name in names)


def test_the_daemon_reconciles_status_reports_and_exports_karmadas_eviction_metrics(tmp_path: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    from tests.cli.watch_harness import Daemon, wait_for

    due = {"tolerations": tolerate(0), "failover": {"cluster": {"purgeMode": "Directly"}}}
    repo = fleet(tmp_path, {"api": due, "web": due})
    with Daemon.start(repo.path, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the first run (up to date)")
        down = T0 + timedelta(seconds=30)
        # a status report alone (the fleet branch did not move) starts a run: the interval is 60 s
        record(repo, down, snapshot("member1", down, ready="False"))
        wait_for(lambda: daemon.runs() == 2, "the run for the status report", timeout=30)
        assert placement(repo, "api") == {"member2": 3, "member3": 3}
        assert placement(repo, "web") == {"member1": 2, "member2": 2, "member3": 2}  # its turn is 2 s later
        _, text = daemon.get("/metrics")
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        assert samples[("eviction_queue_depth", (("name", "binding-eviction"),))] == 1
        assert samples[("eviction_queue_depth", (("name", "cluster-binding-eviction"),))] == 0
        processed = (("name", "binding-eviction"), ("result", "success"))
        assert samples[("eviction_processing_total", processed)] == 1
        kind = (("member_cluster", "member1"), ("resource_kind", "Deployment"))
        assert samples[("eviction_kind_total", kind)] == 1
        assert samples[("eviction_processing_latency_seconds_count", (("name", "binding-eviction"),))] == 1
        # the status page marks what the clusters reported: member1's report does not list web
        _, page = daemon.get("/")
        web_row = next(row for row in page.split("<tr>") if "Deployment.apps/default/web" in row)
        assert web_row.count('data-health="NotApplied"') == 1 and 'title="member1: NotApplied"' in web_row
        assert daemon.terminate() == 0
    logged = [e for e in daemon.entries() if e.get("logger") == "failover"]
    assert {(e.get("action"), e.get("cluster")) for e in logged} >= {
        ("evicted", "member1"),
        ("queued", "member1"),
    }


def test_status_reports_keep_the_incremental_engine_incremental(tmp_path: Path) -> None:
    """A template change after a report redoes that template only; a silent cluster (Ready turned Unknown,
    its taint dated when the heartbeat went stale) costs nothing on later runs either."""
    repo = fleet(tmp_path, {"api": {}, "web": {}})
    reported = T0 + timedelta(seconds=10)
    record(repo, reported, *(snapshot(c, reported) for c in CLUSTERS))
    run_at(repo, reported, "reconcile")
    repo.write("apps/web.yaml", deployment("web", replicas=6, image="nginx:1.28"))
    repo.commit("web: a new image")
    changed = run_at(repo, reported, "reconcile")
    assert "1 reused, 1 redone" in changed.stderr, changed.stderr
    # member3 falls silent: after the grace period its Ready is Unknown (a new cluster state: every template
    # is redone once); a later report from the others does not make it new again
    silent = reported + timedelta(seconds=120)
    record(repo, silent, *(snapshot(c, silent) for c in CLUSTERS[:2]))
    run_at(repo, silent, "reconcile")
    later = silent + timedelta(seconds=30)
    record(repo, later, *(snapshot(c, later) for c in CLUSTERS[:2]))
    again = run_at(repo, later, "reconcile")
    assert "2 reused, 0 redone" in again.stderr or "up to date" in again.stderr, again.stderr
