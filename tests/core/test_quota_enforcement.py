"""Quota enforcement over a run (QuotaLedger, enforce_quotas), final statuses, static assignments.

Includes the v1.15 release note's FlinkDeployment example, interpreted by the real built-in Lua script.
"""

from __future__ import annotations

import json
from typing import Any

from gitops_karmada.core.interpreter import ResourceInterpreter
from gitops_karmada.core.quota import (
    AdmissionStage,
    QuotaLedger,
    calculate_resource_usage,
    enforce_quotas,
    federated_quota_status,
    member_quota_statuses,
    overall_used,
    static_assignment_quotas,
)
from gitops_karmada.core.scheduler.snapshot import parse_snapshot_document
from gitops_karmada.model.bindings import Component, ResourceBinding
from gitops_karmada.model.quantity import Quantity
from gitops_karmada.model.quotas import FederatedResourceQuota

FLINK = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "metadata": {"name": "flink-example", "namespace": "analytics"},
    "spec": {
        "jobManager": {"replicas": 1, "resource": {"cpu": 1, "memory": "1024m"}},
        "taskManager": {"replicas": 1, "resource": {"cpu": 2, "memory": "2048m"}},
    },
}


def frq(
    overall: dict[str, str], *, namespace: str = "team", name: str = "q", **spec: Any
) -> FederatedResourceQuota:
    return FederatedResourceQuota.model_validate(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "FederatedResourceQuota",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"overall": overall, **spec},
        }
    )


def binding(
    name: str,
    cpu: str | None,
    clusters: dict[str, int],
    *,
    namespace: str = "team",
    kind: str = "ResourceBinding",
    components: tuple[Component, ...] = (),
) -> ResourceBinding:
    spec: dict[str, Any] = {
        "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": namespace, "name": name},
        "replicas": sum(clusters.values()),
        "clusters": [{"name": c, "replicas": r} for c, r in clusters.items()],
    }
    if cpu is not None:
        spec["replicaRequirements"] = {"resourceRequest": {"cpu": cpu}}
    if components:
        spec["components"] = [c.to_api() for c in components]
    return ResourceBinding.model_validate(
        {"kind": kind, "metadata": {"name": f"{name}-deployment", "namespace": namespace}, "spec": spec}
    )


def q(values: dict[str, str]) -> dict[str, Quantity]:
    return {name: Quantity.parse(value) for name, value in values.items()}


# -- the v1.15 release note example -------------------------------------------------------------------------


def flink_binding() -> ResourceBinding:
    components = ResourceInterpreter().get_components(FLINK)
    return binding("flink-example", None, {"member1": 0}, namespace="analytics", components=components)


def test_flink_release_note_example_through_the_interpreter() -> None:
    flink = flink_binding()
    assert [
        (c.name, c.replica_requirements.to_api() if c.replica_requirements else None)
        for c in flink.spec.components
    ] == [
        ("jobmanager", {"resourceRequest": {"cpu": "1", "memory": "1024m"}}),
        ("taskmanager", {"resourceRequest": {"cpu": "2", "memory": "2048m"}}),
    ]
    quota = frq({"cpu": "10", "memory": "10Gi"}, namespace="analytics")
    used = overall_used(quota, [flink])
    assert {name: str(value) for name, value in used.items()} == {"cpu": "3", "memory": "3072m"}


def test_flink_release_note_example_as_the_state_folder_records_it() -> None:
    quota = frq({"cpu": "10", "memory": "10Gi"}, namespace="analytics", name="flink-quota")
    outcome = enforce_quotas([quota], [], [flink_binding()], enforcement=True)
    assert outcome.denied == ()
    assert outcome.quotas[0].status.to_api() == {
        "overall": {"cpu": "10", "memory": "10Gi"},
        "overallUsed": {"cpu": "3", "memory": "3072m"},
        "aggregatedStatus": [],
    }


def test_components_usage_counts_one_set_per_target_cluster() -> None:
    components = ResourceInterpreter().get_components(FLINK)
    spread = binding("flink-example", None, {"member1": 0, "member2": 5}, components=components)
    assert calculate_resource_usage(spread.spec) == q({"cpu": "6", "memory": "6144m"})


