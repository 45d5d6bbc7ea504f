"""``gitops-karmada diff`` end to end: the real CLI (in process) on real repositories."""

from __future__ import annotations

import dataclasses
import json
import shutil
from typing import TYPE_CHECKING, Any

import pytest

from tests.action.scenarios import (
    SCENARIOS,
    SECRET_VALUES,
    build_fleet,
    change_secret,
    change_weight,
    clone_fleet,
    edit_yaml,
    isolated_git,
)
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.reconcile import ReconcileRequest, RenderResult

FRONTEND_ROW = "| `Deployment.apps/shop/frontend` | pp/frontend | 8 | **4 → 2** | **2 → 3** | **2 → 3** | 2 of 8 (25 %) |"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with isolated_git(tmp_path_factory.mktemp("home")):
        return build_fleet(tmp_path_factory.mktemp("fleet") / "fleet").path


@pytest.fixture
def weight_change(fleet: Path, tmp_path: Path) -> FleetRepo:
    repo = clone_fleet(fleet, tmp_path / "repo")
    change_weight(repo)
    repo.commit("frontend: equal weights")
    return repo


def test_one_weight_changed_on_the_example_fleet(weight_change: FleetRepo) -> None:
    """The issue's acceptance test: the comment's first table shows the exact moves; exit 1."""
    head_before = weight_change.head()
    done = weight_change.cli("diff", "--base", "main", "--head", "feature", "-o", "markdown", check=1)
    first_table = next(block for block in done.stdout.split("\n\n") if block.startswith("| Template"))
    assert first_table.splitlines() == [
        "| Template | Policy | Replicas | `member1` | `member2` | `member3` | Moved |",
        "|:--|:--|--:|--:|--:|--:|--:|",
        FRONTEND_ROW,
    ]
    assert (
        done.stdout.index("### Placement")
        < done.stdout.index("### Changed inputs")
        < done.stdout.index("### Manifests")
    )
    # rendered in memory: the work tree and the branch are untouched
    assert weight_change.status() == ""
    assert weight_change.head() == head_before
    assert (
        not (weight_change.path / "clusters" / "member1" / "shop" / "deployment.apps" / "frontend.yaml")
        .read_text()
        .count("replicas: 2")
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((), 1),
        (("--exit-code=false",), 0),
        (("--exit-code", "false", "--fail-on", "replicas-moved>20%"), 3),
        (("--fail-on", "replicas-moved>30%,cluster-emptied"), 1),
        (("--fail-on", "emptied"), 2),
        (("--head", "no-such-branch"), 2),
        (("--base", "main", "--base-path", "."), 2),
    ],
    ids=[
        "changes",
        "exit-code-false",
        "guardrail-wins",
        "guardrail-not-met",
        "bad-guardrail",
        "unknown-rev",
        "exclusive-options",
    ],
)
def test_exit_codes(weight_change: FleetRepo, args: tuple[str, ...], code: int) -> None:
    base = () if "--base" in args else ("--base", "main")
    done = weight_change.cli("diff", *base, *args, check=code)
    if code == 2:
        assert done.stderr.strip()
    if code == 3:
        assert "1 guardrail violation (--fail-on replicas-moved>20%)" in done.stdout


def test_no_change_is_exit_0(fleet: Path, tmp_path: Path) -> None:
    repo = clone_fleet(fleet, tmp_path / "repo")
    repo.write("README.md", "notes\n")
    repo.commit("docs")
    done = repo.cli("diff", "--base", "main", check=0)
    assert "Summary: No change to the rendered fleet." in done.stdout


def test_base_defaults_to_the_merge_base_with_upstream(weight_change: FleetRepo) -> None:
    # feature tracks origin/main (the clone's remote); main moves on after the branch point
    git(weight_change.path, "branch", "-q", "--set-upstream-to", "origin/main")
    done = weight_change.cli("diff", "-o", "json", check=1)
    report = json.loads(done.stdout)
    merge_base = git(weight_change.path, "merge-base", "HEAD", "origin/main")
    assert report["base"] == merge_base[:12]
    assert report["head"].startswith("HEAD (")
    assert [w["template"] for w in report["placement"]] == ["Deployment.apps/shop/frontend"]


def test_without_upstream_or_origin_the_base_is_required(tmp_path: Path) -> None:
    repo = FleetRepo.create(tmp_path / "lonely", clusters=1)
    done = repo.cli("diff", check=2)
    assert "give --base REV" in done.stderr


