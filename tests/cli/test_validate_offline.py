"""Issue 33, item 11: what ``validate`` can tell offline of objects the API server would refuse: a namespace
nothing creates (a warning), Secret data that is not base64 and a template no policy selects that fails its
schema (errors), each at its file, document and field. Through the CLI on a copy of the example fleet."""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.action.scenarios import REPO_LAYOUT
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("example") / "fleet"
    shutil.copytree(REPO_LAYOUT, path)
    FleetRepo.create(path)
    return path


@pytest.fixture
def fleet(committed: Path, tmp_path: Path) -> FleetRepo:
    shutil.copytree(committed, tmp_path / "fleet", symlinks=True)
    return FleetRepo(tmp_path / "fleet")


def _findings(fleet: FleetRepo, check: int) -> list[dict[str, object]]:
    report = json.loads(fleet.cli("validate", "-o", "json", check=check).stdout)
    return [d for d in report["diagnostics"] if "no propagation policy selects" not in str(d["message"])]


def _configmap(name: str, namespace: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}}


def test_the_example_fleet_has_none_of_these(fleet: FleetRepo) -> None:
    assert _findings(fleet, 0) == []


def test_a_namespace_nothing_creates_is_a_warning_at_its_first_template(fleet: FleetRepo) -> None:
    fleet.write("apps/billing/config.yaml", [_configmap("rates", "billing"), _configmap("limits", "billing")])
    fleet.write("apps/more.yaml", _configmap("more", "default"))  # every cluster has it
    fleet.commit("billing, without its Namespace")
    [finding] = _findings(fleet, 0)
    assert (finding["severity"], finding["file"], finding["document"], finding["field"]) == (
        "warning",
        "apps/billing/config.yaml",
        0,
        "metadata.namespace",
    )
    assert finding["message"] == (
        "namespace 'billing' of ConfigMap/billing/rates (and 1 more template(s) in it) is created by no "
        "Namespace template in the repository, nor is it one every cluster has (default, kube-system, "
        "kube-public, kube-node-lease): the API server refuses its objects where it does not exist (add a "
        "Namespace template)"
    )
    fleet.write(
        "namespaces/billing.yaml", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "billing"}}
    )
    fleet.commit("and its Namespace")
    assert _findings(fleet, 0) == []


def test_secret_data_that_is_not_base64_is_an_error_at_its_key(fleet: FleetRepo) -> None:
    fleet.write(
        "apps/shop/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\n"
        "data:\n  password: hunter2!\n  pin: 1234\n  wrapped: |\n    aGVsbG8g\n    d29ybGQ=\n"
        "stringData:\n  plain: not encoded, as it should be\n",
    )
    fleet.commit("a Secret written by hand")
    findings = _findings(fleet, 1)
    assert [(f["severity"], f["file"], f["field"]) for f in findings] == [
        ("error", "apps/shop/secret.yaml", "data.password"),
        ("error", "apps/shop/secret.yaml", "data.pin"),  # a number: its schema says so
    ]
    assert str(findings[0]["message"]).startswith(
        "Secret data must be base64 (put plain text under stringData): 'hunter2!' does not decode"
    )
    assert findings[0]["line"] == 7
    assert "data.pin: must be of type string, not integer" in str(findings[1]["message"])


def test_a_template_no_policy_selects_is_checked_against_its_schema(fleet: FleetRepo) -> None:
    fleet.write(
        "apps/shop/batch.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: cleanup\n  namespace: shop\n"
        "spec:\n  parallelism: two\n  template:\n    spec:\n      restartPolicy: Never\n"
        "      containers:\n      - name: c\n        image: busybox\n        command: [true]\n",
    )
    fleet.commit("a Job no policy selects")
    [finding] = _findings(fleet, 1)
    assert (finding["severity"], finding["file"], finding["field"], finding["line"]) == (
        "error",
        "apps/shop/batch.yaml",
        "spec.parallelism",
        7,
    )
    assert str(finding["message"]).startswith(
        "Job.batch/shop/cleanup (selected by no policy) fails the Kubernetes "
    )
    assert "so the API server would refuse it: spec.parallelism: must be of type integer, not string" in str(
        finding["message"]
    )
