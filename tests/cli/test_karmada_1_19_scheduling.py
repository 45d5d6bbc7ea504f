"""Issue 35 items 2 and 3 through the CLI on real repositories: which overflow tier each replica is in
(``explain`` and the PR diff), ``reschedule`` returning to the first clusterAffinities term from v1.19 (spec
§3), and multi-component scheduling from one component (spec §4.1, §4.2) as the README's table says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import yaml

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo, placement
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
DYNAMIC = {
    "replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted",
    "weightPreference": {"dynamicWeight": "AvailableReplicas"},
}


def config(version: str, **gates: bool) -> str:
    return yaml.safe_dump({"karmadaVersion": version, **({"featureGates": gates} if gates else {})})


def overflow_fleet(tmp_path: Path) -> FleetRepo:
    """Spec §2.5's worked example: idc-1 has room for 4, cloud-1 and cloud-2 for 10 each; 10 replicas."""
    placement_ = {
        "clusterAffinities": [
            {
                "affinityName": "on-prem",
                "clusterNames": ["idc-1"],
                "overflowAffinities": [{"affinityName": "cloud", "clusterNames": ["cloud-1", "cloud-2"]}],
            }
        ],
        "replicaScheduling": DYNAMIC,
    }
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config("v1.19"),
            "inventory/idc-1.yaml": cluster_doc("idc-1", allocatable={"pods": "4"}),
            "inventory/cloud-1.yaml": cluster_doc("cloud-1", allocatable={"pods": "10"}),
            "inventory/cloud-2.yaml": cluster_doc("cloud-2", allocatable={"pods": "10"}),
            "apps/web.yaml": deployment("web", replicas=10),
            "policy.yaml": pp_doc("web", "default", DEPLOYMENTS, placement=placement_),
        },
    )


def test_explain_and_the_diff_say_which_tier_each_replica_is_in(tmp_path: Path) -> None:
    repo = overflow_fleet(tmp_path)
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"idc-1": 4, "cloud-1": 3, "cloud-2": 3}
    text = repo.cli("explain", "Deployment/default/web").stdout
    # what the binding records, tier by tier (the re-evaluation above it shows what a schedule would do now)
    assert (
        "idc-1: 4 replica(s) in overflow tier on-prem -> clusters/idc-1/default/deployment.apps/web.yaml"
        in text
    )
    assert "cloud-1: 3 replica(s) in overflow tier cloud -> " in text
    tiers = next(line for line in text.splitlines() if line.strip().startswith("overflow tiers:"))
    assert "in tier on-prem" in tiers and "in tier cloud" in tiers, tiers
    index = repo.read("karmada-state/index/default.json")
    assert '"tiers":{"cloud-1":"cloud","cloud-2":"cloud","idc-1":"on-prem"}' in index.replace(" ", "")
    # a pull request scales down to 3: the primary tier keeps them, the overflow tier empties (§2.6)
    git(repo.path, "checkout", "-q", "-b", "feature")
    repo.write("apps/web.yaml", deployment("web", replicas=3))
    repo.commit("scale down")
    diff = repo.cli("diff", "--base", "main", check=None).stdout
    assert "4 → 3 (on-prem)" in diff, diff
    assert "3 → – (cloud)" in diff, diff
    markdown = repo.cli("diff", "--base", "main", "-o", "markdown", check=None).stdout
    assert "**4 → 3 (on-prem)**" in markdown, markdown


@pytest.mark.parametrize(("version", "after"), [("v1.19", {"m1": 2}), ("v1.18", {"m2": 2})])
def test_reschedule_starts_again_at_the_first_term_from_1_19(
    tmp_path: Path, version: str, after: dict[str, int]
) -> None:
    """The first term's cluster is tainted, so the second term places the workload; the taint goes, and a
    Divided workload keeps its result (nothing triggers it) until ``reschedule``: v1.19 starts again at the
    first term, v1.18 resumes at the observed one (spec §3)."""
    terms = [
        {"affinityName": "primary", "clusterNames": ["m1"]},
        {"affinityName": "backup", "clusterNames": ["m2"]},
    ]
    aggregated = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
    room = {"pods": "10"}
    tainted = cluster_doc("m1", allocatable=room, taints=[{"key": "maintenance", "effect": "NoSchedule"}])
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config(version),
            "inventory/m1.yaml": tainted,
            "inventory/m2.yaml": cluster_doc("m2", allocatable=room),
            "apps/web.yaml": deployment("web", replicas=2),
            "policy.yaml": pp_doc(
                "web",
                "default",
                DEPLOYMENTS,
                placement={"clusterAffinities": terms, "replicaScheduling": aggregated},
            ),
        },
    )
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"m2": 2}
    repo.write("inventory/m1.yaml", cluster_doc("m1", allocatable=room))
    repo.commit("maintenance over")
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"m2": 2}
    repo.cli("reschedule", "Deployment/default/web", "--allow", "cluster-emptied")
    assert placement(repo.render_json())["Deployment/web"] == after


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
                "    out[i] = {name = p.name, replicas = p.replicas,\n"
                "      replicaRequirements = {resourceRequest = {cpu = p.cpu}}}\n"
                "  end\n  return out\nend\n"
            }
        },
    },
}


