"""The pull-request comment on realistic changes of the example fleet, compared with checked-in snapshots.

Rewrite the snapshots with ``pytest tests/action --update-golden`` and review the diff before committing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gitops_karmada.action.comment import marker_size, sticky_body
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.diff import (
    COMMENT_LIMIT,
    Budget,
    PlanDiff,
    Unit,
    compare,
    parse_guardrails,
    render_json,
    render_markdown,
    render_text,
)
from gitops_karmada.core.diff.budget import measure
from gitops_karmada.usecases.diff import read_revision
from tests.action.scenarios import SCENARIOS, SECRET_VALUES, build_fleet, clone_fleet, isolated_git

SNAPSHOTS = Path(__file__).parent / "snapshots"
GUARDRAILS = parse_guardrails(["cluster-emptied", "replicas-moved>20%", "unschedulable", "quota-blocked"])


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with isolated_git(tmp_path_factory.mktemp("home")):
        return build_fleet(tmp_path_factory.mktemp("fleet") / "fleet").path


def scenario_diff(fleet: Path, work: Path, name: str) -> PlanDiff:
    repo = clone_fleet(fleet, work / "repo")
    SCENARIOS[name](repo)
    repo.commit(name)
    store = GitStore.open(repo.path)
    base = dataclasses.replace(read_revision(store, "main"), revision="main")
    head = dataclasses.replace(read_revision(store, "feature"), revision="feature")
    return compare(base, head, GUARDRAILS)


@pytest.mark.parametrize("name", sorted(SCENARIOS), ids=sorted(SCENARIOS))
def test_comment_snapshot(name: str, fleet: Path, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    diff = scenario_diff(fleet, tmp_path, name)
    key = "."
    comment = sticky_body(
        render_markdown(diff, Budget(COMMENT_LIMIT - marker_size(key), Unit.CHARACTERS)), key
    )
    snapshot = SNAPSHOTS / f"{name}.md"
    if request.config.getoption("--update-golden"):
        SNAPSHOTS.mkdir(exist_ok=True)
        snapshot.write_text(comment, encoding="utf-8")
    assert measure(comment, Unit.CHARACTERS) <= COMMENT_LIMIT
    assert comment == snapshot.read_text(encoding="utf-8")
    for output in (comment, render_markdown(diff), render_json(diff), render_text(diff)):
        for value in SECRET_VALUES:
            assert value not in output


def test_weight_change_table_shows_the_exact_moves(fleet: Path, tmp_path: Path) -> None:
    diff = scenario_diff(fleet, tmp_path, "weight-change")
    comment = render_markdown(diff, Budget(COMMENT_LIMIT, Unit.CHARACTERS))
    table = comment[comment.index("### Placement") :].split("\n\n")[1].splitlines()
    assert table == [
        "| Template | Policy | Replicas | `member1` | `member2` | `member3` | Moved |",
        "|:--|:--|--:|--:|--:|--:|--:|",
        "| `Deployment.apps/shop/frontend` | pp/frontend | 8 | **4 → 2** | **2 → 3** | **2 → 3** | 2 of 8 (25 %) |",
    ]
    assert comment.index("### Placement") < comment.index("### Manifests")


def test_far_over_budget_keeps_the_summary(fleet: Path, tmp_path: Path) -> None:
    diff = scenario_diff(fleet, tmp_path, "far-over-budget")
    full = render_markdown(diff)
    comment = render_markdown(diff, Budget(COMMENT_LIMIT, Unit.CHARACTERS))
    assert len(full) > 4 * COMMENT_LIMIT
    assert measure(comment, Unit.CHARACTERS) <= COMMENT_LIMIT
    summary_end = full.index("\n\n", full.index("**Summary:**"))
    assert comment[:summary_end] == full[:summary_end]
    assert "**Shortened to fit 65,536 characters**" in comment


def test_secret_change_names_keys_only(fleet: Path, tmp_path: Path) -> None:
    diff = scenario_diff(fleet, tmp_path, "secret-change")
    secrets = [o for o in diff.objects if o.title == "Secret/shop/db-credentials"]
    assert [o.cluster for o in secrets] == ["member1", "member2"]
    keys = secrets[0].secret_keys
    assert keys is not None
    assert (keys.added, keys.removed, keys.changed) == (
        ("data.api-token", "stringData.note"),
        ("data.username",),
        ("data.password",),
    )
