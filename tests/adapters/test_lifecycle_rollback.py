"""Rollback planning on real repositories: which output is restored, what is never touched, what is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.usecases.lifecycle import LifecycleError
from gitops_karmada.usecases.rollback import FileRole, is_rollback_input, plan_rollback, roll_back
from tests.builders import deployment, pp_doc
from tests.cli.test_lifecycle_fleet import WEB_PATH, change, managed_blobs, reconcile, shop_fleet, web_policy
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo

MAIN = "refs/heads/main"
LAYOUT = RepoLayout.default()


@pytest.mark.parametrize(
    ("path", "rolled_back"),
    [
        ("apps/web.yaml", True),
        ("README.md", True),
        ("gitops-karmada.yaml", True),
        ("scripts/check.sh", True),
        (".github/workflows/ci.yaml", False),
        (".gitignore", False),
        ("apps/.hidden/x.yaml", False),
        ("clusters/member1/shop/deployment.apps/web.yaml", False),
        ("karmada-state/bindings/shop/deployment.apps/web.yaml", False),
        ("clusters-inventory/member1.yaml", True),
    ],
    ids=[
        "template",
        "readme",
        "config",
        "script",
        "ci",
        "gitignore",
        "hidden",
        "output",
        "state",
        "prefix-lookalike",
    ],
)
def test_what_counts_as_a_rolled_back_input(path: str, rolled_back: bool) -> None:
    assert is_rollback_input(path, LAYOUT) is rolled_back


def _history(tmp_path: Path) -> tuple[FleetRepo, dict[str, str]]:
    """initial → reconcile → docs-only commit → spread (unreconciled) → scale (reconciled)."""
    repo = shop_fleet(tmp_path)
    revs = {"initial": git(repo.path, "rev-parse", "HEAD~1"), "first-reconcile": repo.head()}
    revs["docs"] = change(repo, {"README.md": "the shop fleet\n"}, "docs", reconciled=False)
    revs["spread"] = change(
        repo, {"policies/web.yaml": web_policy({"member1": 1, "member3": 1})}, "spread", reconciled=False
    )
    revs["scale"] = change(repo, {"apps/web.yaml": deployment("web", "shop", replicas=6)}, "scale")
    revs["second-reconcile"] = repo.head()
    return repo, revs


@pytest.mark.parametrize(
    ("rev", "output", "reason"),
    [
        ("first-reconcile", "first-reconcile", "the revision is a reconcile commit"),
        ("initial", "first-reconcile", "it rendered"),
        ("docs", "first-reconcile", "the newest reconcile before"),
        ("spread", None, ""),
        ("scale", "second-reconcile", "it rendered"),
    ],
    ids=["reconcile-commit", "its-source", "equal-inputs-later", "never-reconciled", "latest-source"],
)
def test_the_output_restored_is_the_one_the_revision_produced(
    tmp_path: Path, rev: str, output: str | None, reason: str
) -> None:
    repo, revs = _history(tmp_path)
    plan = plan_rollback(GitStore.open(repo.path), MAIN, revs[rev])
    if output is None:
        assert plan.output is None
        assert set(plan.roles.values()) == {FileRole.INPUT}
    else:
        assert plan.output is not None
        assert plan.output.commit == revs[output]
        assert reason in plan.output.reason
    assert plan.target == revs[rev]


def test_a_hand_written_file_where_the_restored_output_wrote_is_refused_and_nothing_changes(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path)
    first = repo.head()
    change(repo, {"policies/web.yaml": web_policy({"member1": 1})}, "web on member1 only")
    member2 = WEB_PATH.format(cluster="member2")
    assert not repo.exists(member2)
    repo.write(member2, "# my own web for member2\n")
    head = repo.commit("hand-written web for member2")

    with pytest.raises(LifecycleError, match=r"hand-written file.*member2/shop/deployment\.apps/web\.yaml"):
        plan_rollback(GitStore.open(repo.path), MAIN, first)
    assert repo.head() == head


def test_a_manifest_the_tool_released_is_taken_back_by_the_restored_output(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    api = pp_doc(
        "api",
        "shop",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"}],
        placement={"clusterAffinity": {"clusterNames": ["member1"]}},
        preserveResourcesOnDeletion=True,
    )
    change(repo, {"apps/api.yaml": deployment("api", "shop"), "policies/api.yaml": api}, "api")
    with_api = repo.head()
    produced = managed_blobs(repo)
    repo.delete("apps/api.yaml")
    repo.commit("drop api; its manifest stays (released)")
    reconcile(repo)
    released = "clusters/member1/shop/deployment.apps/api.yaml"
    assert repo.read(released).startswith("# Released by gitops-karmada")

    store = GitStore.open(repo.path)
    roll_back(store, plan_rollback(store, MAIN, with_api))

    assert managed_blobs(repo) == produced


def test_executables_and_symbolic_links_to_restore_are_refused_with_the_way_out(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    first = repo.head()
    (repo.path / "scripts").mkdir()
    (repo.path / "scripts/check.sh").write_text("#!/bin/sh\n")
    (repo.path / "scripts/check.sh").chmod(0o755)
    repo.commit("a check script")
    with_script = repo.head()
    repo.write("scripts/check.sh", "#!/bin/sh\nexit 0\n")
    repo.commit("change it")

    store = GitStore.open(repo.path)
    with pytest.raises(LifecycleError, match=r"cannot restore scripts/check.sh.*git checkout"):
        plan_rollback(store, MAIN, with_script)
    # rolling back to before the script existed deletes it, which needs no mode
    assert plan_rollback(store, MAIN, first).changes["scripts/check.sh"] is None


def test_dot_folders_and_non_record_state_files_are_not_rolled_back(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    first = repo.head()
    repo.write(".github/workflows/ci.yaml", "on: push\n")
    repo.write("karmada-state/NOTES.md", "ours\n")
    change(repo, {"policies/web.yaml": web_policy({"member1": 1})}, "ci, notes and a policy change")

    plan = plan_rollback(GitStore.open(repo.path), MAIN, first)

    assert "policies/web.yaml" in plan.changes
    assert not any(path.startswith((".github/", "karmada-state/NOTES")) for path in plan.changes)


def test_a_change_of_the_output_folders_is_refused(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    first = repo.head()
    config = "apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\noutput: {clustersDir: rendered}\n"
    change(repo, {"gitops-karmada.yaml": config}, "move the output", reconciled=False)

    with pytest.raises(LifecycleError, match="clustersDir/stateDir"):
        plan_rollback(GitStore.open(repo.path), MAIN, first)


def test_rollback_to_the_tip_changes_nothing(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    head = repo.head()
    store = GitStore.open(repo.path)
    outcome = roll_back(store, plan_rollback(store, MAIN, "HEAD"))
    assert outcome.plan.changes == {}
    assert outcome.commit is None
    assert outcome.reconcile.commit is None
    assert repo.head() == head
