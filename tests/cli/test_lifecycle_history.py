"""``history KIND/NS/NAME`` end to end: one row per commit that changed the template's binding record."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.builders import cluster_doc, deployment, pp_doc
from tests.cli.test_lifecycle_fleet import WEB_RECORD, change, shop_fleet, web_policy

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

API_POLICY = pp_doc(
    "api",
    "shop",
    [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"}],
    placement={"clusterAffinity": {"clusterNames": ["member2"]}},
)
MAINTENANCE = [{"key": "maintenance", "effect": "NoSchedule"}]


def history(repo: FleetRepo, template: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(repo.cli("history", template, "-o", "json").stdout)["changes"]
    return rows


def test_history_shows_a_weight_change_as_replica_moves(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    source = change(repo, {"policies/web.yaml": web_policy({"member1": 1, "member2": 1})}, "even out web")

    rows = history(repo, "Deployment/shop/web")

    assert [row["change"] for row in rows] == ["updated", "created"]
    latest, first = rows
    assert latest["commit"] == repo.head()
    assert latest["sourceCommit"] == source
    assert latest["origin"] == "reconcile"
    assert latest["policy"] == {"before": "pp/web", "after": "pp/web"}
    assert latest["clusters"] == [
        {"name": "member1", "before": "3", "after": "2"},
        {"name": "member2", "before": "1", "after": "2"},
    ]
    assert first["clusters"] == [
        {"name": "member1", "before": "-", "after": "3"},
        {"name": "member2", "before": "-", "after": "1"},
    ]


def test_history_shows_a_cluster_taint_failing_scheduling_and_its_removal_placing_the_workload(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path)
    change(
        repo,
        {
            "apps/api.yaml": deployment("api", "shop", replicas=2),
            "policies/api.yaml": API_POLICY,
            "inventory/member2.yaml": cluster_doc("member2", labels={"env": "prod"}, taints=MAINTENANCE),
        },
        "api, pinned to member2, which is in maintenance",
        failing=True,
    )
    change(
        repo, {"inventory/member2.yaml": cluster_doc("member2", labels={"env": "prod"})}, "maintenance over"
    )

    rows = history(repo, "Deployment.apps/shop/api")

    placed, failed = rows
    assert failed["change"] == "created"
    assert failed["clusters"] == []
    (condition,) = failed["conditions"]
    assert (condition["type"], condition["before"], condition["after"]) == ("Scheduled", None, "False")
    assert condition["reason"] == "NoClusterFit"
    assert "untolerated taint {maintenance:NoSchedule}" in condition["message"]
    assert placed["clusters"] == [{"name": "member2", "before": "-", "after": "2"}]
    assert [(c["type"], c["before"], c["after"]) for c in placed["conditions"]] == [
        ("Scheduled", "False", "True")
    ]

    table = repo.cli("history", "Deployment/shop/api").stdout
    assert "Scheduled -→False (NoClusterFit)" in table
    assert "member2 -→2" in table


def test_history_marks_a_hand_edit_of_the_record_and_a_rollback(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    first = repo.head()
    change(repo, {"policies/web.yaml": web_policy({"member1": 1, "member2": 1})}, "even out web")
    repo.write(WEB_RECORD, repo.read(WEB_RECORD).replace("replicas: 2", "replicas: 5", 1))
    repo.commit("hand edit of the record")
    repo.cli("rollback", first)

    rows = history(repo, "deployment/shop/web")

    assert [row["origin"] for row in rows] == ["rollback", "hand edit", "reconcile", "reconcile"]
    assert rows[0]["rollbackTo"] == first
    assert rows[1]["sourceCommit"] is None


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("Deployment/shop/nope", "no binding record of Deployment/shop/nope"),
        ("Deployment", "is not KIND/NAMESPACE/NAME"),
        ("Deployment/shop/web/extra", "is not KIND/NAMESPACE/NAME"),
        ("Deployment.example.com/shop/web", "no binding record"),
    ],
    ids=["unknown-name", "kind-only", "too-many-parts", "other-group"],
)
def test_history_rejects_references_without_a_record(tmp_path: Path, template: str, message: str) -> None:
    repo = shop_fleet(tmp_path)
    malformed = message.startswith("is not KIND")  # a usage error (exit 2); a missing record exits 1
    done = repo.cli("history", template, check=2 if malformed else 1)
    assert message in done.stderr
