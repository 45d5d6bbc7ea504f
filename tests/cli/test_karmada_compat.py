"""Issue 16: Karmada's own documents read unchanged, each as Karmada treats it (end to end, real Git)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo, placement

if TYPE_CHECKING:
    from pathlib import Path

DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]


def fleet(tmp_path: Path, **files: Any) -> FleetRepo:
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "inventory/member1.yaml": cluster_doc("member1"),
            "inventory/member2.yaml": cluster_doc(
                "member2", taints=[{"key": "dedicated", "effect": "NoSchedule"}]
            ),
            "apps/web.yaml": deployment("web", replicas=2),
            **files,
        },
    )


def test_a_policy_for_another_scheduler_is_left_unscheduled_and_named(tmp_path: Path) -> None:
    policy = pp_doc("web", "default", DEPLOYMENTS, schedulerName="custom-scheduler")
    repo = fleet(tmp_path, **{"policy.yaml": policy})
    done = repo.cli("reconcile")
    assert "schedulerName is 'custom-scheduler'" in done.stderr
    assert "it stays unscheduled and nothing is rendered" in done.stderr
    assert not repo.tree("clusters/")
    record = repo.load("karmada-state/bindings/default/deployment.apps/web.yaml")
    assert record["spec"]["schedulerName"] == "custom-scheduler"
    assert record["spec"]["clusters"] == []
    # switching to the default scheduler schedules it; switching away again keeps what it had
    repo.write("policy.yaml", pp_doc("web", "default", DEPLOYMENTS))
    repo.commit("default scheduler")
    repo.cli("reconcile")
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")
    repo.write("policy.yaml", policy)
    repo.commit("custom scheduler again")
    done = repo.cli("reconcile")
    assert "its previous clusters are kept" in done.stderr
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")
    assert repo.cli("verify").returncode == 0


def test_karmadas_keyless_toleration_example_is_accepted_and_tolerates_empty_value_taints(
    tmp_path: Path,
) -> None:
    # artifacts/example/propagationpolicy_taintToleration.yaml: {effect: NoSchedule}, no key, no operator
    policy = pp_doc(
        "web",
        "default",
        DEPLOYMENTS,
        placement={"clusterTolerations": [{"effect": "NoSchedule"}]},
    )
    repo = fleet(tmp_path, **{"policy.yaml": policy})
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"member1": 2, "member2": 2}


PARTS_RIC: dict[str, Any] = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "parts"},
    "spec": {
        "target": {"apiVersion": "example.com/v1", "kind": "Parts"},
        "customizations": {
            "componentResource": {
                "luaScript": "function GetComponents(obj)\n  local out = {}\n"
                "  for i, p in ipairs(obj.spec.parts) do\n"
                "    out[i] = {name = p.name, replicas = p.replicas}\n  end\n  return out\nend\n"
            }
        },
    },
}


def parts(name: str, *names: str) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Parts",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"parts": [{"name": n, "replicas": 1} for n in names]},
    }


def test_per_cluster_components_are_recorded_only_for_more_than_one_component(tmp_path: Path) -> None:
    # spec §4.3 (v1.19): with the gate, more than one component and the one-cluster spread constraint
    one_cluster = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]}
    parts_selector = [{"apiVersion": "example.com/v1", "kind": "Parts"}]
    repo = fleet(
        tmp_path,
        **{
            "gitops-karmada.yaml": "featureGates:\n  MultiplePodTemplatesScheduling: true\n",
            "ric.yaml": PARTS_RIC,
            "apps/one.yaml": parts("one", "main"),
            "apps/two.yaml": parts("two", "jobmanager", "taskmanager"),
            "policy.yaml": pp_doc("parts", "default", parts_selector, placement=one_cluster),
        },
    )
    repo.cli("reconcile")
    one = repo.load("karmada-state/bindings/default/parts.example.com/one.yaml")["spec"]
    two = repo.load("karmada-state/bindings/default/parts.example.com/two.yaml")["spec"]
    assert one["components"] == [{"name": "main", "replicas": 1}]
    assert one["clusters"] == [{"name": "member1"}]
    assert two["clusters"] == [
        {
            "name": "member1",
            "components": [{"name": "jobmanager", "replicas": 1}, {"name": "taskmanager", "replicas": 1}],
        }
    ]
    # without the spread constraint, or following v1.18, the legacy result: the cluster's name alone
    repo.write("policy.yaml", pp_doc("parts", "default", parts_selector))
    repo.commit("no spread constraint")
    repo.cli("reconcile")
    two = repo.load("karmada-state/bindings/default/parts.example.com/two.yaml")["spec"]
    assert two["clusters"] == [{"name": "member1"}]
    repo.write("policy.yaml", pp_doc("parts", "default", parts_selector, placement=one_cluster))
    repo.write(
        "gitops-karmada.yaml",
        "karmadaVersion: v1.18\nfeatureGates:\n  MultiplePodTemplatesScheduling: true\n",
    )
    repo.commit("follow v1.18")
    repo.cli("reconcile")
    two = repo.load("karmada-state/bindings/default/parts.example.com/two.yaml")["spec"]
    assert two["clusters"] == [{"name": "member1"}]


def test_workload_affinity_is_validated_and_reported_as_not_applied_without_its_gate(tmp_path: Path) -> None:
    affinity = {"affinity": {"groupByLabelKey": "app.example.com/group"}}
    policy = pp_doc("web", "default", DEPLOYMENTS, placement={"workloadAffinity": affinity})
    repo = fleet(tmp_path, **{"policy.yaml": policy})
    done = repo.cli("reconcile")
    assert (
        "policy.yaml[0] spec.placement.workloadAffinity: workloadAffinity is validated but not applied: "
        "Karmada's scheduler honours it only with the feature gate WorkloadAffinity, which is off"
        in done.stderr
    )
    assert placement(repo.render_json())["Deployment/web"] == {"member1": 2}
    bad = pp_doc(
        "web",
        "default",
        DEPLOYMENTS,
        placement={"workloadAffinity": {"antiAffinity": {"groupByLabelKey": "a b"}}},
    )
    repo.write("policy.yaml", bad)
    repo.commit("bad key")
    done = repo.cli("validate", check=1)
    assert (
        'policy.yaml[0] spec.placement.workloadAffinity.antiAffinity.groupByLabelKey: Invalid value: "a b"'
        in done.stderr
    )


def test_one_policy_with_an_invalid_label_selector_affects_only_its_own_templates(tmp_path: Path) -> None:
    broken = pp_doc(
        "broken",
        "default",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"": "web"}}}],
    )
    repo = fleet(
        tmp_path,
        **{
            "policy.yaml": [broken, pp_doc("svc", "default", [{"apiVersion": "v1", "kind": "Service"}])],
            "apps/svc.yaml": {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"ports": [{"port": 80}]},
            },
        },
    )
    done = repo.cli("reconcile")
    assert "policy.yaml[0] spec.resourceSelectors[0].labelSelector: invalid label selector (matchLabels:" in (
        done.stderr
    )
    assert "apps/web.yaml[0]: no propagation policy selects" in done.stderr
    assert repo.exists("clusters/member1/default/service/web.yaml")
    assert not repo.exists("clusters/member1/default/deployment.apps/web.yaml")


STATUS_RIC: dict[str, Any] = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "workers"},
    "spec": {
        "target": {"apiVersion": "example.com/v1", "kind": "Workers"},
        "customizations": {
            "replicaResource": {"luaScript": "function GetReplicas(obj)\n  return obj.spec.size\nend\n"},
            "replicaRevision": {
                "luaScript": "function ReviseReplica(obj, n)\n  obj.spec.size = n\n  return obj\nend\n"
            },
            "retention": {
                "luaScript": "function Retain(desired, observed)\n"
                "  desired.spec.paused = observed.spec.paused\n  return desired\nend\n"
            },
            "statusAggregation": {
                "luaScript": "function AggregateStatus(desired, statusItems)\n"
                "  if statusItems == nil then return desired end\n"
                "  local names = {}\n"
                "  for _, item in ipairs(statusItems) do\n"
                "    names[#names + 1] = item.clusterName .. '=' .. tostring(item.status and item.status.ready)\n"
                "  end\n"
                "  desired.status = {clusters = table.concat(names, ','), at = os.date('!%Y-%m-%dT%H:%M:%SZ')}\n"
                "  return desired\nend\n"
            },
        },
    },
}
WORKERS_YAML = (
    "apiVersion: example.com/v1\nkind: Workers\nmetadata:\n  name: w\n  namespace: default\n"
    "  creationTimestamp: 2024-01-01T00:00:00Z\nspec:\n  size: 3\n  paused: false\n"
)


def test_karmadactl_interpret_command_forms_work_verbatim(tmp_path: Path) -> None:
    repo = FleetRepo.create(tmp_path / "fleet", {"ric.yaml": STATUS_RIC})
    (tmp_path / "observed.yaml").write_text(WORKERS_YAML.replace("paused: false", "paused: true"))
    (tmp_path / "desired.yaml").write_text(WORKERS_YAML)
    observed, desired = str(tmp_path / "observed.yaml"), str(tmp_path / "desired.yaml")
    # either object file for a one-object operation; the operation in any case
    done = repo.cli("interpret", "--observed-file", observed, "--operation", "interpretReplica")
    assert yaml.safe_load(done.stdout) == {"replicas": 3}
    done = repo.cli(
        "interpret", "--desired-replica", "5", "--observed-file", observed, "--operation", "REVISEREPLICA"
    )
    revised = yaml.safe_load(done.stdout)
    assert revised["spec"]["size"] == 5
    # the Kubernetes-faithful loader: a timestamp stays the string it was
    assert "creationTimestamp: '2024-01-01T00:00:00Z'" in done.stdout or (
        'creationTimestamp: "2024-01-01T00:00:00Z"' in done.stdout
    )
    done = repo.cli(
        "interpret", "--desired-file", desired, "--observed-file", observed, "--operation", "retain"
    )
    assert yaml.safe_load(done.stdout)["spec"]["paused"] is True
    both = repo.cli(
        "interpret",
        "--desired-file",
        desired,
        "--observed-file",
        observed,
        "--operation",
        "InterpretHealth",
        check=2,
    )
    assert "takes one object" in both.stderr
    # karmadactl's status file: one item per document; unknown keys ignored, clusterName may be missing
    (tmp_path / "status.yaml").write_text(
        "clusterName: member1\nstatus: {ready: 2}\napplied: true\nextra: ignored\n---\nstatus: {ready: 1}\n"
    )
    done = repo.cli(
        "interpret",
        "--desired-file",
        desired,
        "--operation",
        "aggregatestatus",
        "--status-file",
        str(tmp_path / "status.yaml"),
        "--now",
        "2026-11-24T06:00:00Z",
    )
    assert yaml.safe_load(done.stdout)["status"] == {"clusters": "member1=2,=1", "at": "2026-11-24T06:00:00Z"}
    # no status file: the script sees nil
    done = repo.cli("interpret", "--desired-file", desired, "--operation", "AggregateStatus")
    assert "status" not in yaml.safe_load(done.stdout)
