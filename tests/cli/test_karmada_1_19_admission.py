"""Issue 35: the API and admission rules of Karmada v1.17-v1.19, through the CLI on real repositories.

Every rule is an error naming the file, the document and the field, reported by ``validate`` and by
``reconcile`` alike (which then writes nothing); a rule a Karmada version did not have is not applied when
the repository follows that version (``karmadaVersion`` in gitops-karmada.yaml).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from tests.builders import cluster_doc, deployment, pp_doc
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
