"""``rollback REV`` end to end on real repositories: output and records byte-equal to what REV produced."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.builders import deployment
from tests.cli.test_lifecycle_fleet import (
    WEB_PATH,
    WEB_RECORD,
    change,
    input_blobs,
    managed_blobs,
    shop_fleet,
    web_policy,
)
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

HAND_WRITTEN = "clusters/member1/shop/configmap/hand-tuned.yaml"


def three_states(tmp_path: Path) -> tuple[FleetRepo, list[str]]:
    """The fleet reconciled at three input commits: returns the input commits, oldest first."""
    repo = shop_fleet(tmp_path)
    first = git(repo.path, "rev-parse", "HEAD~1")
    second = change(
        repo, {"policies/web.yaml": web_policy({"member1": 1, "member2": 1, "member3": 2})}, "spread web"
    )
    third = change(repo, {"apps/web.yaml": deployment("web", "shop", replicas=8)}, "scale web to 8")
    return repo, [first, second, third]


def test_rollback_two_commits_back_and_forward_again_restores_outputs_and_records_byte_for_byte(
    tmp_path: Path,
) -> None:
    repo, (first, _, third) = three_states(tmp_path)
    produced = {rev: managed_blobs(repo, f"{reconciled}") for rev, reconciled in _reconciles(repo).items()}
    history_before = git(repo.path, "rev-list", "HEAD").splitlines()

    back = repo.cli("rollback", first)
    assert "restoring the output of reconcile commit" in back.stdout
    assert managed_blobs(repo) == produced[first]
    assert input_blobs(repo) == input_blobs(repo, first)
    assert not repo.exists(WEB_PATH.format(cluster="member3"))
    message = git(repo.path, "log", "-1", "--format=%B")
    assert f"Rollback-To: {first}" in message
    assert "Rendered-By: gitops-karmada" in message
    assert "reconcile: up to date" in back.stdout, "the restored output is already what reconcile makes"

    forward = repo.cli("rollback", third)
    assert "reconcile: up to date" in forward.stdout
    assert managed_blobs(repo) == produced[third]
    assert input_blobs(repo) == input_blobs(repo, third)
    assert repo.load(WEB_PATH.format(cluster="member3"))["spec"]["replicas"] == 4

    history_after = git(repo.path, "rev-list", "HEAD").splitlines()
    assert history_after[2:] == history_before, "two new commits on top; nothing rewritten"
    assert repo.status() == ""
    repo.cli("verify")


def _reconciles(repo: FleetRepo) -> dict[str, str]:
    """Source commit → the reconcile commit that rendered it, from the trailers."""
    log = git(repo.path, "log", "--format=%H %(trailers:key=Source-Commit,valueonly,separator=)")
    return {
        source: commit for commit, _, source in (line.partition(" ") for line in log.splitlines()) if source
    }


def test_rollback_keeps_a_hand_written_file_in_a_cluster_folder(tmp_path: Path) -> None:
    repo, (first, _, _) = three_states(tmp_path)
    repo.write(HAND_WRITTEN, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hand-tuned}\n")
    repo.commit("a hand-written ConfigMap for member1")
    content = repo.read(HAND_WRITTEN)

    repo.cli("rollback", first)

    assert repo.read(HAND_WRITTEN) == content
    assert HAND_WRITTEN in repo.tree("clusters/")
    assert repo.load(WEB_PATH.format(cluster="member1"))["spec"]["replicas"] == 3


def test_rollback_refuses_over_uncommitted_edits_and_changes_nothing(tmp_path: Path) -> None:
    repo, (first, _, _) = three_states(tmp_path)
    head = repo.head()
    repo.write("policies/web.yaml", web_policy({"member1": 5, "member2": 5}))  # saved, not committed
    edited = repo.read("policies/web.yaml")

    done = repo.cli("rollback", first, check=1)

    assert "uncommitted changes" in done.stderr
    assert "policies/web.yaml" in done.stderr
    assert repo.head() == head
    assert repo.read("policies/web.yaml") == edited
    assert repo.status() == " M policies/web.yaml"


def test_rollback_dry_run_lists_the_changes_and_commits_nothing(tmp_path: Path) -> None:
    repo, (first, _, _) = three_states(tmp_path)
    head = repo.head()

    done = repo.cli("rollback", "--dry-run", first)

    lines = done.stdout.splitlines()
    assert "W input  policies/web.yaml" in lines
    assert "W input  apps/web.yaml" in lines
    assert f"W state  {WEB_RECORD}" in lines
    assert f"D output {WEB_PATH.format(cluster='member3')}" in lines
    assert repo.head() == head


def test_rollback_refuses_a_revision_outside_the_branch_unless_forced(tmp_path: Path) -> None:
    repo, (first, _, _) = three_states(tmp_path)
    git(repo.path, "branch", "experiment", first)
    git(repo.path, "checkout", "-q", "experiment")
    experiment = change(
        repo, {"policies/web.yaml": web_policy({"member3": 1})}, "web on member3 only", reconciled=False
    )
    git(repo.path, "checkout", "-q", "main")
    head = repo.head()

    refused = repo.cli("rollback", experiment, check=1)
    assert "--force-unrelated" in refused.stderr
    assert repo.head() == head

    forced = repo.cli("rollback", "--force-unrelated", experiment)
    assert "restoring the inputs only" in forced.stdout, "experiment was never reconciled"
    assert git(repo.path, "rev-parse", "HEAD~2") == head, "a rollback commit, then a reconcile commit"
    assert repo.load(WEB_PATH.format(cluster="member3"))["spec"]["replicas"] == 4
    assert not repo.exists(WEB_PATH.format(cluster="member1"))


def test_rollback_to_an_unreconciled_revision_restores_inputs_and_renders_them(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    never = change(
        repo, {"policies/web.yaml": web_policy({"member1": 1, "member3": 1})}, "try", reconciled=False
    )
    change(repo, {"policies/web.yaml": web_policy({"member2": 1})}, "no, member2 only")
    assert not repo.exists(WEB_PATH.format(cluster="member1"))

    done = repo.cli("rollback", never)

    assert "no reconcile commit of these inputs was found" in done.stdout
    assert "reconcile: committed" in done.stdout
    assert git(repo.path, "log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", "HEAD~1") == ""
    assert repo.load(WEB_PATH.format(cluster="member1"))["spec"]["replicas"] == 2
    assert repo.load(WEB_PATH.format(cluster="member3"))["spec"]["replicas"] == 2
    repo.cli("verify")
