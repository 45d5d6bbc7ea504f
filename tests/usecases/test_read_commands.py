"""``describe`` and ``get`` as use cases, in process on a reconciled fleet: the values the verbs print, and
the errors they map to exit codes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.views.label_query import parse_label_query
from gitops_karmada.core.views.listing import ListedKind
from gitops_karmada.model.errors import NotFoundError, UsageError
from gitops_karmada.usecases.describe import BadReferenceError, DescribeError, describe
from gitops_karmada.usecases.get import GetQuery, get_listing
from tests.cli.test_lifecycle_fleet import reconcile, shop_fleet, web_policy

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.core.views.description import Description


@pytest.fixture
def store(tmp_path: Path) -> GitStore:
    """The shop fleet, reconciled, then web's division changed and reconciled again (two events)."""
    repo = shop_fleet(tmp_path)
    repo.write("policies/web.yaml", web_policy({"member1": 2, "member2": 2}))
    repo.commit("even out web")
    reconcile(repo)
    return GitStore.open(repo.path)


def section(description: Description, title: str) -> tuple[tuple[str, ...], ...]:
    return next(s.rows for s in description.sections if s.title == title)


def test_a_binding_is_described_with_the_commits_that_changed_its_record(store: GitStore) -> None:
    description = describe(store, "HEAD", "Deployment/shop/web")
    fields = dict(description.fields)
    assert (fields["Namespace"], fields["Replicas"], fields["Status"]) == ("shop", "4", "ok")
    events = section(description, "Events")
    assert [row[3] for row in events] == ["updated", "created"], "newest first"
    assert events[0][4] == "member1 3→2, member2 1→2"


def test_a_policy_and_a_cluster_are_described_with_the_commits_of_their_files(store: GitStore) -> None:
    policy = describe(store, "HEAD", "pp/shop/web")
    assert dict(policy.fields)["Source"] == "policies/web.yaml"
    assert [row[2] for row in section(policy, "Events")] == ["even out web", "initial fleet"]
    cluster = describe(store, "HEAD", "cluster/member1")
    assert [row[2] for row in section(cluster, "Events")] == ["initial fleet"]


@pytest.mark.parametrize(
    ("reference", "error", "message"),
    [
        ("pp/web", BadReferenceError, "pp/web is not pp/NAMESPACE/NAME"),
        ("cpp/a/b", BadReferenceError, "cpp/a/b is not cpp/NAME"),
        ("web", BadReferenceError, "; or pp/NAMESPACE/NAME, cpp/NAME, cluster/NAME"),
        (
            "cluster/member9",
            DescribeError,
            "no cluster 'member9' at HEAD (clusters: member1, member2, member3)",
        ),
        ("pp/shop/gone", DescribeError, "no PropagationPolicy shop/gone at HEAD"),
        ("Deployment/shop/gone", DescribeError, "no binding record of Deployment/shop/gone at HEAD"),
    ],
)
def test_what_describe_cannot_find_or_read_is_an_error_of_its_class(
    store: GitStore, reference: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        describe(store, "HEAD", reference)
    assert message in str(raised.value)
    # the CLI's exit codes: a malformed reference is a usage error (2), a missing object not found (1)
    assert isinstance(raised.value, UsageError if error is BadReferenceError else NotFoundError)


def test_get_lists_one_namespace_by_default_and_names_what_it_did_not_find(store: GitStore) -> None:
    found = get_listing(store, "HEAD", GetQuery(ListedKind.BINDINGS, names=("web-deployment", "nope")))
    # web is in shop, not in the default namespace
    assert (found.scope, found.namespaced, found.missing) == ("default", True, ("nope", "web-deployment"))
    assert found.listing.items == ()
    named = get_listing(
        store, "HEAD", GetQuery(ListedKind.BINDINGS, names=("web-deployment",), namespace="shop")
    )
    assert ([item.name for item in named.listing.items], named.missing) == (["web-deployment"], ())
    shop = get_listing(store, "HEAD", GetQuery(ListedKind.BINDINGS, namespace="shop"))
    assert sorted(item.name for item in shop.listing.items) == ["settings-configmap", "web-deployment"]
    everywhere = get_listing(store, "HEAD", GetQuery(ListedKind.BINDINGS, all_namespaces=True))
    assert everywhere.scope is None and len(everywhere.listing.items) == 2
    assert not everywhere.errors


def test_get_filters_clusters_by_label_and_policies_by_cluster(store: GitStore) -> None:
    clusters = get_listing(
        store, "HEAD", GetQuery(ListedKind.CLUSTERS, selector=parse_label_query("env=prod"))
    )
    assert (clusters.scope, clusters.namespaced) == (None, False)
    assert [item.name for item in clusters.listing.items] == ["member1", "member2", "member3"]
    bindings = get_listing(
        store, "HEAD", GetQuery(ListedKind.BINDINGS, all_namespaces=True, cluster="member3")
    )
    assert [item.name for item in bindings.listing.items] == ["settings-configmap"]


def test_bindings_of_one_namespace_are_read_from_its_folder_alone(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    # a record another namespace's folder holds, that cannot be read
    repo.write("karmada-state/bindings/blog/deployment.apps/post.yaml", "spec: [not, a, binding]\n")
    repo.commit("a broken record in blog")
    store = GitStore.open(repo.path)
    shop = get_listing(store, "HEAD", GetQuery(ListedKind.BINDINGS, namespace="shop"))
    assert sorted(item.name for item in shop.listing.items) == ["settings-configmap", "web-deployment"]
    assert not shop.errors, "blog's records are not read to list shop's"
    everywhere = get_listing(store, "HEAD", GetQuery(ListedKind.BINDINGS, all_namespaces=True))
    assert {e.source.path for e in everywhere.errors if e.source} == {
        "karmada-state/bindings/blog/deployment.apps/post.yaml"
    }
    described = dict(describe(store, "HEAD", "Deployment/shop/web").fields)
    assert described["Namespace"] == "shop", "described with blog's record broken"
