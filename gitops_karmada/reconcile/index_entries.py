"""What a redone template leaves for the next run: its binding record's file, and its state index entry."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from gitops_karmada.core.binding import applied_clusters, render_notes
from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.core.detector import previous_claim
from gitops_karmada.core.diff.bound import bound_placement
from gitops_karmada.core.failover.controllers import has_failover_business
from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.incremental.state_index import IndexEntry, StateIndex, files_digest
from gitops_karmada.core.ownership import binding_key
from gitops_karmada.core.rollout.state import read_state
from gitops_karmada.core.views.status_summary import binding_ready, cluster_health

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.reconcile.outcome import TemplateOutcome

Identity = tuple[str, str, str, str]


class MadeAhead(NamedTuple):
    """What a template redone ahead of the run's loop (possibly in another process) brings besides its
    outcome: its binding record, serialised, and its index entry."""

    record: bytes
    entry: IndexEntry | None


def record_file(binding: ResourceBinding) -> bytes:
    return dump_yaml(binding.to_api()).encode()


def redone_files(
    redone: Iterable[TemplateOutcome], layout: RepoLayout, made: Mapping[Identity, MadeAhead]
) -> tuple[dict[str, bytes], dict[str, str], set[str]]:
    """The files the redone templates write (their manifests and binding records; ``made``: records already
    serialised, by template), those of them already stored (path → blob id), and the managed paths they
    keep as they are."""
    files: dict[str, bytes] = {}
    stored: dict[str, str] = {}
    keep: set[str] = set()
    for outcome in redone:
        files.update(outcome.files)
        stored.update(outcome.stored)
        keep.update(outcome.keep)
        if outcome.binding is not None:
            ahead = made.get(outcome.key.identity)
            files[layout.binding_path(binding_key(outcome.binding))] = (
                ahead.record if ahead is not None else record_file(outcome.binding)
            )
    return files, stored, keep


def state_index(
    previous: StateIndex | None,
    outcomes: Iterable[TemplateOutcome],
    run: str,
    entry_of: Callable[[TemplateOutcome], IndexEntry | None],
    made: Mapping[Identity, MadeAhead],
) -> StateIndex:
    """The state index after a run (``run``: its run-wide fingerprint part): reused entries as they were,
    redone templates described anew (``made``: entries made where they were redone; else ``entry_of``)."""
    entries: dict[Identity, IndexEntry] = {}
    for outcome in outcomes:
        ident = outcome.key.identity
        if outcome.reused:
            assert previous is not None
            entries[ident] = previous.entries[ident]
            continue
        ahead = made.get(ident)
        entry = ahead.entry if ahead is not None else entry_of(outcome)
        if entry is not None:
            entries[ident] = entry
    return StateIndex(engine=ENGINE_VERSION, entries=entries, run=run)


def index_entry(
    outcome: TemplateOutcome,
    layout: RepoLayout,
    files: Mapping[str, bytes],
    stored: Mapping[str, str],
    output_blobs: Mapping[str, str],
    hash_blob: Callable[[bytes], str],
) -> IndexEntry | None:
    """The index entry of a redone template (``files``: the files the run writes, its own among them, but
    those already ``stored``, path → blob id); None when it has no binding."""
    binding = outcome.binding
    if binding is None or outcome.removed:
        return None
    record = files.get(layout.binding_path(binding_key(binding)))
    rendered = applied_clusters(binding)
    paths = [layout.manifest_path(c, outcome.key) for c in rendered]
    blobs = {
        p: stored[p] if p in stored else hash_blob(files[p]) if p in files else output_blobs.get(p, "-")
        for p in paths
    }
    claim = previous_claim(binding)
    placed = bound_placement(binding)
    return IndexEntry(
        fingerprint=outcome.fingerprint,
        record=hash_blob(record) if record is not None else "",
        files=files_digest(paths, blobs),
        rendered=rendered,
        settled=_settled(outcome, binding),
        claim=(claim[0].kind, claim[0].namespace, claim[0].name, claim[1]) if claim else None,
        warnings=tuple(d for d in outcome.diagnostics if not d.is_error),
        placement=placed.replicas,
        tiers=dict(outcome.tiers),
        workload=placed.has_replicas,
        failover=has_failover_business(binding),
        health=cluster_health(binding),
        ready="" if (ready := binding_ready(binding)) == "-" else ready,
        required=bool(binding.spec.required_by),
        waves=outcome.rollout.waves if outcome.rollout is not None else {},
    )


def _settled(outcome: TemplateOutcome, binding: ResourceBinding) -> bool:
    """Whether the same inputs would give the same result again: nothing failed, was refused or held back,
    and no rollout is in flight (its gate is judged on every run)."""
    scheduled = binding.condition("Scheduled")
    rollout = read_state(binding.metadata.annotations)
    return (
        not outcome.failed
        and (scheduled is None or scheduled.status == "True")
        and not render_notes(binding)
        and (rollout is None or not rollout.in_flight)
    )
