"""``collect``'s one-cluster record as a use case, in process: a prepared snapshot recorded on the status
branch (once: the same snapshot again changes nothing), and the branches and clusters it refuses."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.model.errors import InputError, UsageError
from gitops_karmada.usecases.collect import CollectInputError, StatusBranchError, collect_and_record
from tests.cli.test_collect import NOW, STATUS, small_fleet
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

MOMENT = datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)


def prepared(tmp_path: Path, cluster: str = "member2") -> Path:
    snapshot: dict[str, Any] = {
        "apiVersion": "status.gitops-karmada.io/v1alpha1",
        "kind": "ClusterStatusSnapshot",
        "metadata": {"name": cluster},
        "collectedAt": NOW,
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}]},
    }
    path = tmp_path / f"{cluster}.yaml"
    path.write_text(yaml.safe_dump(snapshot))
    return path


def test_a_prepared_snapshot_is_recorded_once_on_the_configured_status_branch(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    store = GitStore.open(repo.path)
    done = collect_and_record(store, "HEAD", "member2", prepared(tmp_path), now=MOMENT, timeout=1)
    assert (done.branch, done.fleet_commit, done.snapshot.cluster) == (STATUS, repo.head(), "member2")
    assert done.commit is not None and done.tip == done.commit == git(repo.path, "rev-parse", STATUS)
    subject = git(repo.path, "log", "-1", "--format=%s", STATUS)
    assert subject == "collect member2: Ready True (ClusterReady)"
    again = collect_and_record(store, "HEAD", "member2", prepared(tmp_path), now=MOMENT, timeout=1)
    assert (again.commit, again.tip) == (None, done.commit), "nothing new to record"
    other = collect_and_record(
        store, "HEAD", "member2", prepared(tmp_path), status_branch="status/lab", now=MOMENT, timeout=1
    )
    assert other.branch == "status/lab" and other.commit == git(repo.path, "rev-parse", "status/lab")


@pytest.mark.parametrize(
    ("branch", "message"),
    [
        ("main", "main is the fleet branch; status goes to a branch of its own"),
        ("-rf", "'-rf' is not a branch name"),
    ],
)
def test_a_status_branch_that_cannot_hold_status_is_a_usage_error(
    tmp_path: Path, branch: str, message: str
) -> None:
    repo = small_fleet(tmp_path)
    with pytest.raises(StatusBranchError) as raised:
        collect_and_record(
            GitStore.open(repo.path),
            "HEAD",
            "member2",
            prepared(tmp_path),
            status_branch=branch,
            now=MOMENT,
            timeout=1,
        )
    assert str(raised.value) == message and isinstance(raised.value, UsageError)
    assert git(repo.path, "branch", "--list", STATUS) == ""


def test_a_snapshot_of_another_cluster_or_of_none_in_the_inventory_is_refused(tmp_path: Path) -> None:
    repo = small_fleet(tmp_path)
    store = GitStore.open(repo.path)
    with pytest.raises(InputError, match="names cluster 'member2', not --cluster 'member1'"):
        collect_and_record(store, "HEAD", "member1", prepared(tmp_path), now=MOMENT, timeout=1)
    with pytest.raises(CollectInputError, match="no cluster 'member9' in the fleet's inventory at HEAD"):
        collect_and_record(store, "HEAD", "member9", prepared(tmp_path, "member9"), now=MOMENT, timeout=1)
    assert git(repo.path, "branch", "--list", STATUS) == ""