# -- enforce_quotas over a run -------------------------------------------------------------------------------


def test_changes_are_admitted_in_order_and_a_later_one_is_denied() -> None:
    outcome = enforce_quotas(
        [frq({"cpu": "4"})],
        [],
        [binding("a", "1", {"m1": 3}), binding("b", "1", {"m1": 2}), binding("c", "1", {"m2": 1})],
        enforcement=True,
    )
    assert [v.allowed for v in outcome.verdicts] == [True, False, True]
    denied = outcome.verdicts[1]
    assert denied.denied_at is AdmissionStage.PLACEMENT
    assert denied.reason == "QuotaExceeded"
    assert (
        denied.message
        == "FederatedResourceQuota(team/q) exceeded for resource cpu: requested sum 5, limit 4."
    )
    assert denied.binding.spec.clusters == ()  # a new binding keeps no placement
    assert denied.binding.spec.replicas == 2  # but what the template demands is recorded
    assert outcome.quotas[0].status.overall_used == q({"cpu": "4"})


def test_deleted_templates_free_their_usage_first() -> None:
    old = binding("old", "1", {"m1": 3})
    outcome = enforce_quotas([frq({"cpu": "4"})], [old], [binding("new", "1", {"m1": 4})], enforcement=True)
    assert outcome.denied == ()
    assert outcome.quotas[0].status.overall_used == q({"cpu": "4"})


def test_scale_up_denied_keeps_the_stored_placement() -> None:
    stored = binding("web", "1", {"m1": 1, "m2": 1})
    proposed = binding("web", "1", {"m1": 3, "m2": 2})
    outcome = enforce_quotas([frq({"cpu": "4"})], [stored], [proposed], enforcement=True)
    verdict = outcome.verdicts[0]
    assert verdict.denied_at is AdmissionStage.PLACEMENT and not verdict.keeps_previous
    assert verdict.binding.spec.clusters == stored.spec.clusters
    assert verdict.binding.spec.replicas == 5
    assert outcome.quotas[0].status.overall_used == q({"cpu": "2"})


def test_a_bigger_request_is_denied_before_the_placement_changes() -> None:
    stored = binding("web", "1", {"m1": 2})
    proposed = binding("web", "2", {"m1": 2})
    outcome = enforce_quotas([frq({"cpu": "3"})], [stored], [proposed], enforcement=True)
    verdict = outcome.verdicts[0]
    assert verdict.denied_at is AdmissionStage.TEMPLATE and verdict.keeps_previous
    assert verdict.binding is stored
    assert [s.stage for s in verdict.steps] == [AdmissionStage.TEMPLATE]


def test_template_change_allowed_then_placement_judged_against_the_reservation() -> None:
    stored = binding("web", "1", {"m1": 1})
    proposed = binding("web", "2", {"m1": 2})  # demand +1 cpu at the template stage, +2 at the placement
    outcome = enforce_quotas([frq({"cpu": "3"})], [stored], [proposed], enforcement=True)
    verdict = outcome.verdicts[0]
    assert verdict.denied_at is AdmissionStage.PLACEMENT
    assert verdict.steps[0].admission.overall_used_after() == {"q": q({"cpu": "2"})}
    assert verdict.binding.spec.replica_requirements == proposed.spec.replica_requirements
    assert verdict.binding.spec.clusters == stored.spec.clusters
    assert outcome.quotas[0].status.overall_used == q({"cpu": "2"})


def test_other_namespaces_and_cluster_bindings_are_not_judged() -> None:
    outcome = enforce_quotas(
        [frq({"cpu": "1"})],
        [],
        [
            binding("elsewhere", "5", {"m1": 1}, namespace="other"),
            binding("crb", "5", {"m1": 1}, namespace="", kind="ClusterResourceBinding"),
        ],
        enforcement=True,
    )
    assert outcome.denied == ()
    assert outcome.verdicts[1].steps == ()
    assert outcome.quotas[0].status.overall_used == {}