def test_two_checkouts(weight_change: FleetRepo, tmp_path: Path) -> None:
    base_checkout = tmp_path / "base-checkout"
    git(weight_change.path, "worktree", "add", "-q", str(base_checkout), "main")
    head_checkout = tmp_path / "head-checkout"
    shutil.copytree(weight_change.path, head_checkout, ignore=shutil.ignore_patterns(".git"))
    done = weight_change.cli(
        "diff",
        "--base-path",
        str(base_checkout),
        "--head-path",
        str(head_checkout),
        "-o",
        "markdown",
        check=1,
    )
    assert FRONTEND_ROW in done.stdout
    assert f"**base** `{base_checkout}`" in done.stdout


def test_report_files_and_json(weight_change: FleetRepo, tmp_path: Path) -> None:
    change_secret(weight_change)
    weight_change.commit("and rotate the password")
    report, summary, data = tmp_path / "report.md", tmp_path / "summary.md", tmp_path / "diff.json"
    summary.write_text("earlier step\n")
    done = weight_change.cli(
        "diff",
        "--base",
        "main",
        "-o",
        "json",
        "--report-file",
        str(report),
        "--summary-file",
        str(summary),
        "--json-file",
        str(data),
        check=1,
    )
    assert json.loads(done.stdout) == json.loads(data.read_text())
    parsed = json.loads(data.read_text())
    assert parsed["hasChanges"] is True
    assert parsed["changedClusters"] == ["member1", "member2", "member3"]
    assert parsed["summary"]["objects"] == {"added": 0, "removed": 0, "modified": 5}
    secret = [m for m in parsed["manifests"] if m["title"] == "Secret/shop/db-credentials"]
    assert secret[0]["secretKeys"]["changed"] == ["data.password"]
    assert summary.read_text().startswith("earlier step\n## Karmada placement diff")  # appended
    assert FRONTEND_ROW in report.read_text()
    text = weight_change.cli("diff", "--base", "main", check=1).stdout
    for output in (done.stdout, report.read_text(), summary.read_text(), text):
        for value in SECRET_VALUES:
            assert value not in output
    assert "\x1b[" not in text  # not a terminal: no colour


def test_colour_on_request(weight_change: FleetRepo) -> None:
    done = weight_change.cli("diff", "--base", "main", "--color", "always", check=1)
    assert "\x1b[32m+  replicas: 3\x1b[0m" in done.stdout


def test_a_head_that_does_not_load_is_an_error_with_a_report(weight_change: FleetRepo) -> None:
    weight_change.write(
        "policies/broken.yaml",
        "kind: PropagationPolicy\napiVersion: policy.karmada.io/v1alpha1\nmetadata: {name: b, namespace: shop}\nspec: {resourceSelectors: [], placement: {clusterAfinity: {}}}\n",
    )
    weight_change.commit("typo")
    done = weight_change.cli("diff", "--base", "main", "-o", "markdown", check=2)
    assert "**The head revision does not render**" in done.stdout
    assert "policies/broken.yaml" in done.stdout


