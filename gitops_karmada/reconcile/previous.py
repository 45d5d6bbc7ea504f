"""What the previous run left: the state index and the binding records, read only when needed (many at a
time), never changed. The failover controllers' edits are an overlay (``with_overlay``), not a write."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.detector import PolicyRef, PriorClaim
from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.incremental.state_index import IndexEntry, StateIndex, files_digest, read_index
from gitops_karmada.core.inputs.loading import load_bindings
from gitops_karmada.core.layout import RepoLayout

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from gitops_karmada.core.inputs.loading import Decoded
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.reconcile.request import ReconcileRequest

Identity = tuple[str, str, str, str]


RECORD_BATCH = 1000
"""Records read, decoded and parsed together (one read of the adapter's each)."""


class RecordReader:
    """Parses binding records on demand, each once, in batches; remembers what reading them found wrong.

    Its memory is a cache of reads, never a change: the same path always gives the same binding."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        read: Callable[[Sequence[str]], Mapping[str, bytes]] | None,
        read_decoded: Callable[[Sequence[str]], Mapping[str, bytes | Decoded]] | None = None,
    ) -> None:
        self._files, self._read, self._read_decoded = files, read, read_decoded
        self._bindings: dict[Identity, ResourceBinding] = {}
        self._read_paths: set[str] = set()
        self._problems: list[Diagnostic] = []

    def read(self, paths: Iterable[str], known: Mapping[str, str]) -> None:
        """Parse the records at ``paths`` that exist (``known``) and were not parsed yet, in batches of
        ``RECORD_BATCH`` (in path order, as one batch would: a later path's binding of the same template
        wins): a full run's 20,000 decoded records are never all held at once, only their bindings."""
        wanted = sorted(p for p in set(paths) if p not in self._read_paths and p in known)
        self._read_paths.update(wanted)
        for start in range(0, len(wanted), RECORD_BATCH):
            batch = wanted[start : start + RECORD_BATCH]
            raw: dict[str, bytes | Decoded] = {p: self._files[p] for p in batch if p in self._files}
            missing = [p for p in batch if p not in raw]
            if missing and self._read_decoded is not None:
                raw.update(self._read_decoded(missing))
            elif missing and self._read is not None:
                raw.update(self._read(missing))
            found, problems = load_bindings(raw)
            self._problems.extend(problems)
            self._bindings.update(found)

    def binding(self, identity: Identity) -> ResourceBinding | None:
        return self._bindings.get(identity)

    def has(self, identity: Identity) -> bool:
        """Whether a record of ``identity`` was read."""
        return identity in self._bindings

    def identities(self) -> set[Identity]:
        """The templates of every record read."""
        return set(self._bindings)

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return tuple(self._problems)


@dataclass(frozen=True, slots=True)
class PreviousRun:
    """The previous binding records and the state index, as the run reads them."""

    layout: RepoLayout
    """Where this run writes."""
    blobs: Mapping[str, str]
    """Every state file: path → blob id."""
    index: StateIndex | None
    """The state index, when it can be trusted (this engine wrote it and the run is not ``full``)."""
    edits: frozenset[str] | None
    """``RepoSnapshot.output_edits``."""
    reader: RecordReader
    overlay: Mapping[Identity, ResourceBinding] = field(default_factory=dict)
    """Bindings standing in for their records: what the failover controllers changed before scheduling."""
    written: RepoLayout | None = None
    """Where the previous records and manifests are, when not where this run writes (``output.buckets``
    changed since): its files move, every one."""

    @classmethod
    def open(cls, request: ReconcileRequest) -> PreviousRun:
        snapshot = request.snapshot
        layout = RepoLayout.of(snapshot.config)
        blobs = snapshot.blobs_of_state(request.ports.hash_blob)
        index = read_index(snapshot.state_files, layout, request.caches.index_lines)
        if index is None and not any(layout.is_binding_record(p) for p in blobs):
            index = StateIndex(engine=ENGINE_VERSION)  # no record at all: an empty index says all there is
        written = layout.written_in(blobs)
        trusted = (
            index is not None
            and index.engine == ENGINE_VERSION
            and not request.mode.full
            and written == layout
        )
        return cls(
            layout=layout,
            blobs=blobs,
            index=index if trusted else None,
            edits=snapshot.output_edits,
            reader=RecordReader(snapshot.state_files, request.ports.read_state, request.ports.read_records),
            written=written if written != layout else None,
        )

    @property
    def previous_layout(self) -> RepoLayout:
        """Where the previous records and manifests are."""
        return self.written if self.written is not None else self.layout

    def with_overlay(self, bindings: Mapping[Identity, ResourceBinding]) -> PreviousRun:
        """This reader with ``bindings`` standing in for their records."""
        return replace(self, overlay={**self.overlay, **bindings}) if bindings else self

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """What was wrong with the records read so far (a record that cannot be read refuses the run)."""
        return self.reader.diagnostics

    def record_path(self, identity: Identity) -> str:
        return self.previous_layout.record_path(identity)

    @property
    def record_paths(self) -> list[str]:
        return sorted(p for p in self.blobs if self.layout.is_binding_record(p))

    def read(self, paths: Iterable[str]) -> None:
        self.reader.read(paths, self.blobs)

    def read_all(self) -> None:
        self.read(self.record_paths)

    def identities(self) -> set[Identity]:
        """Every template that had a binding: the index's, plus any record the index does not describe."""
        if self.index is None:
            self.read_all()
            return self.reader.identities()
        known = {self.record_path(i) for i in self.index.entries}
        self.read(p for p in self.record_paths if p not in known)  # records added outside the tool
        return set(self.index.entries) | self.reader.identities()

    def binding(self, identity: Identity) -> ResourceBinding | None:
        if identity in self.overlay:
            return self.overlay[identity]
        if not self.reader.has(identity):
            self.read([self.record_path(identity)])
        return self.reader.binding(identity)

    def bindings(self, identities: Iterable[Identity]) -> dict[Identity, ResourceBinding]:
        wanted = list(identities)
        self.read(self.record_path(i) for i in wanted if i not in self.overlay and not self.reader.has(i))
        return {i: b for i in wanted if (b := self.binding(i)) is not None}

    def prior(self, identity: Identity) -> ResourceBinding | PriorClaim | None:
        """What matching needs of the previous binding: the record when read, else the index's claim."""
        if (
            identity in self.overlay
            or self.reader.has(identity)
            or self.index is None
            or identity not in self.index.entries
        ):
            return self.binding(identity)
        claim = self.index.entries[identity].claim
        return PriorClaim((PolicyRef(claim[0], claim[1], claim[2]), claim[3]) if claim else None)

    def reusable(
        self, identity: Identity, fingerprint: str, output_blobs: Mapping[str, str]
    ) -> IndexEntry | None:
        """The index entry of a template whose recorded output still stands for ``fingerprint``."""
        if self.index is None:
            return None
        entry = self.index.entries.get(identity)
        if entry is None or not entry.settled or entry.fingerprint != fingerprint:
            return None
        if self.blobs.get(self.record_path(identity)) != entry.record:
            return None  # the record was edited or removed by hand
        if self.edits is not None and not self.edits:
            return entry  # nothing was edited since the tool commit that wrote the index
        key_paths = [self.layout.identity_manifest_path(cluster, identity) for cluster in entry.rendered]
        if self.edits is not None:
            # the index was written with the files of a tool commit; only a later change can spoil them
            return None if self.edits.intersection(key_paths) else entry
        if files_digest(key_paths, output_blobs) != entry.files:
            return None  # a rendered file was edited or removed by hand
        return entry
