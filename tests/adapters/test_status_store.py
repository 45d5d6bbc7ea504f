"""The status branch: snapshots recorded as one commit each, apart from the fleet branch, read back exactly."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.adapters.git_store import CommitStage, GitStore
from gitops_karmada.adapters.status_store import read_snapshot, read_status, record_snapshots
from gitops_karmada.core.observed.member_status import dump_snapshot
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.status import ClusterStatusSnapshot
from tests.gitrepos import git, make_repo, show, status, tree_files

if TYPE_CHECKING:
    from pathlib import Path

BRANCH = "gitops-karmada-status"
REF = f"refs/heads/{BRANCH}"


def snapshot(
    cluster: str, *, ready: str = "True", at: str = "2026-01-02T03:04:05Z", **extra: Any
) -> ClusterStatusSnapshot:
    return ClusterStatusSnapshot.model_validate(
        {
            "apiVersion": "status.gitops-karmada.io/v1alpha1",
            "kind": "ClusterStatusSnapshot",
            "metadata": {"name": cluster},
            "collectedAt": at,
            "status": {
                "kubernetesVersion": "v1.30.2",
                "conditions": [{"type": "Ready", "status": ready, "reason": "ClusterReady", "lastTransitionTime": at}],
                "nodeSummary": {"totalNum": 3, "readyNum": 2},
                "resourceSummary": {
                    "allocatable": {"pods": "330", "memory": "24Gi", "cpu": "12"},
                    "allocated": {"cpu": "1500m", "memory": "3Gi", "pods": "7"},
                },
            },
            "objects": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web",
                 "observed": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
                              "spec": {"replicas": 3}, "status": {"readyReplicas": 3, "replicas": 3}}},
                {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "gone", "error": "not found"},
            ],
            **extra,
        }
    )  # fmt: skip


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "fleet", {"apps/web.yaml": "kind: ConfigMap\n"})


def test_a_record_round_trips_exactly(fleet: Path) -> None:
    store = GitStore.open(fleet)
    recorded = [snapshot("member1"), snapshot("member2", ready="False")]
    commit = record_snapshots(store, BRANCH, recorded, "collect")
    assert commit is not None and commit == git(fleet, "rev-parse", REF)
    view = read_status(store, BRANCH)
    assert view.commit == commit and view.committed_at is not None
    assert dict(view.snapshots) == {"member1": recorded[0], "member2": recorded[1]}
    raw = show(fleet, REF, "clusters/member1.yaml")
    assert raw == dump_snapshot(recorded[0])
    text = raw.decode()
    assert text.startswith("apiVersion: status.gitops-karmada.io/v1alpha1\nkind: ClusterStatusSnapshot\n")
    assert 'allocatable:\n      cpu: "12"\n      memory: 24Gi\n      pods: "330"\n' in text, (
        "sorted, canonical"
    )
    assert read_snapshot(store, BRANCH, "member2") == recorded[1]
    assert read_snapshot(store, BRANCH, "member9") is None


def test_the_branch_is_created_from_a_root_commit_with_an_empty_tree(fleet: Path) -> None:
    store = GitStore.open(fleet)
    assert read_status(store, BRANCH).commit is None
    assert read_snapshot(store, BRANCH, "member1") is None
    commit = record_snapshots(store, BRANCH, [snapshot("member1")], "collect member1")
    history = git(fleet, "rev-list", REF).splitlines()
    assert history[0] == commit and len(history) == 2
    root = history[1]
    assert git(fleet, "rev-list", "--parents", "-n1", root) == root, "no parent"
    assert git(fleet, "ls-tree", root) == ""
    unrelated = subprocess.run(
        ["git", "-C", str(fleet), "merge-base", "main", REF], capture_output=True, check=False
    )
    assert unrelated.returncode == 1, "no history shared with the fleet branch"
    assert list(tree_files(fleet, REF)) == ["clusters/member1.yaml"]


def test_the_branch_first_appears_with_its_snapshots(fleet: Path) -> None:
    """A daemon polling the branch must never see it empty (every cluster unreported, the whole fleet
    re-rendered, then re-rendered again at the first real record): the ref is created at the record."""
    git(fleet, "config", "core.logAllRefUpdates", "always")
    commit = record_snapshots(GitStore.open(fleet), BRANCH, [snapshot("member1")], "collect member1")
    moves = git(fleet, "reflog", "show", "--format=%H", REF).splitlines()
    assert moves == [commit], "one update: the branch was created at the record, never at the empty root"
    assert git(fleet, "for-each-ref", "refs/gitops-karmada/") == "", "no staging ref left behind"


def test_a_second_record_goes_on_top_and_unchanged_snapshots_make_no_commit(fleet: Path) -> None:
    store = GitStore.open(fleet)
    first = record_snapshots(store, BRANCH, [snapshot("member1")], "one")
    assert record_snapshots(store, BRANCH, [snapshot("member1")], "again") is None
    assert git(fleet, "rev-parse", REF) == first
    later = snapshot("member1", at="2026-01-02T03:05:05Z")
    second = record_snapshots(store, BRANCH, [later, snapshot("member2")], "two")
    assert second is not None and git(fleet, "rev-parse", f"{second}^") == first
    assert git(fleet, "log", "-1", "--format=%s", REF) == "two"
    assert set(read_status(store, BRANCH).snapshots) == {"member1", "member2"}
    assert read_status(store, BRANCH).snapshots["member1"].collected_at == "2026-01-02T03:05:05Z"


def test_a_concurrent_record_is_retried_on_top_of_it(fleet: Path) -> None:
    record_snapshots(GitStore.open(fleet), BRANCH, [snapshot("member1")], "first")
    raced: list[str | None] = []

    def other_writer(stage: CommitStage) -> None:
        # between writing our commit's objects and moving the branch, another collector records member2
        if stage is CommitStage.OBJECTS_WRITTEN and not raced:
            raced.append(record_snapshots(GitStore.open(fleet), BRANCH, [snapshot("member2")], "other"))

    store = GitStore.open(fleet, observer=other_writer)
    ours = record_snapshots(store, BRANCH, [snapshot("member3")], "ours")
    assert raced[0] is not None and ours is not None
    assert git(fleet, "rev-parse", f"{ours}^") == raced[0], "retried on top of the other record"
    assert set(read_status(store, BRANCH).snapshots) == {"member1", "member2", "member3"}


def test_the_fleet_branch_and_work_tree_are_never_touched(fleet: Path) -> None:
    head, before = git(fleet, "rev-parse", "HEAD"), status(fleet)
    (fleet / "apps" / "draft.yaml").write_text("kind: Secret\n")  # an uncommitted edit stays as it is
    record_snapshots(GitStore.open(fleet), BRANCH, [snapshot("member1")], "collect")
    assert git(fleet, "rev-parse", "HEAD") == head
    assert git(fleet, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert status(fleet) == [*before, "?? apps/draft.yaml"]
    assert not (fleet / "clusters").exists()
    assert git(fleet, "rev-list", "--count", "main") == "1"


def test_a_malformed_snapshot_names_branch_file_and_field(fleet: Path) -> None:
    store = GitStore.open(fleet)
    record_snapshots(store, BRANCH, [snapshot("member1")], "collect")
    broken = show(fleet, REF, "clusters/member1.yaml").replace(b'status: "True"', b"status: Maybe")
    tip = git(fleet, "rev-parse", REF)
    store.commit(parent=tip, ref=REF, changes={"clusters/member1.yaml": broken}, message="hand edit")
    with pytest.raises(InputError) as raised:
        read_status(store, BRANCH)
    assert raised.value.source is not None
    assert raised.value.source.path == f"{BRANCH}:clusters/member1.yaml"
    assert raised.value.field == "status.conditions[0].status"
    assert BRANCH in str(raised.value) and "clusters/member1.yaml" in str(raised.value)


def test_a_snapshot_under_another_clusters_file_name_is_refused(fleet: Path) -> None:
    store = GitStore.open(fleet)
    record_snapshots(store, BRANCH, [snapshot("member1")], "collect")
    tip = git(fleet, "rev-parse", REF)
    copied = show(fleet, REF, "clusters/member1.yaml")
    store.commit(parent=tip, ref=REF, changes={"clusters/member2.yaml": copied}, message="copy")
    with pytest.raises(
        InputError, match=r"names cluster 'member1' but the file is clusters/member2\.yaml"
    ) as raised:
        read_status(store, BRANCH)
    assert raised.value.field == "metadata.name"
