"""Issue 5 end to end: the eight multi-component kinds, a user Lua customization, hostile scripts, `interpret`."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from tests.builders import cluster_doc, deployment, pp_doc
from tests.core.interpreter.vectors import load_cases, normalized_components
from tests.fleet import FleetRepo, placement

if TYPE_CHECKING:
    from pathlib import Path

GATES = "featureGates:\n  MultiplePodTemplatesScheduling: true\n"
SINGLE_CLUSTER = {
    "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
}


def first_component_case_per_kind() -> list[dict[str, Any]]:
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for case in load_cases():
        target = (case["target"]["apiVersion"], case["target"]["kind"])
        if (
            case["operation"] == "InterpretComponent"
            and "components" in case["expected"]
            and target not in seen
        ):
            seen[target] = case
    return list(seen.values())


KIND_CASES = first_component_case_per_kind()


def test_all_eight_kinds_are_covered() -> None:
    assert {c["target"]["kind"] for c in KIND_CASES} == {
        "FlinkDeployment",
        "SparkApplication",
        "Job",
        "MPIJob",
        "RayCluster",
        "RayJob",
        "TFJob",
        "PyTorchJob",
    }


@pytest.mark.parametrize("case", KIND_CASES, ids=[c["target"]["kind"] for c in KIND_CASES])
def test_each_multi_component_kind_is_placed_whole_with_its_components(
    tmp_path: Path, case: dict[str, Any]
) -> None:
    obj = copy.deepcopy(case["input"]["object"])
    obj["metadata"] = {**obj.get("metadata", {}), "name": "workload", "namespace": "batch"}
    big = {"allocatable": {"cpu": "1000", "memory": "4000Gi", "pods": "1000", "nvidia.com/gpu": "100"}}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": GATES,
            "inventory/small.yaml": cluster_doc(
                "small", allocatable={"cpu": "0", "memory": "0", "pods": "0"}
            ),
            "inventory/big.yaml": cluster_doc("big", allocatable=big["allocatable"]),
            "apps/workload.yaml": obj,
            "p.yaml": pp_doc(
                "p",
                "batch",
                [{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}],
                placement=SINGLE_CLUSTER,
            ),
        },
    )
    repo.cli("reconcile")
    listing = repo.render_json()
    (item,) = listing["items"]
    assert normalized_components(item["spec"]["components"]) == normalized_components(
        case["expected"]["components"]
    )
    assert [c["name"] for c in item["spec"]["clusters"]] == ["big"], (
        "whole, into the one cluster that can hold it"
    )


FLINK_V116 = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "metadata": {"name": "flink-example", "namespace": "analytics"},
    "spec": {
        "jobManager": {"replicas": 1, "resource": {"cpu": 1, "memory": "1024m"}},
        "taskManager": {"replicas": 2, "resource": {"cpu": 2, "memory": "2048m"}},
    },
}


def test_v116_flink_example_lands_in_a_cluster_that_holds_one_jobmanager_and_two_taskmanagers(
    tmp_path: Path,
) -> None:
    def summary(cpu: str) -> dict[str, Any]:
        return {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"}}

    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": GATES,
            # a set needs 1x1 + 2x2 = 5 CPUs: only member3 can hold a complete set
            "inventory/member1.yaml": cluster_doc("member1", **summary("3")),
            "inventory/member2.yaml": cluster_doc("member2", **summary("4")),
            "inventory/member3.yaml": cluster_doc("member3", **summary("5")),
            "apps/flink.yaml": FLINK_V116,
            "p.yaml": pp_doc(
                "flink",
                "analytics",
                [{"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment"}],
                placement=SINGLE_CLUSTER,
            ),
        },
    )
    repo.cli("reconcile")
    (item,) = repo.render_json()["items"]
    assert [c["name"] for c in item["spec"]["clusters"]] == ["member3"]
    assert [(c["name"], c["replicas"]) for c in item["spec"]["components"]] == [
        ("jobmanager", 1),
        ("taskmanager", 2),
    ]
    assert item["spec"]["components"][0]["replicaRequirements"]["resourceRequest"] == {
        "cpu": "1",
        "memory": "1024m",
    }
    assert repo.exists("clusters/member3/analytics/flinkdeployment.flink.apache.org/flink-example.yaml")


WORKERS_RIC: dict[str, Any] = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "workers"},
    "spec": {
        "target": {"apiVersion": "example.com/v1", "kind": "Workers"},
        "customizations": {
            "replicaResource": {
                "luaScript": "function GetReplicas(obj)\n  return obj.spec.size, "
                "{resourceRequest = {cpu = obj.spec.cpu}}\nend\n"
            },
            "replicaRevision": {
                "luaScript": "function ReviseReplica(obj, desired)\n  obj.spec.size = desired\n"
                "  return obj\nend\n"
            },
        },
    },
}


def workers(name: str, size: int) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Workers",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"size": size, "cpu": "1"},
    }


def workers_fleet(tmp_path: Path, ric: dict[str, Any], **files: Any) -> FleetRepo:
    dynamic = {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    }
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "inventory/a.yaml": cluster_doc("a", allocatable={"cpu": "6", "memory": "64Gi", "pods": "110"}),
            "inventory/b.yaml": cluster_doc("b", allocatable={"cpu": "2", "memory": "64Gi", "pods": "110"}),
            "ric.yaml": ric,
            "apps/w.yaml": workers("w", 8),
            "apps/web.yaml": deployment("web", replicas=2),
            "p.yaml": [
                pp_doc(
                    "w", "default", [{"apiVersion": "example.com/v1", "kind": "Workers"}], placement=dynamic
                ),
                pp_doc("web", "default", [{"apiVersion": "apps/v1", "kind": "Deployment"}]),
            ],
            **files,
        },
    )


def test_a_user_lua_customization_changes_scheduling_as_karmada_would(tmp_path: Path) -> None:
    repo = workers_fleet(tmp_path, WORKERS_RIC)
    repo.cli("reconcile")
    # 8 replicas of 1 CPU divided by free capacity 6:2 -> 6/2, and the count written into spec.size
    assert placement(repo.render_json())["Workers/w"] == {"a": 6, "b": 2}
    assert repo.load("clusters/a/default/workers.example.com/w.yaml")["spec"]["size"] == 6
    assert repo.load("clusters/b/default/workers.example.com/w.yaml")["spec"]["size"] == 2
    record = repo.load("karmada-state/bindings/default/workers.example.com/w.yaml")
    assert record["spec"]["replicaRequirements"] == {"resourceRequest": {"cpu": "1"}}


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("function GetReplicas(obj)\n  while true do end\nend\n", "instruction"),
        ("function GetReplicas(obj)\n  os.execute('touch /tmp/pwned')\n  return 1\nend\n", "'execute'"),
        (
            "function GetReplicas(obj)\n  local t = {}\n  for i = 1, 1e9 do t[i] = string.rep('x', 100000) .. i end\nend\n",
            "memory",
        ),
    ],
    ids=["infinite-loop", "os-execute", "huge-allocation"],
)
def test_a_hostile_script_fails_its_template_and_the_run_goes_on(
    tmp_path: Path, script: str, message: str
) -> None:
    hostile = copy.deepcopy(WORKERS_RIC)
    hostile["spec"]["customizations"] = {"replicaResource": {"luaScript": script}}
    repo = workers_fleet(tmp_path, hostile)
    done = repo.cli("reconcile", check=1)
    assert 'ResourceInterpreterCustomization "workers"' in done.stderr
    assert "InterpretReplica" in done.stderr
    assert message in done.stderr.lower()
    assert repo.exists("clusters/a/default/deployment.apps/web.yaml"), "the other templates are rendered"
    assert not repo.exists("clusters/a/default/workers.example.com/w.yaml")


@pytest.mark.parametrize(
    "script",
    [
        # the error handler of xpcall runs with hooks off: only the wall clock can stop it
        "function GetReplicas(obj)\n  xpcall(function() error('x') end, function() while true do end end)\nend\n",
        # one string.find that backtracks for minutes is a single Lua instruction
        "function GetReplicas(obj)\n  string.find(string.rep('a', 5000), '.-.-.-.-.-.-.-.-x')\nend\n",
    ],
    ids=["xpcall-handler-loop", "backtracking-pattern"],
)
def test_a_script_that_never_returns_is_stopped_by_the_configured_time_limit(
    tmp_path: Path, script: str
) -> None:
    hostile = copy.deepcopy(WORKERS_RIC)
    hostile["spec"]["customizations"] = {"replicaResource": {"luaScript": script}}
    repo = workers_fleet(tmp_path, hostile, **{"gitops-karmada.yaml": "lua:\n  callTimeoutSeconds: 0.5\n"})
    done = repo.cli("reconcile", check=1)
    assert 'ResourceInterpreterCustomization "workers"' in done.stderr
    assert "time limit of 0.5 s exceeded" in done.stderr
    assert repo.exists("clusters/a/default/deployment.apps/web.yaml"), "the other templates are rendered"
    assert not repo.exists("clusters/a/default/workers.example.com/w.yaml")


def test_lua_time_limits_outside_their_bounds_are_refused_by_validate(tmp_path: Path) -> None:
    repo = workers_fleet(tmp_path, WORKERS_RIC, **{"gitops-karmada.yaml": "lua:\n  callTimeoutSeconds: 0\n"})
    done = repo.cli("validate", check=1)
    assert "gitops-karmada.yaml[0] lua.callTimeoutSeconds: must be > 0" in done.stderr


def test_interpret_command_checks_and_runs_a_customization(tmp_path: Path) -> None:
    repo = workers_fleet(tmp_path, WORKERS_RIC)
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(workers("w", 5)))
    assert repo.cli("interpret", "--check").stdout == "workers: ok\n"
    done = repo.cli(
        "interpret", "--operation", "InterpretReplica", "--desired-file", str(tmp_path / "w.yaml")
    )
    assert yaml.safe_load(done.stdout) == {"replicas": 5, "requires": {"resourceRequest": {"cpu": "1"}}}
    assert "answered by customization/workers" in done.stderr
    broken = copy.deepcopy(WORKERS_RIC)
    broken["spec"]["customizations"]["replicaResource"]["luaScript"] = "function GetReplicas(obj\n"
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    checked = repo.cli("interpret", "-f", str(tmp_path / "broken.yaml"), "--check", check=1)
    assert checked.stdout.startswith("workers: ")
    assert "ok" not in checked.stdout
