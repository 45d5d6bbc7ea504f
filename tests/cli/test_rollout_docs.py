"""Issue 37: the RolloutPolicy's documentation holds: its JSON schema is the model's, the example of
docs/rollouts.md validates (schema and ``validate``), and a wrong RolloutPolicy is an error naming its file,
document and field, in ``validate`` and ``reconcile`` alike."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
import yaml

from gitops_karmada.model.rollouts import rollout_policy_schema
from tests.builders import cluster_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from collections.abc import Callable

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "docs" / "schemas" / "rolloutpolicy.json"
GUIDE = ROOT / "docs" / "rollouts.md"


def test_the_schema_file_is_the_models(request: pytest.FixtureRequest) -> None:
    generated = json.dumps(rollout_policy_schema(), indent=2, sort_keys=True) + "\n"
    if request.config.getoption("--update-golden"):
        SCHEMA.write_text(generated)
    assert SCHEMA.read_text() == generated, "run: pytest tests/cli/test_rollout_docs.py --update-golden"


def example() -> dict[str, Any]:
    block = re.search(r"```yaml\n(.*?)```", GUIDE.read_text(), re.DOTALL)
    assert block is not None
    found: dict[str, Any] = yaml.safe_load(block.group(1))
    return found


def test_the_guides_example_validates_against_the_schema_and_in_validate(tmp_path: Path) -> None:
    jsonschema.validate(example(), json.loads(SCHEMA.read_text()))
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": {},
            "rollouts/shop.yaml": example(),
            **{f"inventory/member{n}.yaml": cluster_doc(f"member{n}") for n in (1, 2, 3)},
        },
    )
    repo.cli("validate")


def _change(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    document = example()
    edit(document)
    return document


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        (
            lambda d: d["spec"]["waves"].append(dict(d["spec"]["waves"][0])),
            "spec",
            "wave names must be unique",
        ),
        (lambda d: d["spec"].update(bakeTime="-1m"), "spec.bakeTime", "must not be negative"),
        (lambda d: d["spec"]["gate"].update(healthyFor="five minutes"), "spec.gate.healthyFor", "duration"),
        (lambda d: d["spec"].update(onFailure="Explode"), "spec.onFailure", "Rollback"),
        (lambda d: d["spec"]["waves"][0].update(clusterz={}), "spec.waves[0].clusterz", ""),
        (lambda d: d["spec"].update(waves=[]), "spec.waves", ""),
    ],
)
def test_a_wrong_rollout_policy_is_an_error_naming_file_document_and_field(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], field: str, words: str
) -> None:
    files = {
        "gitops-karmada.yaml": {},
        "rollouts/shop.yaml": _change(edit),
        **{f"inventory/member{n}.yaml": cluster_doc(f"member{n}") for n in (1, 2, 3)},
    }
    repo = FleetRepo.create(tmp_path / "fleet", files)
    for verb in ("validate", "reconcile"):
        done = repo.cli(verb, check=1)
        assert "rollouts/shop.yaml" in done.stderr
        assert field in done.stderr
        assert words in done.stderr
