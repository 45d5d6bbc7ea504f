"""verify_commit on real repositories: telling the tool's writes from hand edits across branches and merges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.usecases.reconcile import reconcile_ref
from gitops_karmada.usecases.verify import Finding, verify_commit
from tests.builders import deployment
from tests.cli.test_lifecycle_fleet import WEB_PATH, WEB_RECORD, shop_fleet, web_policy
from tests.cli.test_quota import quota_fleet
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


def test_a_commit_nothing_changed_in_since_its_reconcile_is_vouched_for_as_a_full_render_reads_it(
    tmp_path: Path,
) -> None:
    """The tool's commit, then a commit outside the inputs: the state index vouches for every template, so
    nothing is re-rendered, and the report is what re-rendering everything reports (hand-written files
    named, quota-owned files not)."""
    repo = quota_fleet(tmp_path, staticAssignments=[{"clusterName": "member1", "hard": {"cpu": "6"}}])
    repo.write("clusters/member2/shop/configmap/extra.yaml", "kind: ConfigMap\n")
    repo.commit("a hand-written file")
    store = GitStore.open(repo.path)
    assert reconcile_ref(store, "refs/heads/main").commit is not None
    assert list((repo.path / "clusters/member1").rglob("resourcequota/*.yaml")), "a quota-owned file"
    repo.write("README.md", "the shop\n")
    repo.commit("docs")

    vouched = verify_commit(store, "HEAD")
    rendered = verify_commit(store, "HEAD", full=True)

    assert (vouched.rendered, vouched.templates) == (0, 1)
    assert (rendered.rendered, rendered.templates) == (1, 1)
    assert vouched.ok and rendered.ok
    assert vouched.items == rendered.items
    assert [item.path for item in vouched.info] == ["clusters/member2/shop/configmap/extra.yaml"]
    assert (vouched.commit, vouched.last_reconcile) == (rendered.commit, rendered.last_reconcile)
    assert set(vouched.diagnostics) <= set(rendered.diagnostics)


def test_a_hand_edit_of_the_index_is_not_vouched_for(tmp_path: Path) -> None:
    """The fast path trusts the index only while nothing managed changed since the tool's commit."""
    repo = shop_fleet(tmp_path)
    index = "karmada-state/index/shop.json"
    repo.write(index, repo.read(index).replace('"settled":true', '"settled":false'))
    repo.commit("an index edited by hand")

    report = verify_commit(GitStore.open(repo.path), "HEAD")

    assert report.rendered == report.templates == 2
    assert [(item.path, item.finding) for item in report.failures] == [(index, Finding.STATE_EDITED)]
