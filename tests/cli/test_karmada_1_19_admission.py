"""Issue 35: the API and admission rules of Karmada v1.17-v1.19, through the CLI on real repositories.

Every rule is an error naming the file, the document and the field, reported by ``validate`` and by
``reconcile`` alike (which then writes nothing); a rule a Karmada version did not have is not applied when
the repository follows that version (``karmadaVersion`` in gitops-karmada.yaml).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import yaml

from tests.builders import cluster_doc, cpp_doc, deployment, pp_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]


def fleet(tmp_path: Path, files: dict[str, Any], version: str | None = None) -> FleetRepo:
    config: dict[str, Any] = (
        {} if version is None else {"gitops-karmada.yaml": yaml.safe_dump({"karmadaVersion": version})}
    )
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "inventory/member1.yaml": cluster_doc("member1"),
            "apps/web.yaml": deployment("web", replicas=2),
            **config,
            **files,
        },
    )


def rejected(repo: FleetRepo, line: str) -> None:
    """``line`` is an error of ``validate`` and of ``reconcile``, which commits nothing."""
    head = repo.head()
    assert f"error: {line}" in repo.cli("validate", check=1).stderr
    done = repo.cli("reconcile", check=1)
    assert f"error: {line}" in done.stderr
    assert "nothing written" in done.stderr
    assert repo.head() == head


def accepted(repo: FleetRepo) -> str:
    """``validate`` and ``reconcile`` pass; the warnings they print."""
    warnings = repo.cli("validate").stderr
    repo.cli("reconcile")
    return warnings


# -- workloadAffinity: Karmada's API (issue item: the guessed field) -------------------------------------------


def test_karmadas_workload_affinity_document_is_accepted(tmp_path: Path) -> None:
    # the shape of every example in Karmada's documentation (spec §1.1)
    affinity = {
        "affinity": {"groupByLabelKey": "pipeline.example.io/set"},
        "antiAffinity": {"groupByLabelKey": "pipeline.example.io/replica-of"},
    }
    policy = pp_doc("web", "default", DEPLOYMENTS, placement={"workloadAffinity": affinity})
    repo = fleet(tmp_path, {"policy.yaml": policy})
    accepted(repo)
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")


def test_the_guessed_field_names_are_unknown_fields(tmp_path: Path) -> None:
    placement = {"workloadAffinity": {"affinity": {"affinityLabelKey": "grp"}}}
    repo = fleet(tmp_path, {"policy.yaml": pp_doc("web", "default", DEPLOYMENTS, placement=placement)})
    rejected(repo, "policy.yaml[0] spec.placement.workloadAffinity.affinity.affinityLabelKey: unknown field")


def test_affinity_and_anti_affinity_must_not_share_a_key(tmp_path: Path) -> None:
    affinity = {"affinity": {"groupByLabelKey": "grp"}, "antiAffinity": {"groupByLabelKey": "grp"}}
    policy = pp_doc("web", "default", DEPLOYMENTS, placement={"workloadAffinity": affinity})
    repo = fleet(tmp_path, {"policy.yaml": policy})
    rejected(
        repo,
        "policy.yaml[0] spec.placement.workloadAffinity: Invalid value: "
        '{"affinity":{"groupByLabelKey":"grp"},"antiAffinity":{"groupByLabelKey":"grp"}}: '
        "affinity and antiAffinity must not use the same groupByLabelKey",
    )


def test_a_group_key_must_be_a_label_key(tmp_path: Path) -> None:
    affinity = {"antiAffinity": {"groupByLabelKey": "INVALID KEY!"}}
    policy = pp_doc("web", "default", DEPLOYMENTS, placement={"workloadAffinity": affinity})
    repo = fleet(tmp_path, {"policy.yaml": policy})
    rejected(
        repo,
        'policy.yaml[0] spec.placement.workloadAffinity.antiAffinity.groupByLabelKey: Invalid value: "INVALID KEY!"',
    )


def test_workload_affinity_is_an_unknown_field_for_karmada_1_16(tmp_path: Path) -> None:
    placement = {"workloadAffinity": {"affinity": {"groupByLabelKey": "grp"}}}
    policy = pp_doc("web", "default", DEPLOYMENTS, placement=placement)
    repo = fleet(tmp_path, {"policy.yaml": policy}, "v1.16")
    rejected(
        repo, "policy.yaml[0] spec.placement.workloadAffinity: Forbidden: unknown field in Karmada v1.16"
    )


# -- the rules of v1.17 and v1.18 (spec §7, §2.2), each also shown absent where the version lacks it -----------

CONFIGMAPS = [{"apiVersion": "v1", "kind": "ConfigMap"}]
WEIGHTED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
DYNAMIC = {**WEIGHTED, "weightPreference": {"dynamicWeight": "AvailableReplicas"}}
STATIC = {
    **WEIGHTED,
    "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["member1"]}, "weight": 1}]},
}


ANNOTATED_WEB = deployment("web", replicas=2)
ANNOTATED_WEB["metadata"]["annotations"] = {"config": "a: 1"}


def op_doc(namespace: str, selectors: list[dict[str, Any]], rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "tune", "namespace": namespace},
        "spec": {"resourceSelectors": selectors, "overrideRules": rules},
    }


def overflow_placement(strategy: dict[str, Any], term: dict[str, Any]) -> dict[str, Any]:
    return {"clusterAffinities": [term], "replicaScheduling": strategy}


PRIMARY_AND_OVERFLOW = {
    "affinityName": "on-prem",
    "clusterNames": ["member1"],
    "overflowAffinities": [{"affinityName": "cloud", "clusterNames": ["member2"]}],
}

RULES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "pp-selector-namespace",
        {"policy.yaml": pp_doc("web", "default", [{**DEPLOYMENTS[0], "namespace": "other"}])},
        'policy.yaml[0] spec.resourceSelectors[0].namespace: Invalid value: "other": '
        "namespace of resource selector must be the same as the namespace of the policy",
        "v1.16",
    ),
    (
        "op-selector-namespace",
        {
            "policy.yaml": pp_doc("web", "default", DEPLOYMENTS),
            "override.yaml": op_doc("default", [{**DEPLOYMENTS[0], "namespace": "other"}], []),
        },
        'override.yaml[0] spec.resourceSelectors[0].namespace: Invalid value: "other": '
        "namespace of resource selector must be the same as the namespace of the policy",
        "v1.16",
    ),
    (
        "lt-toleration",
        {
            "policy.yaml": pp_doc(
                "web",
                "default",
                DEPLOYMENTS,
                placement={"clusterTolerations": [{"key": "size", "operator": "Lt", "value": "3"}]},
            )
        },
        "policy.yaml[0] spec.placement.clusterTolerations[0].operator: "
        'Unsupported value: "Lt": supported values: "", "Exists", "Equal"',
        "v1.17",
    ),
    (
        "empty-field-overrider",
        {
            "apps/web.yaml": ANNOTATED_WEB,
            "policy.yaml": pp_doc("web", "default", DEPLOYMENTS),
            "override.yaml": op_doc(
                "default",
                DEPLOYMENTS,
                [{"overriders": {"fieldOverrider": [{"fieldPath": "/metadata/annotations/config"}]}}],
            ),
        },
        "override.yaml[0] spec.overrideRules[0].overriders.fieldOverrider[0]: "
        "Required value: FieldOverrider must have either JSON or YAML set",
        "v1.17",
    ),
    (
        "overflow-with-static-weights",
        {
            "policy.yaml": pp_doc(
                "web", "default", DEPLOYMENTS, placement=overflow_placement(STATIC, PRIMARY_AND_OVERFLOW)
            )
        },
        "policy.yaml[0] spec.placement.clusterAffinities[0].overflowAffinities: Invalid value: "
        '[{"affinityName":"cloud","clusterNames":["member2"]}]: '
        "overflowAffinities can only be used together with dynamic weight or aggregated scheduling",
        "",
    ),
    (
        "overflow-without-inline-affinity",
        {
            "policy.yaml": pp_doc(
                "web",
                "default",
                DEPLOYMENTS,
                placement=overflow_placement(
                    DYNAMIC,
                    {
                        "affinityName": "on-prem",
                        "overflowAffinities": [{"affinityName": "cloud", "clusterNames": ["member2"]}],
                    },
                ),
            )
        },
        "policy.yaml[0] spec.placement.clusterAffinities[0].overflowAffinities: Invalid value: "
        '[{"affinityName":"cloud","clusterNames":["member2"]}]: '
        "overflowAffinities can only be used together with the inline ClusterAffinity",
        "",
    ),
    (
        "overflow-duplicate-name",
        {
            "policy.yaml": pp_doc(
                "web",
                "default",
                DEPLOYMENTS,
                placement=overflow_placement(
                    DYNAMIC,
                    {**PRIMARY_AND_OVERFLOW, "overflowAffinities": [{"affinityName": "on-prem"}]},
                ),
            )
        },
        "policy.yaml[0] spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName: "
        'Invalid value: "on-prem": overflow affinity name must be unique and must not duplicate the '
        "primary group's affinityName",
        "",
    ),
    (
        "overflow-before-1.18",
        {
            "gitops-karmada.yaml": "karmadaVersion: v1.17\n",
            "policy.yaml": pp_doc(
                "web", "default", DEPLOYMENTS, placement=overflow_placement(DYNAMIC, PRIMARY_AND_OVERFLOW)
            ),
        },
        "policy.yaml[0] spec.placement.clusterAffinities[0].overflowAffinities: Forbidden: "
        "unknown field in Karmada v1.17: added in v1.18",
        "",
    ),
]


@pytest.mark.parametrize(("files", "line", "older"), [pytest.param(*r[1:], id=r[0]) for r in RULES])
def test_an_admission_rule_is_an_error_at_its_field(
    tmp_path: Path, files: dict[str, Any], line: str, older: str
) -> None:
    repo = fleet(tmp_path, files)
    rejected(repo, line)
    if older:
        # the Karmada version before the rule accepted the document
        repo.write("gitops-karmada.yaml", f"karmadaVersion: {older}\n")
        repo.commit(f"follow Karmada {older}")
        accepted(repo)


def test_a_cluster_policy_may_name_any_namespace(tmp_path: Path) -> None:
    policy = cpp_doc("web", [{**DEPLOYMENTS[0], "namespace": "default"}])
    repo = fleet(tmp_path, {"policy.yaml": policy})
    accepted(repo)
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")


def test_before_1_18_an_empty_field_overrider_writes_the_empty_string(tmp_path: Path) -> None:
    repo = fleet(
        tmp_path,
        {
            "gitops-karmada.yaml": "karmadaVersion: v1.17\n",
            "apps/web.yaml": ANNOTATED_WEB,
            "policy.yaml": pp_doc("web", "default", DEPLOYMENTS),
            "override.yaml": op_doc(
                "default",
                DEPLOYMENTS,
                [{"overriders": {"fieldOverrider": [{"fieldPath": "/metadata/annotations/config"}]}}],
            ),
        },
    )
    accepted(repo)
    rendered = repo.load("clusters/member1/default/deployment.apps/web.yaml")
    assert rendered["metadata"]["annotations"]["config"] == ""


def test_an_lt_toleration_accepted_before_1_18_tolerates_nothing(tmp_path: Path) -> None:
    tainted = cluster_doc("member1", taints=[{"key": "size", "value": "2", "effect": "NoSchedule"}])
    placement = {
        "clusterTolerations": [{"key": "size", "operator": "Gt", "value": "1", "effect": "NoSchedule"}]
    }
    repo = fleet(
        tmp_path,
        {
            "gitops-karmada.yaml": "karmadaVersion: v1.17\n",
            "inventory/member1.yaml": tainted,
            "policy.yaml": pp_doc("web", "default", DEPLOYMENTS, placement=placement),
        },
    )
    for verb in ("validate", "reconcile"):
        done = repo.cli(verb, check=1)
        assert (
            "cannot be scheduled: 0/1 clusters are available: 1 cluster(s) had untolerated taint"
            in done.stderr
        )
    assert not repo.exists("clusters/member1/default/deployment.apps/web.yaml")
