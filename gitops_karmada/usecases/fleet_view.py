"""The fleet as committed at a revision, for reading commands (``get``, ``describe``): inputs and records.

Nothing is rendered. Binding and quota records are read from the state folder; the inputs (clusters,
policies, overrides) are loaded only when the listing needs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.core.inputs.loading import load_bindings
from gitops_karmada.core.observed.fold import with_observed_clusters
from gitops_karmada.core.ownership import quota_records
from gitops_karmada.model.inputs import Inputs
from gitops_karmada.usecases.lifecycle import read_layout, read_records, read_state

if TYPE_CHECKING:
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.quotas import FederatedResourceQuota


@dataclass(frozen=True, slots=True)
class FleetView:
    revision: str
    """The commit read (full SHA)."""
    layout: RepoLayout
    bindings: tuple[ResourceBinding, ...]
    quotas: tuple[FederatedResourceQuota, ...]
    """The quota records (with the status the last reconcile computed); inputs not yet reconciled too."""
    inputs: Inputs
    """Empty unless asked for."""
    diagnostics: tuple[Diagnostic, ...]


def read_fleet(store: GitStore, rev: str, *, with_inputs: bool, namespace: str | None = None) -> FleetView:
    """The records at ``rev`` and, with ``with_inputs``, its loaded inputs (errors in them are returned).
    ``namespace``: only the binding records of that namespace (``""``: of cluster-scoped templates), for a
    caller that shows no other: at fleet XL one namespace's are a twentieth of the records to read."""
    sha = store.resolve(rev)
    layout = read_layout(store, sha)
    records, diagnostics = load_bindings(read_records(store, sha, layout, namespace))
    quota_files = read_state(store, sha, layout, layout.quotas_dir)
    quotas = {(q.namespace, q.name): q for q in quota_records(quota_files, layout).values()}
    inputs = Inputs()
    if with_inputs:
        request = read_commit(store, sha, signals=False).request
        loaded = request.snapshot.load()
        inputs = loaded.inputs
        if request.snapshot.observed is not None:
            # the clusters as the last reconcile saw them: what they reported (Ready, taints), not only the
            # inventory
            inputs, _ = with_observed_clusters(inputs, request.snapshot.observed, request.snapshot.now)
        diagnostics = (*diagnostics, *request.snapshot.config_diagnostics, *loaded.diagnostics)
        for quota in inputs.quotas:  # an input quota not reconciled yet has no record: show its spec
            quotas.setdefault((quota.namespace, quota.name), quota)
    return FleetView(
        revision=sha,
        layout=layout,
        bindings=tuple(records.values()),
        quotas=tuple(quotas[key] for key in sorted(quotas)),
        inputs=inputs,
        diagnostics=tuple(diagnostics),
    )
