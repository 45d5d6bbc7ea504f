"""docs/compatibility.md: generated from the models, every rule live, every claim of a warning true."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.model.compatibility import (
    CHANGED,
    RULES,
    SECTIONS,
    SINCE,
    UNSUPPORTED_KINDS,
    Support,
    field_rows,
    render_markdown,
)
from tests.builders import cluster_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pydantic import BaseModel

DOC = Path(__file__).parents[2] / "docs" / "compatibility.md"


def test_the_document_is_generated_from_the_models(request: pytest.FixtureRequest) -> None:
    generated = render_markdown()
    if request.config.getoption("--update-golden"):
        DOC.write_text(generated)
    assert DOC.read_text() == generated, "run: pytest tests/model/test_compatibility.py --update-golden"


def _all_rule_paths() -> set[str]:
    paths: set[str] = set()
    for section in SECTIONS:
        for row in field_rows(section):
            paths.add(f"{section.kind_path}.{row.path}")
    return paths


def test_every_rule_names_a_field_the_models_have() -> None:
    stale = sorted((set(RULES) | set(SINCE) | set(CHANGED)) - _all_rule_paths())
    assert stale == [], f"rules for fields no model has: {stale}"


def test_every_new_field_is_listed_with_its_version() -> None:
    document = DOC.read_text()
    assert "| `spec.placement.workloadAffinity` | v1.17+ |" in document
    assert "| `spec.placement.workloadAffinity.affinity.groupByLabelKey` | v1.17+ |" in document
    assert "| `spec.placement.clusterAffinities.overflowAffinities` | v1.18+ |" in document
    assert "| `spec.placement.clusterAffinities.overflowAffinities.affinityName` | v1.18+ |" in document
    assert "| `spec.placement.clusterAffinity` | all |" in document


def test_the_walk_sees_nested_fields_and_every_kind() -> None:
    paths = _all_rule_paths()
    assert (
        "PropagationPolicy.spec.placement.replicaScheduling.weightPreference.staticWeightList.weight" in paths
    )
    assert "OverridePolicy.spec.overrideRules.overriders.fieldOverrider.yaml.subPath" in paths
    assert "Cluster.status.resourceSummary.allocatableModelings.count" in paths
    assert "ResourceInterpreterCustomization.spec.customizations.componentResource.luaScript" in paths
    assert "FederatedResourceQuota.spec.staticAssignments.hard" in paths
    assert "PropagationPolicy.spec.placement.clusterAffinities.overflowAffinities.affinityName" in paths
    assert "PropagationPolicy.spec.placement.workloadAffinity.antiAffinity.groupByLabelKey" in paths


def _model_accepts_only_listed_fields(model: type[BaseModel]) -> bool:
    return model.model_config.get("extra") == "forbid"


def test_an_unlisted_field_is_rejected_by_every_model_in_the_table() -> None:
    for section in SECTIONS:
        assert _model_accepts_only_listed_fields(section.model), section.title


# -- what "ignored with a warning" promises -----------------------------------------------------------------


def test_no_field_is_accepted_without_its_effect_any_more() -> None:
    """workloadAffinity, the last such field, is honoured with its gate (tests/reconcile/
    test_workload_affinity.py). A field marked so again needs a test that ``validate`` and ``reconcile`` warn."""
    warned = {path for path, rule in RULES.items() if rule.support is Support.IGNORED_WITH_WARNING}
    assert warned == set()


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("apps.karmada.io/v1alpha1", "WorkloadRebalancer"),
        ("config.karmada.io/v1alpha1", "ResourceInterpreterWebhookConfiguration"),
    ],
)
def test_kinds_without_a_model_are_named_and_skipped(tmp_path: Path, api_version: str, kind: str) -> None:
    assert kind in UNSUPPORTED_KINDS
    document = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, "spec": {}}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"inventory/member1.yaml": cluster_doc("member1"), "extra.yaml": document},
    )
    done = repo.cli("validate")
    assert (
        f"warning: extra.yaml[0]: {api_version} {kind} is not supported by gitops-karmada; ignored"
        in done.stderr
    )
