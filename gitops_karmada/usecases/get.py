"""Get: a kubectl-like listing of bindings, clusters, policies, overrides or quotas at a revision.

Reads the committed records and inputs of a revision (``fleet_view``); never renders, so it costs a tree
listing and the files it shows. Namespaces follow kubectl: one namespace (default ``default``), or every
namespace; cluster-scoped kinds have none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.views.listing import (
    CLUSTER_SCOPED_KINDS,
    NAMESPACED,
    ListedKind,
    ListFilter,
    Listing,
    filtered,
    listing_of,
)
from gitops_karmada.core.views.rollouts import rollout_listing
from gitops_karmada.usecases.fleet_view import read_fleet

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.base import LabelSelector
    from gitops_karmada.model.diagnostics import Diagnostic

DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True, slots=True)
class GetQuery:
    """What to list: ``kind`` (``api_kind`` narrows policies and overrides to one of their two kinds),
    ``names`` (none: every object), a namespace (None: ``default``) or every namespace, and filters."""

    kind: ListedKind
    api_kind: str | None = None
    names: tuple[str, ...] = ()
    namespace: str | None = None
    all_namespaces: bool = False
    selector: LabelSelector | None = None
    cluster: str | None = None
    """Only objects placed on (or about) this member cluster."""
    statuses: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class FleetListing:
    listing: Listing
    scope: str | None
    """The namespace listed; None: every namespace, or a kind without namespaces."""
    namespaced: bool
    """Whether the kind listed lives in namespaces."""
    missing: tuple[str, ...]
    """Names asked for that nothing listed has."""
    close: Mapping[str, tuple[str, ...]]
    """For each missing name, the names listed that start with it (``cart`` → ``cart-deployment``: a
    binding is named after its template and kind)."""
    errors: tuple[Diagnostic, ...]
    """Errors in the records or inputs read (what could be read is listed anyway)."""


def get_listing(store: GitStore, rev: str, query: GetQuery) -> FleetListing:
    """The objects ``query`` asks for at ``rev``."""
    kind = query.kind
    namespaced = kind in NAMESPACED and query.api_kind not in CLUSTER_SCOPED_KINDS
    scope = None if query.all_namespaces or not namespaced else (query.namespace or DEFAULT_NAMESPACE)
    fleet = read_fleet(
        store,
        rev,
        with_inputs=kind not in (ListedKind.BINDINGS, ListedKind.QUOTAS),
        # bindings of one namespace: its records alone are read
        namespace=scope if kind is ListedKind.BINDINGS else None,
    )
    keep = ListFilter(
        namespace=scope,
        api_kind=query.api_kind,
        selector=query.selector,
        cluster=query.cluster,
        statuses=query.statuses,
    )
    everything = (
        rollout_listing(fleet.inputs.rollout_policies, fleet.bindings)
        if kind is ListedKind.ROLLOUTS
        else listing_of(kind, fleet.inputs, fleet.bindings, fleet.quotas)
    )
    listing = filtered(everything, keep)
    missing: list[str] = []
    close: dict[str, tuple[str, ...]] = {}
    if query.names:
        wanted = set(query.names)
        items = tuple(i for i in listing.items if i.name in wanted or i.cells.get("NAME") in wanted)
        missing = sorted(wanted - {i.name for i in items} - {i.cells.get("NAME", "") for i in items})
        for name in missing:
            close[name] = tuple(sorted({i.name for i in listing.items if i.name.startswith(name)}))
        listing = filtered(Listing(listing.kind, listing.columns, listing.wide_columns, items), ListFilter())
    errors = tuple(d for d in fleet.diagnostics if d.is_error)
    return FleetListing(listing, scope, namespaced, tuple(missing), close, errors)
