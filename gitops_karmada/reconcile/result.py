"""What a run makes: the files to write, the paths it answers for, every template's outcome and binding, the
state index after it, and how to turn that into a commit's changes."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.file_changes import StoredBlob
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.reconcile.request import blob_sha

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Mapping, Sequence

    from gitops_karmada.core.diff.model import PlanDiff
    from gitops_karmada.core.failover.controllers import FailoverOutcome
    from gitops_karmada.core.file_changes import FileChange
    from gitops_karmada.core.incremental.state_index import StateIndex
    from gitops_karmada.core.inputs.loading import Decoded
    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.quotas import FederatedResourceQuota
    from gitops_karmada.reconcile.outcome import TemplateOutcome
    from gitops_karmada.reconcile.request import ReconcileRequest


@dataclass(frozen=True, slots=True)
class Guarded:
    """A result checked for committing: the changes a commit would make, and the plan with its violations."""

    changes: Mapping[str, FileChange]
    plan: PlanDiff

    @property
    def refused(self) -> bool:
        return bool(self.plan.violations)


@dataclass(frozen=True, slots=True)
class RenderResult:
    files: Mapping[str, bytes]
    """Desired content of every path this run writes, but those in ``stored``."""
    managed: frozenset[str]
    """Every path this run is responsible for (written now, written before, or in the state folder)."""
    keep: frozenset[str] = frozenset()
    """Managed paths whose current content must stay as it is (failed templates)."""
    bindings: tuple[ResourceBinding, ...] = ()
    """The binding of every template after the run (reused ones only when the request materialised them)."""
    outcomes: tuple[TemplateOutcome, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    inputs: Inputs | None = None
    quotas: tuple[FederatedResourceQuota, ...] = ()
    """Every FederatedResourceQuota with its settled status."""
    previous_bindings: tuple[ResourceBinding, ...] = ()
    """The previous records of the templates this run redid or removed (for the deletion guard)."""
    incremental: bool = False
    """The state index was trusted: templates with unchanged inputs were reused, not redone."""
    owned: Container[str] = frozenset()
    """Every file of the cluster folders the tool owns after the run (all templates' and quotas')."""
    index: StateIndex | None = None
    """The state index after the run: every binding's fingerprint, claim and placement, in one value."""
    failover: FailoverOutcome | None = None
    """What the failover controllers did before scheduling (feature gate Failover)."""
    stored: Mapping[str, str] = field(default_factory=dict)
    """Paths this run writes whose contents were written into the object database as they were made
    (``Ports.store``): path → blob id; not in ``files``."""
    guarded: Guarded | None = None
    """The changes a commit of this result makes and the guardrails' verdict on them (``RunMode.guard``)."""
    scoped: bool = False
    """Only the templates a change touched were judged and are in the result (``RunMode.partial``):
    ``index`` stands for the others, and the run-wide outputs were not made. Not to be committed."""

    @property
    def input_ok(self) -> bool:
        """False when the input itself has errors: nothing may be written then.

        Per-template failures (cannot schedule, cannot render) do not count: they are recorded on the
        template's binding, which keeps its previous placement, and the run goes on.
        """
        return self.inputs is not None

    @property
    def failed_templates(self) -> tuple[TemplateOutcome, ...]:
        return tuple(o for o in self.outcomes if o.failed)

    @property
    def redone(self) -> tuple[TemplateOutcome, ...]:
        """The outcomes of templates this run computed (not reused) or removed."""
        return tuple(o for o in self.outcomes if not o.reused)

    def changes(
        self, current_blobs: Mapping[str, str], hash_blob: Callable[[bytes], str] = blob_sha
    ) -> dict[str, bytes | None]:
        """What to write (bytes) or delete (None) to go from ``current_blobs`` to this result.

        ``hash_blob`` must be the repository's object id function (SHA-1 or SHA-256 repositories). Every
        content must be held: a result with ``stored`` files has ``commit_changes``.
        """
        if self.stored:
            raise ValueError("the result's files were stored as they were made: ask commit_changes")
        changes: dict[str, bytes | None] = {}
        for path, change in self.commit_changes(current_blobs, hash_blob).items():
            assert not isinstance(change, StoredBlob)  # nothing was stored
            changes[path] = change
        return changes

    def commit_changes(
        self, current_blobs: Mapping[str, str], hash_blob: Callable[[bytes], str] = blob_sha
    ) -> dict[str, bytes | StoredBlob | None]:
        """``changes``, the files in ``stored`` named by their blob ids."""
        changes: dict[str, bytes | StoredBlob | None] = {}
        named: dict[str, StoredBlob] = {}  # one per blob: a content shared by 200 clusters is one blob
        keep = self.keep
        for path in sorted(self.managed):  # not a difference of two sets of millions, made to be sorted
            if path in keep:
                continue
            old = current_blobs.get(path)
            oid = self.stored.get(path)
            if oid is not None:
                if old != oid:
                    blob = named.get(oid)
                    if blob is None:
                        blob = named[oid] = StoredBlob(oid)
                    changes[path] = blob
                continue
            new = self.files.get(path)
            if new is None:
                if old is not None:
                    changes[path] = None
            elif old != hash_blob(new):
                changes[path] = new
        return changes


