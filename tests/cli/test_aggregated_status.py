"""Status back to the template: what member clusters report is folded into the binding record's
``templateStatus`` (Karmada's AggregateStatus) and shown by ``get -o wide``, ``describe`` and the index the
status page reads; ``render -o json`` carries the eviction queue's metrics of its run.

Real repositories and the real CLI (in process); snapshots are recorded with ``collect --snapshot``.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from tests.builders import cluster_doc, pp_doc
from tests.cli.test_failover import (
    CONFIG,
    T0,
    binding,
    binding_at,
    fleet,
    observed_deployment,
    record,
    run_at,
    snapshot,
    tolerate,
)
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

REPORTED = T0 + timedelta(seconds=10)


def _reported_fleet(tmp_path: Path) -> FleetRepo:
    """web: 2 ready of 2 on member1, 1 of 2 on member2, absent from member3."""
    repo = fleet(tmp_path, {"web": {}})
    record(
        repo,
        REPORTED,
        snapshot("member1", REPORTED, objects=[observed_deployment("web", 2)]),
        snapshot("member2", REPORTED, objects=[observed_deployment("web", 2, ready=1)]),
        snapshot("member3", REPORTED),
    )
    run_at(repo, REPORTED, "reconcile")
    return repo


def test_the_template_status_sums_what_the_clusters_reported_and_get_and_describe_show_it(
    tmp_path: Path,
) -> None:
    repo = _reported_fleet(tmp_path)
    status = binding(repo, "web")["status"]
    # Deployment's AggregateStatus sums the counters of the clusters that have the object
    assert status["templateStatus"] == {
        "replicas": 4,
        "readyReplicas": 3,
        "updatedReplicas": 4,
        "availableReplicas": 3,
    }
    listed = json.loads(run_at(repo, REPORTED, "get", "rb", "-o", "json").stdout)
    (item,) = listed["items"]
    assert item["status"]["templateStatus"]["readyReplicas"] == 3

    wide = run_at(repo, REPORTED, "get", "rb", "-o", "wide").stdout.splitlines()
    header, row = wide[0].split(), wide[1].split()
    cells = dict(zip(header, row, strict=False))
    assert cells["READY"] == "3/4"
    assert cells["HEALTH"] == "Unhealthy(member2);NotApplied(member3)"

    described = json.loads(run_at(repo, REPORTED, "describe", "Deployment/default/web", "-o", "json").stdout)
    assert described["Ready"] == "3/4"
    assert json.loads(described["Template Status"])["availableReplicas"] == 3
    assert [(r["CLUSTER"], r["APPLIED"], r["HEALTH"]) for r in described["Member Status"]] == [
        ("member1", "yes", "Healthy"),
        ("member2", "yes", "Unhealthy"),
        ("member3", "no", "Unknown"),
    ]
    assert described["Member Status"][2]["STATUS"] == "not found in the member cluster"

    # the state index carries the summary the status page shows, so the page reads no record
    index = git(repo.path, "show", "HEAD:karmada-state/index/default.json").splitlines()
    entry = json.loads(next(line for line in index if "apps/Deployment/default/web" in line).split(":", 1)[1])
    assert entry["health"] == {"member1": "Healthy", "member2": "Unhealthy", "member3": "NotApplied"}
    assert entry["ready"] == "3/4"
    # the tool's own output reads back: verify re-renders the same records from the recorded status
    run_at(repo, REPORTED, "verify")


def test_a_new_report_changes_the_template_status_and_nothing_else(tmp_path: Path) -> None:
    repo = _reported_fleet(tmp_path)
    later = REPORTED + timedelta(seconds=10)
    healthy = [observed_deployment("web", 2)]
    record(repo, later, *(snapshot(c, later, objects=healthy) for c in ("member1", "member2", "member3")))
    run_at(repo, later, "reconcile")
    changed = git(repo.path, "diff", "--name-only", "HEAD~1", "HEAD").split()
    assert changed == [
        "karmada-state/bindings/default/deployment.apps/web.yaml",
        "karmada-state/index/default.json",
    ]
    status = binding(repo, "web")["status"]
    assert status["templateStatus"]["readyReplicas"] == 6
    wide = run_at(repo, later, "get", "rb", "-o", "wide").stdout.splitlines()
    cells = dict(zip(wide[0].split(), wide[1].split(), strict=False))
    assert (cells["READY"], cells["HEALTH"]) == ("6/6", "Healthy")


def test_without_reports_nothing_is_said(tmp_path: Path) -> None:
    repo = fleet(tmp_path, {"web": {}})
    status = binding(repo, "web")["status"]
    assert "templateStatus" not in status and "aggregatedStatus" not in status
    wide = run_at(repo, T0, "get", "rb", "-o", "wide").stdout.splitlines()
    cells = dict(zip(wide[0].split(), wide[1].split(), strict=False))
    assert (cells["READY"], cells["HEALTH"]) == ("-", "-")


def _job(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "completions": 1,
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
            },
        },
    }


def _observed_job(name: str, *, complete: bool) -> dict[str, Any]:
    status: dict[str, Any] = {"startTime": "2026-01-02T03:04:06Z"}
    if complete:
        status |= {
            "succeeded": 1,
            "completionTime": "2026-01-02T03:04:09Z",
            "conditions": [{"type": "Complete", "status": "True"}],
        }
    else:
        status |= {"active": 1}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "namespace": "default",
        "name": name,
        "observed": {**_job(name), "status": status},
    }


def test_a_jobs_completion_is_dated_by_the_report_that_showed_it_and_then_kept(tmp_path: Path) -> None:
    """Karmada stamps a Job's aggregated conditions with the current time and never touches a finished
    Job again; here the time is the newest report's, so the same reports give the same record on every
    run and every machine, and later reports leave the finished status as it was."""
    files = {
        "gitops-karmada.yaml": CONFIG,
        **{f"inventory/{c}.yaml": cluster_doc(c) for c in ("member1", "member2")},
        "apps/batch.yaml": _job("batch"),
        "policies/batch.yaml": pp_doc(
            "batch",
            "default",
            [{"apiVersion": "batch/v1", "kind": "Job", "name": "batch"}],
            placement={"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
        ),
    }
    repo = FleetRepo.create(tmp_path / "fleet", files)
    run_at(repo, T0, "reconcile")

    def folded() -> dict[str, Any]:
        found: dict[str, Any] = binding_at(repo, "default", "job.batch", "batch")["status"]["templateStatus"]
        return found

    first, second, third = (T0 + timedelta(seconds=s) for s in (10, 20, 30))
    done, running = _observed_job("batch", complete=True), _observed_job("batch", complete=False)
    record(
        repo, first, snapshot("member1", first, objects=[done]), snapshot("member2", first, objects=[running])
    )
    run_at(repo, first, "reconcile")
    assert folded()["active"] == 1 and "conditions" not in folded()

    record(repo, second, snapshot("member2", second, objects=[done]))
    run_at(repo, second + timedelta(minutes=5), "reconcile")
    assert folded()["succeeded"] == 2
    complete = next(c for c in folded()["conditions"] if c["type"] == "Complete")
    assert complete["status"] == "True"
    assert complete["lastTransitionTime"] == second.strftime("%Y-%m-%dT%H:%M:%SZ")
    run_at(repo, second + timedelta(minutes=9), "verify")

    # a later report that differs (member1 says its copy completed later) is not folded into a finished Job
    finished = folded()
    rerun = _observed_job("batch", complete=True)
    rerun["observed"]["status"]["completionTime"] = "2026-01-02T03:04:19Z"
    record(repo, third, snapshot("member1", third, objects=[rerun]))
    run_at(repo, third, "reconcile")
    items = binding_at(repo, "default", "job.batch", "batch")["status"]["aggregatedStatus"]
    assert items[0]["status"]["completionTime"] == "2026-01-02T03:04:19Z"  # the item changed ...
    assert folded() == finished  # ... the finished template status did not
    run_at(repo, third, "verify")


def test_render_json_carries_the_eviction_queues_metrics_under_karmadas_names(tmp_path: Path) -> None:
    due = {"tolerations": tolerate(0), "failover": {"cluster": {"purgeMode": "Directly"}}}
    repo = fleet(tmp_path, {"api": due, "web": due})
    down = T0 + timedelta(seconds=30)
    record(repo, down, snapshot("member1", down, ready="False"))
    rendered = json.loads(run_at(repo, down, "render", "-o", "json").stdout)
    metrics = rendered["metrics"]

    def value(metric: str, **labels: str) -> float:
        return float(next(s for s in metrics[metric] if s["labels"] == labels)["value"])

    # one eviction now, the other waits its turn (1 / 0.5 per second later)
    assert value("eviction_queue_depth", name="binding-eviction") == 1
    assert value("eviction_queue_depth", name="cluster-binding-eviction") == 0
    assert value("eviction_processing_total", name="binding-eviction", result="success") == 1
    assert value("eviction_kind_total", member_cluster="member1", resource_kind="Deployment") == 1
    latency = next(
        s for s in metrics["eviction_processing_latency_seconds"] if s["labels"]["name"] == "binding-eviction"
    )
    assert latency["count"] == 1
    assert len(rendered["items"]) == 2

    # without the Failover gate there is no queue, and no metrics to show
    off = {**CONFIG, "featureGates": {"Failover": False}}
    quiet = fleet(tmp_path / "off", {"web": {}}, config=off)
    assert "metrics" not in json.loads(run_at(quiet, T0, "render", "-o", "json").stdout)