def test_gate_off_allows_everything_and_reports_member_usage() -> None:
    quota = frq({"cpu": "4"}, staticAssignments=[{"clusterName": "m1", "hard": {"cpu": "2"}}])
    snapshot = parse_snapshot_document(
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "q", "namespace": "team"},
            "status": {"hard": {"cpu": "2"}, "used": {"cpu": "1500m"}},
        }
    )
    outcome = enforce_quotas(
        [quota], [], [binding("a", "1", {"m1": 9})], enforcement=False, snapshots={"m1": snapshot}
    )
    assert outcome.denied == ()
    assert {s.admission.skipped for s in outcome.verdicts[0].steps} == {"FederatedQuotaEnforcement disabled"}
    assert outcome.quotas[0].status.to_api() == {
        "overall": {"cpu": "4"},
        "overallUsed": {"cpu": "1500m"},
        "aggregatedStatus": [{"clusterName": "m1", "hard": {"cpu": "2"}, "used": {"cpu": "1500m"}}],
    }


def test_ledger_is_immutable_and_reserves_through_integer_units() -> None:
    ledger = QuotaLedger.open([frq({"memory": "10"})], [], enforcement=True)
    memory = Component.model_validate(
        {"name": "main", "replicas": 1, "replicaRequirements": {"resourceRequest": {"memory": "1500m"}}}
    )
    after, verdict = ledger.admit_binding(None, binding("a", None, {"m1": 0}, components=(memory,)))
    assert verdict.allowed
    assert ledger.quotas[0].status.overall_used == {}
    assert after.quotas[0].status.overall_used == q({"memory": "2"})  # 1.5 bytes reserved as 2
    settled = federated_quota_status(after.quotas[0], [verdict.binding], enforcement=True)
    assert settled.overall_used == q({"memory": "1500m"})  # the controller's exact recount


def test_outcome_to_dict_is_json() -> None:
    outcome = enforce_quotas([frq({"cpu": "1"})], [], [binding("a", "1", {"m1": 2})], enforcement=True)
    data = json.loads(json.dumps(outcome.to_dict()))
    assert data["denied"][0]["deniedAt"] == "placement"
    assert data["quotas"] == [
        {
            "namespace": "team",
            "name": "q",
            "status": {"overall": {"cpu": "1"}, "overallUsed": {}, "aggregatedStatus": []},
        }
    ]


# -- member ResourceQuotas ----------------------------------------------------------------------------------


def test_static_assignments_become_resource_quotas_sorted_by_cluster() -> None:
    quota = frq(
        {"cpu": "10", "memory": "20Gi"},
        staticAssignments=[
            {"clusterName": "m2", "hard": {"memory": "8Gi", "cpu": "4"}},
            {"clusterName": "m1", "hard": {"cpu": "6"}},
            {"clusterName": "m2", "hard": {"cpu": "1"}},
        ],
    )
    assert static_assignment_quotas(quota) == (
        (
            "m1",
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": "q", "namespace": "team"},
                "spec": {"hard": {"cpu": "6"}},
            },
        ),
        (
            "m2",
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": "q", "namespace": "team"},
                "spec": {"hard": {"cpu": "4", "memory": "8Gi"}},
            },
        ),
    )
    assert static_assignment_quotas(frq({"cpu": "1"})) == ()


def test_member_statuses_come_from_assigned_clusters_that_hold_the_quota() -> None:
    quota = frq(
        {"cpu": "10"},
        staticAssignments=[{"clusterName": name, "hard": {"cpu": "1"}} for name in ("m1", "m2", "m3")],
    )

    def holding(name: str, namespace: str = "team") -> Any:
        return parse_snapshot_document(
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": name, "namespace": namespace},
                "status": {"used": {"cpu": "1"}},
            }
        )

    snapshots = {
        "m1": holding("q"),
        "m2": holding("other"),
        "m4": holding("q"),
        "m3": holding("q", "elsewhere"),
    }
    members = member_quota_statuses(quota, snapshots)
    assert [(m.cluster, m.used) for m in members] == [("m1", q({"cpu": "1"}))]
