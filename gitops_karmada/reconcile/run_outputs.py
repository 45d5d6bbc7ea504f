"""The outputs of a run that belong to no single template: deletions, released manifests, quota records.

* A template gone from the repository: its binding goes and, with it, its files — unless its policy had
  ``preserveResourcesOnDeletion``: then the files stay, stripped of Karmada's claim and headed "Released",
  and the released-manifests record lists them.
* Each FederatedResourceQuota: its settled status in the state folder and the ResourceQuotas its
  ``staticAssignments`` render into the cluster folders.

Pure: every function returns the files it writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.codecs.serialize import dump_yaml, load_yaml_documents
from gitops_karmada.core.detector import ClaimState, PolicyMatch
from gitops_karmada.core.ownership import (
    binding_key,
    quota_paths,
    quota_records,
    released_entries,
)
from gitops_karmada.core.quota import federated_quota_status, member_quota_statuses
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import Diagnostic, warning
from gitops_karmada.model.errors import InputError
from gitops_karmada.reconcile.manifest import RELEASED_HEADER, blocking_entry, provenance_header, release
from gitops_karmada.reconcile.outcome import TemplateOutcome

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitops_karmada.core.scheduler.snapshot import ClusterSnapshot
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.quotas import FederatedResourceQuota
    from gitops_karmada.reconcile.context import RunContext


def deleted(ctx: RunContext, binding: ResourceBinding) -> TemplateOutcome:
    """A template gone from the repository: its files go too, unless its policy preserves them."""
    key = binding_key(binding)
    if not binding.spec.preserve_resources_on_deletion:
        reason = "the template was deleted; its manifests are removed"
        return TemplateOutcome(key=key, match=PolicyMatch(ClaimState.UNMATCHED, reason=reason), removed=True)
    files: dict[str, bytes] = {}
    keep: set[str] = set()
    released: list[str] = []
    for cluster in applied_clusters(binding):
        path = ctx.layout.manifest_path(cluster, key)
        raw = ctx.read_output(path) if ctx.read_output is not None else None
        if raw is None:
            continue
        try:
            documents = [d.body for d in load_yaml_documents(raw) if isinstance(d.body, Mapping)]
        except InputError:
            documents = []
        if len(documents) == 1:
            files[path] = (RELEASED_HEADER + dump_yaml(release(documents[0]))).encode()
        else:  # edited by hand into something else: leave the bytes alone
            keep.add(path)
        released.append(path)
    reason = (
        "the template was deleted; preserveResourcesOnDeletion keeps its manifests, released from management"
    )
    return TemplateOutcome(
        key=key,
        match=PolicyMatch(ClaimState.UNMATCHED, reason=reason),
        released=tuple(released),
        removed=True,
        files=files,
        keep=frozenset(keep),
    )


def released_record(
    previous: bytes | None,
    outcomes: Iterable[TemplateOutcome],
    output_blobs: Mapping[str, str],
    now: str,
) -> bytes | None:
    """The state file listing released manifests: earlier entries whose file still exists, plus new ones."""
    entries = released_entries(previous)
    listed = list(outcomes)
    if not entries and not any(o.released for o in listed):
        return None  # nothing to list (and the quarter of a million paths owned need not be collected)
    owned_now = {p for o in listed for p in o.paths.values()}
    entries = {p: e for p, e in entries.items() if p in output_blobs and p not in owned_now}
    for outcome in listed:
        for path in outcome.released:
            entries[path] = {"path": path, "template": str(outcome.key), "releasedAt": now}
    if not entries:
        return None
    record = {
        "apiVersion": "gitops-karmada.io/v1alpha1",
        "kind": "ReleasedManifests",
        "items": [entries[p] for p in sorted(entries)],
    }
    header = (
        "# Manifests gitops-karmada released from management (their template was deleted and its policy\n"
        "# had preserveResourcesOnDeletion: true). No run deletes or rewrites them; they are yours now.\n"
    )
    return (header + dump_yaml(record)).encode()


@dataclass(frozen=True, slots=True)
class QuotaOutputs:
    files: Mapping[str, bytes] = field(default_factory=dict)
    owned: frozenset[str] = frozenset()
    """Static-assignment quotas the previous run wrote: ours to rewrite or delete."""
    quotas: tuple[FederatedResourceQuota, ...] = ()
    """Every FederatedResourceQuota with its settled status."""
    diagnostics: tuple[Diagnostic, ...] = ()


def quota_outputs(
    ctx: RunContext,
    state_files: Mapping[str, bytes],
    bindings: Callable[[str], Iterable[ResourceBinding]],
    snapshots: Mapping[str, ClusterSnapshot],
) -> QuotaOutputs:
    """Each FRQ's settled status into the state folder; its static assignments into the cluster folders.

    ``bindings(namespace)`` gives the namespace's bindings after this run (only FRQ namespaces are asked).
    """
    config = ctx.config
    layout = ctx.layout
    diagnostics: list[Diagnostic] = []
    settled: list[FederatedResourceQuota] = []
    files: dict[str, bytes] = {}
    enforcement = config.gate(FeatureGate.FEDERATED_QUOTA_ENFORCEMENT)
    owned: set[str] = set()
    for previous in quota_records(state_files, layout).values():
        owned.update(quota_paths(previous, layout))
    for frq in ctx.inputs.quotas:
        status = federated_quota_status(
            frq,
            bindings(frq.namespace),
            enforcement=enforcement,
            members=member_quota_statuses(frq, snapshots),
        )
        settled.append(frq.model_copy(update={"status": status}))
        record = settled[-1].to_api()
        record["status"] = status.to_api()
        files[layout.quota_record_path(frq.namespace, frq.name)] = dump_yaml(record).encode()
        source = ctx.inputs.sources.get((frq.kind, frq.namespace, frq.name))
        for rendered_path, (cluster, manifest) in quota_paths(frq, layout).items():
            if cluster not in ctx.clusters:
                message = f"staticAssignments names cluster {cluster!r}, which is not in the inventory"
                diagnostics.append(warning(message, source))
                continue
            blocker = blocking_entry(rendered_path, ctx.output_blobs)
            if blocker is not None:
                message = (
                    f"{blocker} is a file or symbolic link gitops-karmada did not write; "
                    f"{rendered_path} was not written"
                )
                diagnostics.append(warning(message, source))
                continue
            if rendered_path in ctx.output_blobs and rendered_path not in owned:
                message = f"{rendered_path} exists and was not written by gitops-karmada; left untouched"
                diagnostics.append(warning(message, source))
                continue
            header = provenance_header(
                str(source) if source else "?", f"FederatedResourceQuota {frq.namespace}/{frq.name}"
            )
            files[rendered_path] = (header + dump_yaml(manifest)).encode()
    return QuotaOutputs(
        files=files, owned=frozenset(owned), quotas=tuple(settled), diagnostics=tuple(diagnostics)
    )
