"""``output.mode`` end to end on real repositories: the example fleet reconciles, verifies, diffs, traces
and rolls back in each mode; the per-group mode against several local bare remotes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from tests.builders import cluster_doc, deployment
from tests.cli.test_lifecycle_fleet import WEB_PATH, shop_fleet
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

WEB_IN_SHARD = "shop/deployment.apps/web.yaml"


def set_mode(repo: FleetRepo, output: str) -> None:
    repo.write(
        "gitops-karmada.yaml", f"apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\noutput:\n{output}"
    )


def branch_files(repo: FleetRepo, branch: str) -> list[str]:
    listing = git(repo.path, "ls-tree", "-r", "--name-only", branch)
    return listing.splitlines() if listing else []


def web_replicas(repo: Path, rev: str, path: str) -> int:
    replicas: int = yaml.safe_load(git(repo, "show", f"{rev}:{path}"))["spec"]["replicas"]
    return replicas


def test_branch_per_cluster_moves_the_folders_out_and_every_verb_reads_them_back(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    tree_mode = {p: git(repo.path, "rev-parse", f"HEAD:{p}") for p in repo.tree("clusters")}
    set_mode(repo, "  mode: branch-per-cluster\n")
    repo.commit("one branch per cluster")

    moved = repo.cli("reconcile")
    assert "moved the cluster folders out of clusters/" in moved.stderr
    assert "3 output shard(s) committed" in moved.stdout
    assert " 0 redone" in moved.stderr, "where the output goes changes no rendering: nothing is redone"
    assert repo.tree("clusters") == [], "the source branch keeps only the inputs, records and state"
    assert not repo.exists("clusters")
    for path, oid in tree_mode.items():
        cluster, _, inside = path.removeprefix("clusters/").partition("/")
        assert git(repo.path, "rev-parse", f"clusters/{cluster}:{inside}") == oid, path
    assert sorted(branch_files(repo, "clusters/member3")) == sorted(
        p.removeprefix("clusters/member3/") for p in tree_mode if p.startswith("clusters/member3/")
    )
    record = yaml.safe_load(repo.read("karmada-state/shards.yaml"))
    assert record["mode"] == "branch-per-cluster"
    assert {s["name"]: s["commit"] for s in record["shards"]} == {
        c: git(repo.path, "rev-parse", f"clusters/{c}") for c in ("member1", "member2", "member3")
    }
    assert "up to date" in repo.cli("reconcile").stdout
    repo.cli("verify", "--full")

    # one template changed: only its clusters' branches get a commit; diff and trace read the shards
    before = {c: git(repo.path, "rev-parse", f"clusters/{c}") for c in ("member1", "member2", "member3")}
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.commit("scale web to 8")
    diff = repo.cli("diff", "--base", "HEAD~1", "--head", "HEAD", "--exit-code", "false")
    assert WEB_PATH.format(cluster="member1") in diff.stdout
    repo.cli("reconcile")
    after = {c: git(repo.path, "rev-parse", f"clusters/{c}") for c in ("member1", "member2", "member3")}
    assert after["member3"] == before["member3"], "a cluster the change does not touch keeps its commit"
    assert after["member1"] != before["member1"]
    assert git(repo.path, "rev-parse", "clusters/member1^") == before["member1"], "a fast-forward"
    assert web_replicas(repo.path, "clusters/member1", WEB_IN_SHARD) == 6
    trace = repo.cli("trace", WEB_PATH.format(cluster="member1"))
    assert "scale web to 8" in trace.stdout
    repo.cli("verify")
    assert "member1" in repo.cli("describe", "Deployment/shop/web").stdout
    assert "member1" in repo.cli("get", "bindings", "-A", "-o", "wide").stdout
    assert "member1 3→6" in repo.cli("history", "Deployment/shop/web").stdout
    assert WEB_PATH.format(cluster="member1") in repo.cli("explain", "Deployment.apps/shop/web").stdout

    # rollback: the shards get the earlier output back
    repo.cli("rollback", "HEAD~2")
    assert web_replicas(repo.path, "clusters/member1", WEB_IN_SHARD) == 3
    assert repo.tree("clusters") == []
    repo.cli("verify", "--full")

    # back to one tree: the folders return to the source branch, byte for byte
    set_mode(repo, "  mode: tree\n")
    repo.commit("one tree again")
    back = repo.cli("reconcile")
    assert "the cluster folders are back in clusters/" in back.stderr
    assert not repo.exists("karmada-state/shards.yaml")
    assert web_replicas(repo.path, "HEAD", WEB_PATH.format(cluster="member1")) == 3
    repo.cli("verify", "--full")


def test_a_run_interrupted_between_shards_is_reported_by_verify_and_repaired_by_the_next_run(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path)
    set_mode(repo, "  mode: branch-per-cluster\n  branch: out/{cluster}\n  folder: manifests\n")
    repo.commit("branches")
    repo.cli("reconcile")
    assert branch_files(repo, "out/member1")[0].startswith("manifests/")
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    source = repo.commit("scale web to 8")
    repo.cli("reconcile")
    shard = git(repo.path, "rev-parse", "out/member1")
    # as if the run died after writing the shards, before its source-branch commit
    git(repo.path, "reset", "-q", "--hard", source)

    verify = repo.cli("verify", check=1)
    assert "refs/heads/out/member1" in verify.stdout
    assert "interrupted between shards" in verify.stdout

    repo.cli("reconcile")
    assert git(repo.path, "rev-parse", "out/member1") == shard, (
        "the shard already written is recorded, not redone"
    )
    assert yaml.safe_load(repo.read("karmada-state/shards.yaml"))["shards"][0]["commit"] == shard
    repo.cli("verify")


def test_a_commit_made_on_a_shard_branch_is_reverted_by_the_next_run(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    set_mode(repo, "  mode: branch-per-cluster\n")
    repo.commit("branches")
    repo.cli("reconcile")
    recorded = git(repo.path, "rev-parse", "clusters/member1")
    git(repo.path, "checkout", "-q", "clusters/member1")
    (repo.path / WEB_IN_SHARD).write_text(
        (repo.path / WEB_IN_SHARD).read_text().replace("replicas: 3", "replicas: 1")
    )
    git(repo.path, "commit", "-qam", "hand edit on the shard")
    git(repo.path, "checkout", "-q", "main")

    assert "interrupted between shards, or someone committed" in repo.cli("verify", check=1).stdout
    assert (
        "member1 (clusters/member1) are not where the last reconcile recorded" in repo.cli("reconcile").stderr
    )
    tip = git(repo.path, "rev-parse", "clusters/member1")
    assert git(repo.path, "rev-parse", "clusters/member1~2") == recorded, "on top of the hand edit"
    assert web_replicas(repo.path, tip, WEB_IN_SHARD) == 3
    repo.cli("verify")


def test_repo_per_group_writes_each_group_to_its_own_remote_and_a_fresh_clone_reads_them(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path)
    remotes = {name: tmp_path / f"{name}.git" for name in ("origin", "eu", "us")}
    for bare in remotes.values():
        git(tmp_path, "init", "-q", "--bare", str(bare))
    repo.write("inventory/member3.yaml", cluster_doc("member3", labels={"env": "prod", "region": "us"}))
    set_mode(
        repo,
        "  mode: repo-per-group\n  groups:\n"
        f"    - name: eu\n      remote: {remotes['eu']}\n      clusters: [member1, member2]\n"
        f"    - name: us\n      remote: {remotes['us']}\n      branch: fleet\n      folder: clusters\n"
        "      clusterSelector: {matchLabels: {region: us}}\n",
    )
    repo.commit("a repository per group")
    git(repo.path, "remote", "add", "origin", str(remotes["origin"]))
    git(repo.path, "push", "-q", "-u", "origin", "main")

    repo.cli("reconcile", "--push")
    assert git(remotes["eu"], "ls-tree", "--name-only", "main").splitlines() == ["member1", "member2"]
    assert git(remotes["us"], "ls-tree", "--name-only", "fleet:clusters").splitlines() == ["member3"]
    assert "clusters" not in git(remotes["origin"], "ls-tree", "--name-only", "main").splitlines()
    assert git(remotes["eu"], "rev-parse", "main") == git(
        repo.path, "rev-parse", "refs/gitops-karmada/groups/eu"
    )

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "main", str(remotes["origin"]), str(clone))
    git(clone, "config", "user.name", "t")
    git(clone, "config", "user.email", "t@t")
    from tests.fleet import FleetRepo

    other = FleetRepo(clone)
    assert "fetched output shard(s) eu, us" in other.cli("verify").stderr
    other.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    other.commit("scale web to 8")
    us_before = git(remotes["us"], "rev-parse", "fleet")
    diff = other.cli("diff", "--base", "HEAD~1", "--head", "HEAD", "--exit-code", "false")
    assert WEB_PATH.format(cluster="member1") in diff.stdout
    other.cli("reconcile", "--push")
    assert web_replicas(remotes["eu"], "main", "member1/" + WEB_IN_SHARD) == 6
    assert git(remotes["us"], "rev-parse", "fleet") == us_before, "the group the change does not touch"
    other.cli("verify", "--full")

    scaled = git(remotes["eu"], "rev-parse", "main")
    other.cli("rollback", "HEAD~2")
    other.cli("reconcile", "--push")
    assert web_replicas(remotes["eu"], "main", "member1/" + WEB_IN_SHARD) == 3
    git(remotes["eu"], "merge-base", "--is-ancestor", scaled, "main")  # forward: the group's history kept
    other.cli("verify", "--full")


def test_a_cluster_no_group_takes_is_an_error_at_the_configuration(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    set_mode(
        repo,
        "  mode: repo-per-group\n  groups:\n    - name: eu\n      remote: x\n      clusters: [member1]\n",
    )
    repo.commit("member2 and member3 in no group")
    for verb in ("validate", "reconcile"):
        done = repo.cli(verb, check=1)
        text = done.stdout + done.stderr
        assert "gitops-karmada.yaml" in text and "output.groups" in text, verb
        assert "cluster member2 belongs to no group" in text, verb


def test_the_daemon_in_remote_mode_pushes_the_shards_before_the_source_branch(tmp_path: Path) -> None:
    from tests.cli.watch_harness import Daemon, Remote, clone, wait_for

    remote = Remote.create(tmp_path)
    set_mode(remote.user, "  mode: branch-per-cluster\n")
    remote.user.commit("one branch per cluster")
    git(remote.user.path, "push", "-q", "origin", "main")
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    with Daemon.start(
        work, "--remote", "origin", "--interval", "0.3", log_path=tmp_path / "daemon.log"
    ) as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the first reconcile")
        assert "clusters" not in git(remote.bare, "ls-tree", "--name-only", "main").splitlines()
        source = remote.push_change(6)
        wait_for(lambda: remote.reconciled(source), "the reconcile of the push")
        record = yaml.safe_load(git(remote.bare, "show", "main:karmada-state/shards.yaml"))
        for shard in record["shards"]:
            assert git(remote.bare, "rev-parse", f"refs/heads/clusters/{shard['name']}") == shard["commit"]
        assert web_replicas(remote.bare, "clusters/member1", WEB_IN_SHARD) in (3, 4)
        assert daemon.terminate() == 0


def test_two_groups_on_one_branch_of_one_repository_are_an_error_at_the_configuration(tmp_path: Path) -> None:
    """Each push of a group's branch would replace the other group's files there (before, validate took it,
    and the remote branch held one group's clusters only)."""
    repo = shop_fleet(tmp_path)
    set_mode(
        repo,
        "  mode: repo-per-group\n  groups:\n"
        "    - name: eu\n      remote: fleet-out\n      clusters: [member1, member2]\n"
        "    - name: us\n      remote: fleet-out\n      folder: us\n      clusters: [member3]\n",
    )
    repo.commit("two groups on main of fleet-out")
    for verb in ("validate", "reconcile"):
        done = repo.cli(verb, check=1)
        text = done.stdout + done.stderr
        assert "gitops-karmada.yaml" in text, verb
        assert "groups eu and us both write branch main of fleet-out" in text, verb


def test_a_cluster_branch_that_is_the_branch_reconciled_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    """``output.branch: "{cluster}"`` with the fleet on a branch named as a cluster: the shard commit would
    replace the inputs and records on the branch (before, it did, and the run then failed)."""
    repo = shop_fleet(tmp_path)
    set_mode(repo, '  mode: branch-per-cluster\n  branch: "{cluster}"\n')
    repo.commit("a branch per cluster, named as the cluster")
    git(repo.path, "branch", "-q", "-m", "member1")
    source = repo.head()

    done = repo.cli("reconcile", check=1)
    assert "output.branch makes member1, the branch being reconciled, the branch of cluster member1" in (
        done.stdout + done.stderr
    )
    assert git(repo.path, "rev-parse", "refs/heads/member1") == source, "the source branch is as it was"
    assert git(repo.path, "for-each-ref", "--format=%(refname)", "refs/heads/") == "refs/heads/member1"
    assert repo.status() == ""


def test_a_group_on_the_branch_the_fleet_is_pushed_to_is_refused_before_anything_is_pushed(
    tmp_path: Path,
) -> None:
    """A group on the source repository's own remote, with the default branch main: before, the group's push
    was rejected and the run reported a diverged branch."""
    repo = shop_fleet(tmp_path)
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    set_mode(
        repo,
        "  mode: repo-per-group\n  groups:\n"
        "    - name: all\n      remote: origin\n      clusters: [member1, member2, member3]\n",
    )
    repo.commit("one group, on origin's main")
    git(repo.path, "remote", "add", "origin", str(origin))
    git(repo.path, "push", "-q", "-u", "origin", "main")
    pushed = git(origin, "rev-parse", "main")

    done = repo.cli("reconcile", "--push", check=1)
    assert "output shard all would be pushed to origin main, the branch the fleet itself is pushed to" in (
        done.stdout + done.stderr
    )
    assert "diverged" not in done.stdout + done.stderr
    assert git(origin, "rev-parse", "main") == pushed, "nothing pushed"


def test_a_held_push_made_when_the_daemon_stops_carries_its_shards(tmp_path: Path) -> None:
    import json

    from tests.cli.test_watch import SECRET, _signed
    from tests.cli.watch_harness import Daemon, Remote, clone, wait_for
    from tests.daemon.test_push_coalescing import _counter

    remote = Remote.create(tmp_path)
    set_mode(remote.user, "  mode: branch-per-cluster\n")
    remote.user.commit("one branch per cluster")
    git(remote.user.path, "push", "-q", "origin", "main")
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    args = (
        "--remote",
        "origin",
        "--interval",
        "60",
        "--webhook-secret-file",
        str(secret),
        "--push-interval",
        "60",
    )
    with Daemon.start(work, *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile, pushed at once")
        source = remote.push_change(7)
        body = json.dumps({"ref": "refs/heads/main"}).encode()
        assert daemon.post("/hooks/git", body, _signed(body)) == 202
        wait_for(lambda: _counter(daemon, "gitops_karmada_pushes_held_back_total") == 1, "the held run")
        assert daemon.terminate() == 0
    assert remote.reconciled(source)
    record = yaml.safe_load(git(remote.bare, "show", "main:karmada-state/shards.yaml"))
    for shard in record["shards"]:
        assert git(remote.bare, "rev-parse", f"refs/heads/clusters/{shard['name']}") == shard["commit"]


def test_a_cluster_moved_to_another_group_leaves_one_repository_for_the_other(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    remotes = {name: tmp_path / f"{name}.git" for name in ("eu", "us")}
    for bare in remotes.values():
        git(tmp_path, "init", "-q", "--bare", str(bare))
    groups = "  mode: repo-per-group\n  groups:\n    - name: eu\n      remote: {eu}\n      clusters: [{eu_clusters}]\n    - name: us\n      remote: {us}\n      clusters: [{us_clusters}]\n"
    set_mode(
        repo,
        groups.format(
            eu=remotes["eu"], us=remotes["us"], eu_clusters="member1, member2", us_clusters="member3"
        ),
    )
    repo.commit("two groups")
    repo.cli("reconcile")

    set_mode(
        repo,
        groups.format(
            eu=remotes["eu"], us=remotes["us"], eu_clusters="member1, member2, member3", us_clusters=""
        ),
    )
    repo.commit("member3 joins eu")
    moved = repo.cli("reconcile")
    assert "2 output shard(s) committed" in moved.stdout
    assert branch_files_at(repo, "refs/gitops-karmada/groups/eu", "member3"), "member3's folder is in eu's"
    assert git(repo.path, "ls-tree", "refs/gitops-karmada/groups/us") == "", "and no longer in us's"
    record = yaml.safe_load(repo.read("karmada-state/shards.yaml"))
    assert [s["name"] for s in record["shards"]] == ["eu"]
    repo.cli("verify", "--full")


def branch_files_at(repo: FleetRepo, ref: str, folder: str) -> list[str]:
    listing = git(repo.path, "ls-tree", "-r", "--name-only", ref, "--", folder)
    return listing.splitlines() if listing else []


def test_files_of_the_source_branch_under_the_cluster_folders_are_kept_or_moved_never_dropped(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path)
    repo.write("clusters/README.md", "# what syncs these folders\n")
    repo.write(
        "clusters/member1/shop/configmap/hand-tuned.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hand-tuned, namespace: shop}\n",
    )
    set_mode(repo, "  mode: branch-per-cluster\n")
    repo.commit("branches, with a hand-written file and a stray one")
    repo.cli("reconcile")
    assert repo.tree("clusters") == ["clusters/README.md"], "the stray file stays on the source branch"
    assert "shop/configmap/hand-tuned.yaml" in branch_files(repo, "clusters/member1"), (
        "the hand-written one moved"
    )

    # a file committed into a cluster's folder on the source branch later moves into that cluster's branch
    repo.write(
        "clusters/member2/shop/configmap/late.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late, namespace: shop}\n",
    )
    repo.commit("a hand-written file for member2, on the source branch")
    moved = repo.cli("reconcile")
    assert "move from clusters/ to their shard branches" in moved.stderr
    assert "shop/configmap/late.yaml" in branch_files(repo, "clusters/member2")
    assert repo.tree("clusters") == ["clusters/README.md"]
    repo.cli("verify")
