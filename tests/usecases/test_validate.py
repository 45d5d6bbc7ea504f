"""``validate`` as a use case, in process: the run's findings, located on their lines in a commit and on
disk, the summary of a valid input, and ``--rendered``'s check of the files already in the cluster
folders."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.usecases.validate import ValidSummary, locate, validate_source
from tests.builders import deployment
from tests.cli.test_lifecycle_fleet import WEB_PATH, shop_fleet
from tests.cli.test_validate_output import POLICY

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize("worktree", [False, True], ids=["commit", "worktree"])
def test_a_finding_is_located_on_the_line_of_its_field(tmp_path: Path, worktree: bool) -> None:
    repo = shop_fleet(tmp_path, reconciled=False)
    repo.write("policies/web.yaml", POLICY)
    repo.commit("a zero weight")
    validation = validate_source(repo.path, "HEAD", worktree)
    assert (validation.errors, validation.warnings, validation.summary) == (1, 0, None)
    (found,) = locate(validation)
    field = "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight"
    assert (found.severity, found.file, found.document, found.line, found.field) == (
        "error",
        "policies/web.yaml",
        0,
        18,
        field,
    )
    assert found.to_dict() == {
        "severity": "error",
        "message": found.message,
        "file": "policies/web.yaml",
        "document": 0,
        "line": 18,
        "field": field,
        "text": found.text,
    }


def test_a_valid_input_is_summarised_and_fails_only_strictly_on_warnings(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path, reconciled=False)
    repo.write("apps/api.yaml", deployment("api", "shop", labels={"tier": "backend"}))  # no policy selects it
    repo.commit("a Deployment nobody selects")
    validation = validate_source(repo.path, "HEAD", False)
    # the template no policy selects, and the namespace no Namespace template creates
    assert (validation.errors, validation.warnings) == (0, 2)
    assert sorted(d.field for d in validation.diagnostics) == ["", "metadata.namespace"]
    assert not validation.failed(strict=False) and validation.failed(strict=True)
    assert validation.summary == ValidSummary(
        templates=3, unmatched=1, propagation_policies=2, override_policies=1, clusters=3
    )


def test_rendered_checks_the_committed_cluster_folders_against_their_schemas(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    path = WEB_PATH.format(cluster="member1")
    repo.write(path, repo.read(path).replace("replicas: 3", "replicas: three"))
    repo.commit("a hand edit the schema refuses")
    assert validate_source(repo.path, "HEAD", False).errors == 0, "the run itself renders it right"
    checked = validate_source(repo.path, "HEAD", False, rendered=True)
    (found,) = (d for d in locate(checked) if d.severity == "error")
    assert found.file == path
    assert "replicas" in found.text