def test_the_second_side_reuses_what_loading_made_of_the_first(
    weight_change: FleetRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``compare_sides`` loads the head, then classifies of the base only the files that differ (one policy
    here); the plan equals the one of two sides read apart."""
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.diff import compare
    from gitops_karmada.core.inputs import loading
    from gitops_karmada.usecases.diff import compare_sides, read_revision

    classified: list[str] = []
    original = loading._classified

    def counted(path: str, *args: object) -> object:
        classified.append(path)
        return original(path, *args)  # type: ignore[arg-type]

    store = GitStore.open(weight_change.path)
    apart = compare(read_revision(store, "main"), read_revision(store, "feature"))
    monkeypatch.setattr(loading, "_classified", counted)
    shared = compare_sides(weight_change.path, "main", "feature", None, None)
    assert shared == apart
    changed = git(weight_change.path, "diff", "--name-only", "main", "feature").split()
    head_files = len(classified) - len(changed)
    assert head_files > 10 and sorted(classified[head_files:]) == sorted(changed)


def _full(side: Any) -> Any:
    """The side as before the layered view: every file listed, counts left to ``compare``."""
    return dataclasses.replace(side, blobs=dict(side.blobs), cluster_counts=None)


@pytest.mark.parametrize("name", sorted(SCENARIOS), ids=sorted(SCENARIOS))
def test_comparing_the_candidate_paths_only_equals_comparing_every_file(
    name: str, fleet: Path, tmp_path: Path
) -> None:
    """``compare_sides`` looks only at the paths ``diff-tree`` and the two renders name, and counts each
    cluster's files without listing them; the plan is the one a comparison of every listed file gives."""
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.diff import compare
    from gitops_karmada.usecases.diff import compare_sides, read_revision

    repo = clone_fleet(fleet, tmp_path / "repo")
    SCENARIOS[name](repo)
    repo.commit(name)
    store = GitStore.open(repo.path)
    base, head = read_revision(store, "main"), read_revision(store, "feature")
    assert compare_sides(repo.path, "main", "feature", None, None) == compare(_full(base), _full(head))


def _edit_cart(repo: FleetRepo) -> None:
    edit_yaml(repo, "apps/shop/cart.yaml", lambda documents: documents[0]["spec"].update(replicas=7))


def _edit_kustomize_base(repo: FleetRepo) -> None:
    """A file only Kustomize reads (the payments base): the templates it gives are not known by path."""
    edit_yaml(
        repo, "apps/payments/base/deployment.yaml", lambda documents: documents[0]["spec"].update(replicas=9)
    )


def _narrow_shop_policy(repo: FleetRepo) -> None:
    """The frontend's policy moves to selecting the Service of the cart: both templates change hands."""

    def change(documents: list[Any]) -> None:
        documents[0]["spec"]["resourceSelectors"] = [{"apiVersion": "v1", "kind": "Service", "name": "cart"}]

    edit_yaml(repo, "policies/shop.yaml", change)


SCOPE_EDITS = {
    **SCENARIOS,
    "template-edit": _edit_cart,
    "unmatched-template": lambda repo: repo.write("apps/shop/loose.yaml", _service("loose")),
    "policy-narrowed": _narrow_shop_policy,
    "kustomize-base": _edit_kustomize_base,
}
SCOPED = {
    "weight-change",
    "new-policy",
    "override-change",
    "secret-change",
    "quota-blocked",
    "template-edit",
    "unmatched-template",
    "policy-narrowed",
}
"""The edits a scope follows: the others change the inventory, a ClusterOverridePolicy or a Kustomize source."""


@pytest.mark.parametrize("name", sorted(SCOPE_EDITS), ids=sorted(SCOPE_EDITS))
def test_judging_what_the_change_touches_equals_judging_every_template(
    name: str, fleet: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head side of a branch whose only changes since the reconcile of ``main`` are input files judges
    only the templates those can touch (``core.change_scope``); the plan is the one of both sides judged and
    rendered in full (``--full``)."""
    from gitops_karmada import reconcile
    from gitops_karmada.usecases import diff

    repo = clone_fleet(fleet, tmp_path / "repo")
    SCOPE_EDITS[name](repo)
    repo.commit(name)
    judged: list[tuple[bool, int]] = []

    def recorded(request: ReconcileRequest) -> RenderResult:
        result = reconcile.reconcile(request)
        judged.append((result.scoped, len(result.outcomes)))
        return result

    monkeypatch.setattr("gitops_karmada.usecases.diff.reconcile", recorded)
    plan = diff.compare_sides(repo.path, "main", "feature", None, None)
    head_scoped, head_judged = judged[0]
    assert head_scoped == (name in SCOPED)
    everything = diff.compare_sides(repo.path, "main", "feature", None, None, full=True)
    assert plan == everything
    if head_scoped:
        assert head_judged < judged[-2][1]  # fewer than the full head run judged


def test_diff_full_reports_what_the_scoped_diff_does(weight_change: FleetRepo) -> None:
    args = ("diff", "--base", "main", "--head", "feature", "-o", "json")
    assert weight_change.cli(*args, check=1).stdout == weight_change.cli(*args, "--full", check=1).stdout


def test_the_candidate_paths_hold_for_two_reconciled_revisions_with_hand_written_files(
    weight_change: FleetRepo,
) -> None:
    """Both sides committed by the tool (their cluster folders differ in git, not in a render), and files
    the tool does not own: beside the cluster folders, in one, and one removed on the head."""
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.diff import compare
    from gitops_karmada.core.diff.manifests import cluster_manifests, count_by_cluster
    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.usecases.diff import compare_sides, read_revision

    git(weight_change.path, "checkout", "-q", "main")
    weight_change.write("clusters/README.md", "hand-written\n")
    weight_change.write("clusters/member1/notes/todo.txt", "a stray file in a cluster folder\n")
    weight_change.write("clusters/member2/old/gone.txt", "removed on the branch\n")
    weight_change.commit("hand-written files")
    git(weight_change.path, "checkout", "-q", "feature")
    git(weight_change.path, "merge", "-q", "--no-edit", "main")
    weight_change.delete("clusters/member2/old/gone.txt")
    weight_change.commit("drop a stray file")
    weight_change.cli("reconcile")
    store = GitStore.open(weight_change.path)
    base, head = read_revision(store, "main"), read_revision(store, "feature")
    for side in (base, head):
        assert side.blobs is not None
        listed = [p for p in side.blobs if p.startswith("clusters/")]
        expected = count_by_cluster(cluster_manifests(dict.fromkeys(listed, b""), RepoLayout.default()))
        assert side.cluster_counts == expected
    plan = compare_sides(weight_change.path, "main", "feature", None, None)
    assert plan == compare(_full(base), _full(head))
    assert any(o.path == "clusters/member2/old/gone.txt" for o in plan.objects)
    assert any(w.template == "Deployment.apps/shop/frontend" for w in plan.workloads)


def test_a_revision_against_a_checkout_compares_by_content(weight_change: FleetRepo, tmp_path: Path) -> None:
    """``--base REV --head-path DIR``: the revision's side holds only what its render changed, so the
    checkout's files are compared by blob id with the revision's committed ones. The checkout of the
    same commit has no change at all; one with the weight change shows exactly that change."""
    same = tmp_path / "same-checkout"
    git(weight_change.path, "worktree", "add", "-q", str(same), "main")
    unchanged = weight_change.cli("diff", "--base", "main", "--head-path", str(same), "-o", "json", check=0)
    plan = json.loads(unchanged.stdout)
    assert not plan["hasChanges"] and plan["manifests"] == [] and plan["clusters"] == []
    args = ("diff", "--base", "main", "--head-path", str(weight_change.path))
    assert FRONTEND_ROW in weight_change.cli(*args, "-o", "markdown", check=1).stdout
    summary = json.loads(weight_change.cli(*args, "-o", "json", check=1).stdout)["summary"]
    # the frontend's Deployment in its three clusters, nothing else
    assert summary["objects"] == {"added": 0, "removed": 0, "modified": 3}


def _service(name: str) -> str:
    return f"apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: shop\nspec:\n  ports:\n  - port: 80\n"


PLACED_POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: placed, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Service, name: placed}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
"""


def test_a_reconciled_base_stands_on_its_state_index(fleet: Path, tmp_path: Path) -> None:
    """A base that nothing changed in since its reconcile is read from its state index: only its unsettled
    templates and the templates the head leaves unmatched are redone. The plan is the one of a base redone
    in full: the new template no policy selects is named, the one that always was unselected is not."""
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.adapters.repository import read_commit
    from gitops_karmada.core.diff import compare
    from gitops_karmada.core.diff.bound import binding_key
    from gitops_karmada.usecases.diff import compare_sides, read_revision, vouched_index

    repo = clone_fleet(fleet, tmp_path / "repo")
    git(repo.path, "checkout", "-q", "main")
    repo.write("apps/shop/loose.yaml", _service("loose"))  # no policy selects it, on either side
    repo.write("apps/shop/placed.yaml", _service("placed"))
    repo.write("policies/placed.yaml", PLACED_POLICY)
    repo.commit("a loose service and a placed one")
    repo.cli("reconcile")
    # an entry whose result is not settled (as one held back would be) is redone, as reconcile redoes it
    shard = "karmada-state/index/analytics.json"
    repo.write(shard, repo.read(shard).replace('"settled":true', '"settled":false'))
    git(repo.path, "commit", "-q", "-a", "--amend", "-C", "HEAD")
    git(repo.path, "checkout", "-q", "-B", "feature", "main")
    repo.write("apps/shop/new-loose.yaml", _service("new-loose"))
    repo.commit("another loose service")
    store = GitStore.open(repo.path)
    assert vouched_index(read_commit(store, "main", materialize=False)) is not None

    plan = compare_sides(repo.path, "main", "feature", None, None)
    assert plan == compare(_full(read_revision(store, "main")), _full(read_revision(store, "feature")))
    assert plan.unmatched == ("Service/shop/new-loose",)
    vouched = read_revision(store, "main", asked=frozenset())
    assert {str(binding_key(b)) for b in vouched.bindings} == {
        "FlinkDeployment.flink.apache.org/analytics/flink-example"
    }
