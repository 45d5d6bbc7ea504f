"""What the daemon's collector does with Git: a round recorded on a remote's status branch (a push with a
lease on the tip fetched, recorded again on the new tip when another collector pushed first), and the fleet
read once, not at every reconcile commit. Real repositories and a bare remote; the race is placed exactly
with GitStore's own observer, which runs between the local commit and the push."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import CommitStage, GitStore
from gitops_karmada.adapters.status_store import read_status, record_snapshots
from gitops_karmada.model.status import ClusterStatusSnapshot
from gitops_karmada.usecases.collect import cluster_objects, fleet_at, record_round
from tests.builders import cluster_doc, configmap
from tests.fleet import FleetRepo
from tests.gitrepos import git, make_repo

if TYPE_CHECKING:
    from pathlib import Path

STATUS = "gitops-karmada-status"


def snapshot(cluster: str, at: str, *, ready: str = "True") -> ClusterStatusSnapshot:
    return ClusterStatusSnapshot.model_validate(
        {
            "metadata": {"name": cluster},
            "collectedAt": at,
            "status": {"conditions": [{"type": "Ready", "status": ready, "reason": "ClusterReady"}]},
        }
    )


def remote_with_clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A bare remote, the daemon's clone and another collector's clone."""
    origin = make_repo(tmp_path / "origin", {"apps/web.yaml": "kind: ConfigMap\n"})
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin), str(bare))
    clones = []
    for name in ("daemon", "other"):
        git(tmp_path, "clone", "-q", str(bare), str(tmp_path / name))
        clones.append(tmp_path / name)
    return bare, clones[0], clones[1]


def push_from(clone: Path, *snapshots: ClusterStatusSnapshot) -> str:
    """Another collector: record on top of the remote's status branch and push (no force)."""
    if STATUS in git(clone, "ls-remote", "--heads", "origin", STATUS):
        git(clone, "fetch", "-q", "origin", f"+{STATUS}:{STATUS}")
    commit = record_snapshots(GitStore.open(clone), STATUS, list(snapshots), "another collector")
    assert commit is not None
    git(clone, "push", "-q", "origin", STATUS)
    return commit


def test_a_rejected_push_is_recorded_again_on_the_remotes_new_tip(tmp_path: Path) -> None:
    bare, daemon, other = remote_with_clones(tmp_path)
    first = push_from(other, snapshot("member2", "2026-01-02T03:04:00Z"))
    raced: list[str] = []

    def another_collector_pushes(stage: CommitStage) -> None:
        # after the daemon's local commit, before its push: the remote moves under the lease
        if stage is CommitStage.REF_UPDATED and not raced:
            raced.append(push_from(other, snapshot("member3", "2026-01-02T03:04:01Z")))

    store = GitStore.open(daemon, observer=another_collector_pushes)
    outcome = record_round(
        store,
        STATUS,
        [snapshot("member1", "2026-01-02T03:04:02Z")],
        fleet_commit=git(daemon, "rev-parse", "HEAD"),
        grace_seconds=40,
        interval_seconds=5,
        remote="origin",
    )
    assert outcome.pushed and outcome.rejected == 1 and outcome.recorded == ("member1",)
    tip = git(bare, "rev-parse", STATUS)
    assert tip == outcome.commit
    assert git(bare, "rev-parse", f"{tip}~1") == raced[0], "recorded again on the other collector's commit"
    assert git(bare, "merge-base", "--is-ancestor", first, tip) == ""
    assert sorted(read_status(GitStore.open(bare), STATUS).snapshots) == ["member1", "member2", "member3"]


def test_replicas_collecting_the_same_cluster_record_its_heartbeat_once(tmp_path: Path) -> None:
    bare, daemon, other = remote_with_clones(tmp_path)
    push_from(other, snapshot("member1", "2026-01-02T03:04:10Z"))
    tip = git(bare, "rev-parse", STATUS)
    store = GitStore.open(daemon)

    def round_at(at: str, ready: str = "True") -> str | None:
        return record_round(
            store,
            STATUS,
            [snapshot("member1", at, ready=ready)],
            fleet_commit=git(daemon, "rev-parse", "HEAD"),
            grace_seconds=40,
            interval_seconds=5,
            remote="origin",
        ).commit

    assert round_at("2026-01-02T03:04:05Z") is None, "older than what the other replica recorded"
    assert round_at("2026-01-02T03:04:25Z") is None, "the heartbeat alone, 15 s old (20 s at the next round)"
    assert git(bare, "rev-parse", STATUS) == tip
    changed = round_at("2026-01-02T03:04:26Z", ready="False")
    assert changed is not None and git(bare, "rev-parse", STATUS) == changed, "a change goes at once"


def test_a_reconcile_commit_reuses_the_inventory_and_the_untouched_clusters_objects(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "clusters/member1/shop/configmap/a.yaml": configmap("a", "shop"),
            "clusters/member2/shop/configmap/b.yaml": configmap("b", "shop"),
        },
        clusters=2,
    )
    store = GitStore.open(repo.path)
    first = fleet_at(store, repo.head(), None)
    assert first.clusters == {"member1", "member2"}
    one, two = (cluster_objects(store, first, name) for name in ("member1", "member2"))
    repo.write("clusters/member1/shop/configmap/c.yaml", configmap("c", "shop"))  # what a reconcile writes
    second = fleet_at(store, repo.commit("a reconcile"), first)
    assert second.config is first.config and second.commit == repo.head(), "the inventory was not read again"
    assert cluster_objects(store, second, "member2") is two
    assert len(cluster_objects(store, second, "member1").identities) == len(one.identities) + 1
    repo.write("inventory/member3.yaml", cluster_doc("member3"))  # an input: everything is read again
    third = fleet_at(store, repo.commit("a third cluster"), second)
    # read again: the new inventory (the configuration, the same content, is parsed once per process)
    assert third.clusters == {"member1", "member2", "member3"} and third.commit == repo.head()


def test_a_round_whose_push_failed_does_not_keep_the_heartbeat_off_the_remote(tmp_path: Path) -> None:
    bare, daemon, _ = remote_with_clones(tmp_path)
    store = GitStore.open(daemon)
    # a round recorded locally whose push never happened; the remote has no status branch at all
    record_snapshots(store, STATUS, [snapshot("member1", "2026-01-02T03:04:00Z")], "an unpushed round")
    outcome = record_round(
        store,
        STATUS,
        [snapshot("member1", "2026-01-02T03:04:05Z")],  # the heartbeat alone, 5 s after the unpushed one
        fleet_commit=git(daemon, "rev-parse", "HEAD"),
        grace_seconds=40,
        interval_seconds=5,
        remote="origin",
    )
    assert outcome.pushed and git(bare, "rev-parse", STATUS) == outcome.commit
    assert git(bare, "rev-list", "--count", STATUS) == "2", "an empty root and the round: nothing unpushed"