@pytest.mark.parametrize(
    ("version", "placed"), [("v1.19", "z-big"), ("v1.18", "z-big"), ("v1.17", "a-small")]
)
def test_one_component_is_scheduled_as_a_component_set_from_1_18(
    tmp_path: Path, version: str, placed: str
) -> None:
    """A single-component workload that does not fit ``a-small`` (1 CPU free, it asks 2): from v1.18 one
    component counts for component-set scheduling and selection asks for one available set, so ``z-big`` is
    chosen; v1.17 needs two components, so no set is estimated and the name order picks ``a-small``. The
    README's "multi-template scheduling from" row."""
    one_cluster = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config(version, MultiplePodTemplatesScheduling=True),
            "inventory/z-big.yaml": cluster_doc("z-big", allocatable={"cpu": "8", "pods": "100"}),
            "inventory/a-small.yaml": cluster_doc("a-small", allocatable={"cpu": "1", "pods": "100"}),
            "ric.yaml": PARTS_RIC,
            "apps/one.yaml": {
                "apiVersion": "example.com/v1",
                "kind": "Parts",
                "metadata": {"name": "one", "namespace": "default"},
                "spec": {"parts": [{"name": "main", "replicas": 1, "cpu": "2"}]},
            },
            "policy.yaml": pp_doc(
                "parts", "default", [{"apiVersion": "example.com/v1", "kind": "Parts"}], placement=one_cluster
            ),
        },
    )
    repo.cli("reconcile")
    record = repo.load("karmada-state/bindings/default/parts.example.com/one.yaml")["spec"]
    assert record["clusters"] == [{"name": placed}]


@pytest.mark.parametrize(
    ("version", "after"),
    [("v1.17", {"m1": 2, "m2": 1}), ("v1.16", {"m1": 1, "m2": 1, "m3": 1})],
)
def test_a_dynamic_scale_down_weighs_only_clusters_still_candidates_from_1_17(
    tmp_path: Path, version: str, after: dict[str, int]
) -> None:
    """6 replicas over m1-m3 (2 each); one commit drops m3 from the affinity and scales to 3. From v1.17 the
    scale-down weighs m1 and m2 only (spec §12); v1.16 weighs every previous cluster, m3 included, and keeps
    a seat there. The README's "Dynamic scale-down weights" row."""

    def files(clusters: list[str], replicas: int) -> dict[str, Any]:
        return {
            "apps/web.yaml": deployment("web", replicas=replicas),
            "policy.yaml": pp_doc(
                "web",
                "default",
                DEPLOYMENTS,
                placement={"clusterAffinity": {"clusterNames": clusters}, "replicaScheduling": DYNAMIC},
            ),
        }

    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config(version),
            **{f"inventory/{c}.yaml": cluster_doc(c, allocatable={"pods": "10"}) for c in ("m1", "m2", "m3")},
            **files(["m1", "m2", "m3"], 6),
        },
    )
    repo.cli("reconcile")
    assert placement(repo.render_json())["Deployment/web"] == {"m1": 2, "m2": 2, "m3": 2}
    for name, content in files(["m1", "m2"], 3).items():
        repo.write(name, content)
    repo.commit("leave m3, scale down")
    repo.cli("reconcile", "--allow", "all", check=None)
    assert placement(repo.render_json())["Deployment/web"] == after


def test_explain_shows_the_schedule_priority_from_the_repositorys_priority_class(tmp_path: Path) -> None:
    urgent = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "urgent"}}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "inventory/m1.yaml": cluster_doc("m1"),
            "apps/web.yaml": deployment("web", replicas=1),
            "apps/urgent.yaml": {**urgent, "value": 1000},
            "policy.yaml": pp_doc(
                "web", "default", DEPLOYMENTS, schedulePriority={"priorityClassName": "urgent"}
            ),
        },
    )
    repo.cli("reconcile")
    assert (
        "  schedulePriority 1000: scheduled before the templates of lower priority"
        in repo.cli("explain", "Deployment/default/web").stdout
    )
    record = repo.load("karmada-state/bindings/default/deployment.apps/web.yaml")
    assert record["spec"]["schedulePriority"] == {"priority": 1000}
    # the PriorityClass gone: the binding cannot be built, the template keeps what it had (an error)
    repo.delete("apps/urgent.yaml")
    repo.commit("PriorityClass removed")
    done = repo.cli("reconcile", check=1)
    assert (
        "cannot build its binding: PriorityClass 'urgent' (schedulePriority.priorityClassName) is not in the repository"
        in done.stderr
    )
    assert repo.exists("clusters/m1/default/deployment.apps/web.yaml")
