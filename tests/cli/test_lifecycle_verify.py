"""``verify`` end to end: each kind of drift is named per file with the right finding, and exit 1."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.builders import deployment
from tests.cli.test_lifecycle_fleet import WEB_PATH, WEB_RECORD, reconcile, shop_fleet, web_policy

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.fleet import FleetRepo

MEMBER1_WEB = WEB_PATH.format(cluster="member1")
MEMBER2_WEB = WEB_PATH.format(cluster="member2")
MEMBER1_SETTINGS = "clusters/member1/shop/configmap/settings.yaml"


def edit_rendered(repo: FleetRepo) -> None:
    repo.write(MEMBER1_WEB, repo.read(MEMBER1_WEB).replace("replicas: 3", "replicas: 30"))


def edit_record(repo: FleetRepo) -> None:
    repo.write(WEB_RECORD, repo.read(WEB_RECORD).replace("replicas: 3", "replicas: 2"))


def delete_rendered(repo: FleetRepo) -> None:
    repo.delete(MEMBER1_SETTINGS)


def change_input(repo: FleetRepo) -> None:
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))


def delete_record(repo: FleetRepo) -> None:
    repo.delete(WEB_RECORD)


DRIFT: list[tuple[Callable[[FleetRepo], None], dict[str, str]]] = [
    (edit_rendered, {MEMBER1_WEB: "edited"}),
    (edit_record, {WEB_RECORD: "state-edited"}),
    (delete_rendered, {MEMBER1_SETTINGS: "deleted"}),
    (change_input, {MEMBER1_WEB: "stale", MEMBER2_WEB: "stale", WEB_RECORD: "stale"}),
    (delete_record, {WEB_RECORD: "state-edited"}),
]


@pytest.mark.parametrize(
    ("drift", "expected"),
    DRIFT,
    ids=["hand-edit-rendered", "hand-edit-record", "deleted-rendered", "stale-input", "deleted-record"],
)
def test_verify_names_each_drifted_file_and_fails(
    tmp_path: Path, drift: Callable[[FleetRepo], None], expected: dict[str, str]
) -> None:
    repo = shop_fleet(tmp_path)
    drift(repo)
    drifted = repo.commit("drift")

    done = repo.cli("verify", "-o", "json", check=1)

    report = json.loads(done.stdout)
    assert report["commit"] == drifted
    found = {item["path"]: item["finding"] for item in report["failures"]}
    # a hand edit of a record may also leave rendered files stale; everything expected must be named exactly
    assert {path: found.get(path) for path in expected} == expected
    for item in report["failures"]:
        if item["finding"] in ("edited", "deleted", "state-edited"):
            assert item["commit"] == drifted


def test_verify_text_output_is_one_line_per_file_and_says_what_to_do(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    edit_rendered(repo)
    repo.commit("tweak member1 by hand")

    done = repo.cli("verify", check=1)

    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"edited       {MEMBER1_WEB}: tool-written file changed by hand in ")
    assert lines[-1].startswith("verify failed at ")
    assert "1 file(s) stale or edited by hand" in lines[-1]


def test_verify_passes_right_after_reconcile_and_lists_hand_written_files_as_info(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    repo.write("clusters/member2/shop/configmap/extra.yaml", "kind: ConfigMap\n")
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.commit("scale web, and a hand-written file")
    repo.cli("verify", check=1)
    reconcile(repo)

    done = repo.cli("verify")

    assert (
        "info         clusters/member2/shop/configmap/extra.yaml: not written by gitops-karmada"
        in done.stdout
    )
    assert done.stdout.splitlines()[-1].startswith(f"verified {repo.head()[:12]}")


def test_verify_reports_input_errors_and_fails(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    repo.write("policies/web.yaml", {**web_policy({"member1": 1}), "spec": {"placement": "nonsense"}})
    repo.commit("broken policy")

    done = repo.cli("verify", check=1)

    assert "cannot be rendered: fix the input errors above" in done.stdout
    assert "policies/web.yaml" in done.stderr


def test_allow_stale_passes_a_pull_requests_inputs_but_not_hand_edits(tmp_path: Path) -> None:
    """On a pull request the inputs change and reconcile runs after the merge: stale output is pending."""
    repo = shop_fleet(tmp_path)
    change_input(repo)
    repo.commit("scale web (a pull request)")
    repo.cli("verify", check=1)

    done = repo.cli("verify", "--allow-stale")
    assert f"pending      {MEMBER1_WEB}: reconcile would rewrite it" in done.stdout
    assert "no hand edits, the inputs render; 4 file(s) pending" in done.stdout.splitlines()[-1]
    report = json.loads(repo.cli("verify", "--allow-stale", "-o", "json").stdout)
    assert report["ok"] is True and report["failures"] == []
    assert {item["path"] for item in report["info"]} == {
        MEMBER1_WEB,
        MEMBER2_WEB,
        WEB_RECORD,
        "karmada-state/index/shop.json",
    }

    edit_rendered(repo)
    repo.commit("and a hand edit")
    edited = json.loads(repo.cli("verify", "--allow-stale", "-o", "json", check=1).stdout)
    assert [(f["path"], f["finding"]) for f in edited["failures"]] == [(MEMBER1_WEB, "edited")]
