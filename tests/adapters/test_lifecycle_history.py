"""History rows from two binding records (pure), and parsing KIND/NAMESPACE/NAME references."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model.bindings import ResourceBinding
from gitops_karmada.usecases.history import condition_changes, policy_of, replica_moves, template_history
from gitops_karmada.usecases.lifecycle import LifecycleError, TemplateReference
from tests.gitrepos import commit_all, make_repo

if TYPE_CHECKING:
    from pathlib import Path

LAYOUT = RepoLayout.default()


def record(
    clusters: dict[str, int] | None = None,
    *,
    replicas: int = 0,
    scheduled: tuple[str, str] | None = ("True", "Success"),
    annotations: dict[str, str] | None = None,
) -> ResourceBinding:
    body: dict[str, Any] = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "web-deployment", "namespace": "shop", "annotations": annotations or {}},
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"},
            "replicas": replicas,
            "clusters": [{"name": n, "replicas": r} for n, r in (clusters or {}).items()],
        },
        "status": {},
    }
    if scheduled is not None:
        status, reason = scheduled
        body["status"]["conditions"] = [
            {"type": "Scheduled", "status": status, "reason": reason, "message": f"{reason}!"}
        ]
    return ResourceBinding.model_validate(body)


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (None, record({"member1": 3, "member2": 1}, replicas=4), ["member1 -→3", "member2 -→1"]),
        (
            record({"member1": 3, "member2": 1}, replicas=4),
            record({"member1": 2, "member2": 2}, replicas=4),
            ["member1 3→2", "member2 1→2"],
        ),
        (record({"member1": 4}, replicas=4), record({"member1": 4}, replicas=4), []),
        (
            record({"member1": 2, "member2": 2}, replicas=4),
            record({"member2": 4}, replicas=4),
            ["member1 2→-", "member2 2→4"],
        ),
        (record({"member1": 0}), record({"member1": 0, "member3": 0}), ["member3 -→✓"]),
        (record({"member1": 0}), None, ["member1 ✓→-"]),
        (
            record({"member10": 1, "member2": 1}, replicas=2),
            record({}, replicas=2),
            ["member10 1→-", "member2 1→-"],
        ),
    ],
    ids=[
        "created",
        "weight-change",
        "unchanged",
        "moved-away",
        "duplicated-added",
        "deleted",
        "all-removed-sorted",
    ],
)
def test_replica_moves(
    before: ResourceBinding | None, after: ResourceBinding | None, expected: list[str]
) -> None:
    assert [str(move) for move in replica_moves(before, after)] == expected


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (None, record(scheduled=("True", "Success")), []),
        (None, record(scheduled=("False", "NoClusterFit")), ["Scheduled -→False (NoClusterFit)"]),
        (
            record(scheduled=("False", "NoClusterFit")),
            record(scheduled=("True", "Success")),
            ["Scheduled False→True"],
        ),
        (
            record(scheduled=("True", "Success")),
            record(scheduled=("False", "SchedulerError")),
            ["Scheduled True→False (SchedulerError)"],
        ),
        (
            record(scheduled=("False", "NoClusterFit")),
            record(scheduled=("False", "SchedulerError")),
            ["Scheduled False→False (SchedulerError)"],
        ),
        (record(scheduled=("True", "Success")), record(scheduled=("True", "Success")), []),
        (record(scheduled=("True", "Success")), None, []),
    ],
    ids=["created-ok", "created-failing", "recovered", "failed", "other-failure", "unchanged", "deleted"],
)
def test_condition_changes(
    before: ResourceBinding | None, after: ResourceBinding | None, expected: list[str]
) -> None:
    assert [str(change) for change in condition_changes(before, after)] == expected


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (
            {"propagationpolicy.karmada.io/name": "web", "propagationpolicy.karmada.io/namespace": "shop"},
            "pp/web",
        ),
        ({"clusterpropagationpolicy.karmada.io/name": "fleet"}, "cpp/fleet"),
        ({}, None),
    ],
    ids=["propagation-policy", "cluster-propagation-policy", "namespace-sync"],
)
def test_policy_of(annotations: dict[str, str], expected: str | None) -> None:
    assert policy_of(record(annotations=annotations)) == expected


@pytest.mark.parametrize(
    ("text", "literals", "globs"),
    [
        (
            "Deployment/shop/cart",
            ["karmada-state/bindings/shop/deployment/cart.yaml"],
            ["karmada-state/bindings/shop/deployment.*/cart.yaml"],
        ),
        ("Deployment.apps/shop/cart", ["karmada-state/bindings/shop/deployment.apps/cart.yaml"], []),
        (
            "Namespace/shop",
            ["karmada-state/bindings/_cluster/namespace/shop.yaml"],
            ["karmada-state/bindings/_cluster/namespace.*/shop.yaml"],
        ),
        (
            "FlinkDeployment.flink.apache.org/analytics/f",
            ["karmada-state/bindings/analytics/flinkdeployment.flink.apache.org/f.yaml"],
            [],
        ),
        (
            "ClusterRole/system:aggregate*",
            ["karmada-state/bindings/_cluster/clusterrole/system:aggregate*.yaml"],
            [],
        ),
    ],
    ids=["kind-only", "kind-and-group", "cluster-scoped", "dotted-group", "pattern-characters-stay-literal"],
)
def test_record_pathspecs(text: str, literals: list[str], globs: list[str]) -> None:
    assert TemplateReference.parse(text).record_pathspecs(LAYOUT) == (in_buckets(literals), in_buckets(globs))


def in_buckets(paths: list[str]) -> tuple[str, ...]:
    """Each path, then the same in the bucket folders of 16, 256 and 4096 (``output.buckets``)."""
    found: list[str] = []
    for path in paths:
        folder, _, file = path.rpartition("/")
        digest = hashlib.sha256(file.removesuffix(".yaml").encode()).hexdigest()
        found += [path, *(f"{folder}/{digest[:digits]}/{file}" for digits in (1, 2, 3))]
    return tuple(found)


@pytest.mark.parametrize(
    "text",
    ["Deployment", "Deployment/shop/cart/x", "Deployment//cart", "/shop/cart", ""],
    ids=["kind-only", "four-parts", "empty-namespace", "empty-kind", "empty"],
)
def test_malformed_references_are_rejected(text: str) -> None:
    with pytest.raises(LifecycleError, match="is not KIND/NAMESPACE/NAME"):
        TemplateReference.parse(text)


_SEGMENT = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)


@given(
    kind=st.from_regex(r"[A-Z][A-Za-z]{0,12}", fullmatch=True),
    group=st.none() | st.from_regex(r"[a-z]{1,6}(\.[a-z]{1,6}){0,2}", fullmatch=True),
    namespace=st.just("") | _SEGMENT,
    name=_SEGMENT,
)
def test_a_reference_reads_back_from_its_text(
    kind: str, group: str | None, namespace: str, name: str
) -> None:
    reference = TemplateReference(kind=kind, group=group, namespace=namespace, name=name)
    assert TemplateReference.parse(str(reference)) == reference


def _record_yaml(api_version: str, replicas: int) -> str:
    return (
        "apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {name: web-deployment, namespace: shop}\n"
        f"spec:\n  resource: {{apiVersion: {api_version}, kind: Deployment, namespace: shop, name: web}}\n"
        f"  replicas: {replicas}\n  clusters: [{{name: member1, replicas: {replicas}}}]\n"
    )


APPS_RECORD = "karmada-state/bindings/shop/deployment.apps/web.yaml"
OTHER_RECORD = "karmada-state/bindings/shop/deployment.example.com/web.yaml"


def test_a_bare_kind_matching_records_of_two_groups_is_refused_and_a_group_settles_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {APPS_RECORD: _record_yaml("apps/v1", 2)})
    commit_all(repo, {OTHER_RECORD: _record_yaml("example.com/v1", 1)}, "a custom Deployment too")
    store = GitStore.open(repo)

    with pytest.raises(
        LifecycleError, match=r"several kinds .*deployment\.apps/web\.yaml.*name the API group"
    ):
        template_history(store, "HEAD", TemplateReference.parse("Deployment/shop/web"))
    history = template_history(store, "HEAD", TemplateReference.parse("Deployment.example.com/shop/web"))
    assert history.record == OTHER_RECORD
    assert history.template == "Deployment.example.com/shop/web"
    assert [str(m) for m in history.rows[0].moves] == ["member1 -→1"]


def test_an_unreadable_record_reads_as_no_record_and_its_commit_is_a_hand_edit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {APPS_RECORD: _record_yaml("apps/v1", 2)})
    broken = commit_all(repo, {APPS_RECORD: "spec: [not, a, binding]\n"}, "broken by hand")
    commit_all(repo, {APPS_RECORD: _record_yaml("apps/v1", 3)}, "fixed by hand")

    history = template_history(
        GitStore.open(repo), "HEAD", TemplateReference.parse("Deployment.apps/shop/web")
    )

    assert [row.origin for row in history.rows] == ["hand edit"] * 3
    fixed, broke, _ = history.rows
    assert broke.commit == broken and broke.after is None
    assert [str(m) for m in broke.moves] == ["member1 2→-"]
    assert [str(m) for m in fixed.moves] == ["member1 -→3"]
    assert history.template == "Deployment.apps/shop/web"
