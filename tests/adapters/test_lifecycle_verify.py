"""verify_commit on real repositories: telling the tool's writes from hand edits across branches and merges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.reconciler import reconcile_ref
from gitops_karmada.adapters.verify import Finding, verify_commit
from tests.builders import deployment
from tests.cli.test_lifecycle_fleet import WEB_PATH, WEB_RECORD, shop_fleet, web_policy
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def test_output_reconciled_on_a_merged_branch_is_the_tools_not_a_hand_edit(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    git(repo.path, "checkout", "-q", "-b", "feature")
    repo.write("policies/web.yaml", web_policy({"member1": 1, "member2": 1}))
    repo.commit("even out web")
    store = GitStore.open(repo.path)
    assert reconcile_ref(store, "refs/heads/feature").commit is not None  # CI reconciles the branch
    git(repo.path, "checkout", "-q", "main")
    repo.write("README.md", "the shop\n")
    repo.commit("docs on main meanwhile")
    git(repo.path, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")

    report = verify_commit(store, "HEAD")

    assert report.ok, report.items
    assert report.last_reconcile == git(repo.path, "rev-parse", "HEAD~1~1"), (
        "the newest on main's first parents"
    )
    assert repo.load(WEB_PATH.format(cluster="member2"))["spec"]["replicas"] == 2


def test_a_merge_that_changes_a_rendered_file_by_itself_is_a_hand_edit(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    member1 = WEB_PATH.format(cluster="member1")
    git(repo.path, "checkout", "-q", "-b", "feature")
    repo.write("README.md", "x\n")
    repo.commit("unrelated")
    git(repo.path, "checkout", "-q", "main")
    repo.write("README.md", "y\n")
    repo.commit("other unrelated")
    git(repo.path, "merge", "-q", "--no-ff", "--no-commit", "-X", "ours", "feature")
    repo.write(member1, repo.read(member1).replace("replicas: 3", "replicas: 4"))
    git(repo.path, "add", "-A")
    git(repo.path, "commit", "-q", "-m", "merge, tweaking member1 on the way")

    report = verify_commit(GitStore.open(repo.path), "HEAD")

    (item,) = report.failures
    assert (item.path, item.finding) == (member1, Finding.EDITED)
    assert item.commit == repo.head()


def test_a_repository_never_reconciled_is_all_stale(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path, reconciled=False)

    report = verify_commit(GitStore.open(repo.path), "HEAD")

    assert report.last_reconcile is None
    assert not report.ok
    assert {item.finding for item in report.items} == {Finding.STALE}
    assert WEB_RECORD in {item.path for item in report.failures}
    assert all("never reconciled" in item.detail for item in report.failures)


def test_records_hand_made_before_any_reconcile_are_state_edits(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path, reconciled=False)
    repo.write(WEB_RECORD, "apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\n")
    repo.commit("a record typed by hand")

    report = verify_commit(GitStore.open(repo.path), "HEAD")

    assert not report.input_ok, "the record is not a valid ResourceBinding"
    found = {item.path: item.finding for item in report.failures}
    assert found == {WEB_RECORD: Finding.STATE_EDITED}


def test_an_older_revision_is_verified_as_committed_not_as_the_branch_is_now(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    consistent = repo.head()
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.commit("scale web")
    store = GitStore.open(repo.path)
    assert not verify_commit(store, "HEAD").ok
    assert verify_commit(store, consistent).ok