def next_request(
    request: ReconcileRequest, result: RenderResult, *, now: str, observed: ObservedStatus | None
) -> ReconcileRequest:
    """The request of a run that starts where ``result`` left off (as if it had been committed), at
    ``now`` with ``observed``: ``simulate`` runs time forward this way without touching the repository."""
    snapshot, ports = request.snapshot, request.ports
    layout = RepoLayout.of(snapshot.config)
    state_before = snapshot.blobs_of_state(ports.hash_blob)
    before: dict[str, str] = {**state_before, **snapshot.output_blobs}
    changes = result.changes(before, ports.hash_blob)
    written = {path: content for path, content in changes.items() if content is not None}
    state_blobs = dict(state_before)
    outputs = dict(snapshot.output_blobs)
    for path, content in changes.items():
        target = outputs if layout.is_output(path) else state_blobs
        if content is None:
            target.pop(path, None)
        else:
            target[path] = ports.hash_blob(content)
    state_files = {
        path: written.get(path, raw)
        for path, raw in snapshot.state_files.items()
        if changes.get(path, raw) is not None
    }
    state_files.update(
        {p: c for p, c in written.items() if layout.is_state(p) and not layout.is_binding_record(p)}
    )
    read_state, read_output = ports.read_state, ports.read_output

    def read_new_state(paths: Sequence[str]) -> Mapping[str, bytes]:
        found = {p: written[p] for p in paths if p in written}
        rest = [p for p in paths if p not in found and p in state_blobs]
        if rest and read_state is not None:
            found.update(read_state(rest))
        return found

    read_records = ports.read_records

    def read_new_records(paths: Sequence[str]) -> Mapping[str, bytes | Decoded]:
        found: dict[str, bytes | Decoded] = {p: written[p] for p in paths if p in written}
        rest = [p for p in paths if p not in found and p in state_blobs]
        if rest and read_records is not None:
            found.update(read_records(rest))
        return found

    def read_new_output(path: str) -> bytes | None:
        if path in written:
            return written[path]
        return read_output(path) if read_output is not None and path in outputs else None

    return replace(
        request,
        snapshot=replace(
            snapshot,
            state_files=state_files,
            state_blobs=state_blobs,
            output_blobs=outputs,
            output_edits=frozenset(),
            shallow_outputs=None,
            now=now,
            observed=observed,
        ),
        ports=replace(
            ports,
            read_state=read_new_state,
            read_records=read_new_records if read_records is not None else None,
            read_output=read_new_output,
            count_outputs=None,
        ),
        caches=replace(request.caches, index_lines=None),
    )
