"""A fleet whose policies use every Placement field Karmada has, placed through the CLI.

Each expected placement is worked out by hand from Karmada's rules (the reasoning is next to it), not
copied from a run. ``test_the_fleet_uses_every_placement_field`` keeps the fleet complete when the
Placement model grows a field.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.model.compatibility import Section, field_rows
from gitops_karmada.model.policies import Placement
from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo, placement

PODS = "110"


def _cluster(name: str, *, cpu: str, **kwargs: Any) -> dict[str, Any]:
    return cluster_doc(name, allocatable={"cpu": cpu, "pods": PODS}, **kwargs)


CLUSTERS = {
    # name: provider, region, zone, labels, cpu (1 cpu = 1 replica of the templates that request cpu)
    "m1": _cluster("m1", cpu="100", provider="aws", region="us-east", zones=["us-east-1a"],
                   labels={"env": "prod", "tier": "gold"}),
    "m2": _cluster("m2", cpu="40", provider="aws", region="us-east", zones=["us-east-1b"],
                   labels={"env": "prod", "tier": "silver"}),
    "m3": _cluster("m3", cpu="20", provider="gcp", region="eu-west", zones=["eu-west-1a"],
                   labels={"env": "prod", "tier": "gold"},
                   taints=[{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}]),
    "m4": _cluster("m4", cpu="10", provider="gcp", region="eu-west", zones=["eu-west-1b"],
                   labels={"env": "staging"}),
    "m5": _cluster("m5", cpu="10", provider="azure", region="ap-south", zones=["ap-south-1a"],
                   labels={"env": "prod"}),
    "m6": _cluster("m6", cpu="10", provider="azure", region="ap-south", labels={"env": "dev"},
                   taints=[{"key": "maintenance", "effect": "NoSchedule"}]),
}  # fmt: skip


def _policy(name: str, **placement_fields: Any) -> dict[str, Any]:
    selector = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}]
    return pp_doc(name, "default", selector, placement=placement_fields)


POLICIES: dict[str, dict[str, Any]] = {
    # clusterAffinity: every condition must hold (exclude, labels, fields, names): m1 and m3; m3's
    # dedicated=ml taint is tolerated; static weights 2:1 divide 6 replicas 4/2.
    "affinity": _policy(
        "affinity",
        clusterAffinity={
            "labelSelector": {
                "matchLabels": {"env": "prod"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold", "silver"]}],
            },
            "fieldSelector": {
                "matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws", "gcp"]}]
            },
            "clusterNames": ["m1", "m2", "m3"],
            "exclude": ["m2"],
        },
        clusterTolerations=[
            {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
            {"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        ],
        replicaScheduling={
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {
                        "targetCluster": {  # m1 only: gold, prod, on aws
                            "labelSelector": {
                                "matchLabels": {"tier": "gold"},
                                "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}],
                            },
                            "fieldSelector": {
                                "matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws"]}]
                            },
                            "exclude": ["m2"],
                        },
                        "weight": 2,
                    },
                    {"targetCluster": {"clusterNames": ["m3"]}, "weight": 1},
                ]
            },
        },
    ),
    # clusterAffinities: the first term's only cluster (m6) has an untolerated NoSchedule taint, so the
    # scheduler falls back to the second term: untiered staging clusters in eu-west but m3, i.e. m4; Duplicated.
    "fallback": _policy(
        "fallback",
        clusterAffinities=[
            {"affinityName": "primary", "clusterNames": ["m6"]},
            {
                "affinityName": "backup",
                "labelSelector": {
                    "matchLabels": {"env": "staging"},
                    "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["gold"]}],
                },
                "fieldSelector": {
                    "matchExpressions": [{"key": "region", "operator": "In", "values": ["eu-west"]}]
                },
                "exclude": ["m3"],
            },
        ],
        replicaScheduling={"replicaSchedulingType": "Duplicated"},
    ),
    # overflowAffinities: tier 0 is m5 (10 cpu → 10 replicas), the overflow tier (staging, not gold, in
    # eu-west, m4 or m3 but not m3: m4) takes the other 10.
    "overflow": _policy(
        "overflow",
        clusterAffinities=[
            {
                "affinityName": "local",
                "clusterNames": ["m5"],
                "overflowAffinities": [
                    {
                        "affinityName": "burst",
                        "labelSelector": {
                            "matchLabels": {"env": "staging"},
                            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["gold"]}],
                        },
                        "fieldSelector": {
                            "matchExpressions": [{"key": "region", "operator": "In", "values": ["eu-west"]}]
                        },
                        "clusterNames": ["m4", "m3"],
                        "exclude": ["m3"],
                    }
                ],
            }
        ],
        replicaScheduling={"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
    ),
    # spread: prod clusters but m2; m3 is tainted: m1 (us-east) and m5 (ap-south): two regions, two
    # clusters. The spreadByLabel constraint is accepted and, as in Karmada's scheduler, has no effect.
    # workloadAffinity is accepted with a warning and changes nothing.
    "spread": _policy(
        "spread",
        clusterAffinity={"labelSelector": {"matchLabels": {"env": "prod"}}, "exclude": ["m2"]},
        spreadConstraints=[
            {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2},
            {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
            {"spreadByLabel": "tier", "minGroups": 1, "maxGroups": 3},
        ],
        replicaScheduling={"replicaSchedulingType": "Duplicated"},
        workloadAffinity={
            "affinity": {"groupByLabelKey": "app.example.com/group"},
            "antiAffinity": {"groupByLabelKey": "app.example.com/shard"},
        },
    ),
    # dynamic weights by available replicas: m1 100, m2 40 → 9 replicas split 6.43/2.57 → 6 and 3
    # (Webster and largest remainder agree here).
    "dynamic": _policy(
        "dynamic",
        clusterAffinity={"clusterNames": ["m1", "m2"]},
        replicaScheduling={
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
    ),
    # Aggregated: the fewest clusters by available replicas, most first: m2 (40) holds all 12.
    "aggregated": _policy(
        "aggregated",
        clusterAffinity={"clusterNames": ["m2", "m4", "m5"]},
        replicaScheduling={"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
    ),
}

TEMPLATES = {
    "affinity": deployment("affinity", replicas=6),
    "fallback": deployment("fallback", replicas=3),
    "overflow": deployment("overflow", replicas=20, requests={"cpu": "1"}),
    "spread": deployment("spread", replicas=2),
    "dynamic": deployment("dynamic", replicas=9, requests={"cpu": "1"}),
    "aggregated": deployment("aggregated", replicas=12, requests={"cpu": "1"}),
}

EXPECTED = {
    "Deployment/affinity": {"m1": 4, "m3": 2},
    "Deployment/fallback": {"m4": 3},
    "Deployment/overflow": {"m5": 10, "m4": 10},
    "Deployment/spread": {"m1": 2, "m5": 2},
    "Deployment/dynamic": {"m1": 6, "m2": 3},
    "Deployment/aggregated": {"m2": 12},
}


@pytest.fixture(scope="module")
def placed(tmp_path_factory: pytest.TempPathFactory) -> tuple[FleetRepo, str]:
    files: dict[str, Any] = {f"inventory/{name}.yaml": doc for name, doc in CLUSTERS.items()}
    files |= {f"apps/{name}.yaml": doc for name, doc in TEMPLATES.items()}
    files |= {f"policies/{name}.yaml": doc for name, doc in POLICIES.items()}
    repo = FleetRepo.create(tmp_path_factory.mktemp("placement") / "fleet", files)
    done = repo.cli("reconcile")
    return repo, done.stderr


def _key_paths(value: Any, prefix: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            found |= {path} | _key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            found |= _key_paths(item, prefix)
    return found


def test_the_fleet_uses_every_placement_field() -> None:
    every = {row.path for row in field_rows(Section("Placement", Placement, "Placement", ""))}
    used = set().union(*(_key_paths(p["spec"]["placement"]) for p in POLICIES.values()))
    assert sorted(every - used) == []


@pytest.mark.parametrize("template", sorted(EXPECTED))
def test_each_placement_follows_karmadas_rules(placed: tuple[FleetRepo, str], template: str) -> None:
    repo, _ = placed
    assert placement(repo.render_json())[template] == EXPECTED[template]


def test_the_committed_records_match_and_only_workload_affinity_is_warned(
    placed: tuple[FleetRepo, str],
) -> None:
    repo, stderr = placed
    warnings = [line for line in stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: policies/spread.yaml[0] spec.placement.workloadAffinity: workloadAffinity is validated but "
        "not applied: Karmada's scheduler honours it only with the feature gate WorkloadAffinity, which is off "
        "(featureGates in gitops-karmada.yaml)"
    ]
    record = repo.load("karmada-state/bindings/default/deployment.apps/fallback.yaml")
    assert record["status"]["schedulerObservedAffinityName"] == "backup"
    for template, clusters in EXPECTED.items():
        name = template.split("/")[1]
        for cluster, replicas in clusters.items():
            manifest = repo.load(f"clusters/{cluster}/default/deployment.apps/{name}.yaml")
            assert manifest["spec"]["replicas"] == replicas, (template, cluster)
