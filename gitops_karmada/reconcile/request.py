"""What a run is asked: the repository state it reads (data), how it runs (mode), how it reaches the world
(ports) and what an earlier run of the same process left to recall (warm caches).

The four parts are separate so that each step takes only what it reads: the snapshot is plain data, the
mode says which of the seven kinds of run this is, the ports are the one place a run calls out (reads,
writes ahead, fan-out, progress, cancellation), and the caches only ever save work (a run with none of
them makes exactly the same result).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from gitops_karmada.core.inputs.loading import load
from gitops_karmada.model.errors import RunCancelled

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from gitops_karmada.core.diff.removals import InputHistory
    from gitops_karmada.core.failover.what_if import WhatIf
    from gitops_karmada.core.incremental.change_scope import ChangedInputs
    from gitops_karmada.core.incremental.state_index import IndexLines
    from gitops_karmada.core.inputs.external_sources import GeneratedSource
    from gitops_karmada.core.inputs.loading import ClassifiedFiles, Decoded, LoadResult
    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.core.rollout.gates import Signals
    from gitops_karmada.core.run_memo import RunMemo
    from gitops_karmada.core.schema_check import NativeSchemas
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.keys import ObjectKey

Identity = tuple[str, str, str, str]
_T = TypeVar("_T")
_R = TypeVar("_R")


def blob_sha(data: bytes) -> str:
    """Git's blob object id of ``data`` (so unchanged files are never rewritten)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoSnapshot:
    """The repository state a run reads: plain data, the same for every kind of run over it."""

    config: ToolConfig
    now: str
    """RFC 3339 time of the source commit (or of the status commit, when later): the only clock the run
    knows."""
    input_files: Mapping[str, bytes] = field(default_factory=dict)
    """Input documents by repository path (already restricted to input paths)."""
    decoded: Mapping[str, Decoded] | None = None
    """The input files already decoded (path → documents), e.g. from a cache by content; replaces
    ``input_files`` when given."""
    config_diagnostics: tuple[Diagnostic, ...] = ()
    state_files: Mapping[str, bytes] = field(default_factory=dict)
    """Files of the state folder read up front: at least everything but the binding records."""
    state_blobs: Mapping[str, str] = field(default_factory=dict)
    """Every file of the state folder: path → blob id (records included); derived from ``state_files`` when
    empty."""
    snapshot_files: Mapping[str, bytes] = field(default_factory=dict)
    """Cluster snapshots (nodes, pods, ResourceQuotas) for the accurate estimator."""
    output_blobs: Mapping[str, str] = field(default_factory=dict)
    """Current files of the clusters folder: path → blob id (hand-written files, what the tool wrote). May
    be lazy: an incremental run only looks paths up, a full one iterates."""
    output_edits: frozenset[str] | None = None
    """Cluster-folder paths changed since the tool commit that wrote the state index being read (hand
    edits): a reused template's files are then vouched for by not being among them, without reading every
    file's id. None: unknown, every reused template's files are compared with the index's digest."""
    shallow_outputs: frozenset[str] | None = None
    """``RunContext.shallow_outputs``, when an adapter can list them more cheaply than by iterating
    ``output_blobs``."""
    observed: ObservedStatus | None = None
    """Member clusters' status snapshots (the status branch); None: nothing observed is used."""
    generated: Mapping[str, GeneratedSource] = field(default_factory=dict)
    """What ``kubectl kustomize``/``helm template`` gave for the Kustomize and Helm sources (an adapter ran
    them), by their kustomization.yaml/Chart.yaml path."""
    native_schemas: NativeSchemas | None = None
    """Kubernetes' schemas for checking rendered manifests (an adapter supplies them); None: only CRDs in
    the repository are checked."""
    history: InputHistory | None = None
    """What changed in the inputs since the tool's last commit, and what those files held then: what the
    guard reads to name the input change behind each removal (``core.diff.removals``)."""
    commit: str = ""
    """The source commit read, when there is one: a rollout records it as where a cluster's files come
    from, and rolls back to the files of an earlier one."""
    rollout_signals: Signals | None = None
    """What the rollouts in flight are told from outside the repository's files: approval commits and
    commit statuses (``core.rollout.gates.Signals``), as an adapter found them."""
    changed: ChangedInputs | None = None
    """The input files changed since the previous run and what they held then, when the caller knows: if
    they let ``core.incremental.change_scope`` tell which templates they touch, the run judges only those
    (``reconcile.scope``), and every other template stands as the state index records it. The result is
    the one a run judging every template makes."""

    def load(self) -> LoadResult:
        """The inputs loaded: every document given its role, validated and defaulted, with diagnostics."""
        return load(self.input_files, self.config, self.decoded, self.generated)

    def blobs_of_state(self, hash_blob: Callable[[bytes], str]) -> Mapping[str, str]:
        """Every state file's blob id (``state_blobs``, or those of ``state_files`` when a request was built
        from files alone)."""
        return self.state_blobs or {path: hash_blob(raw) for path, raw in self.state_files.items()}


class ManagedBlobs(Mapping[str, str]):
    """The state folder's files, then the (lazy) cluster folders': one read-only view of the managed paths."""

    def __init__(self, state: Mapping[str, str], outputs: Mapping[str, str]) -> None:
        self._state, self._outputs = state, outputs

    def __getitem__(self, path: str) -> str:
        return self._state[path] if path in self._state else self._outputs[path]

    def __contains__(self, path: object) -> bool:
        return path in self._state or path in self._outputs

    def get(self, path: str, default: Any = None) -> Any:
        """``Mapping.get`` without a ``KeyError`` per missing path (a run asks for every path it writes)."""
        found = self._state.get(path)
        return found if found is not None else self._outputs.get(path, default)

    def __iter__(self) -> Iterator[str]:
        yield from self._state
        yield from (p for p in self._outputs if p not in self._state)

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunMode:
    """Which kind of run this is: what it computes and how much of its result it returns."""

    full: bool = False
    """Redo every template, whatever the state index says."""
    reschedule: frozenset[Identity] = frozenset()
    """Templates whose replicas are divided afresh (Karmada's WorkloadRebalancer)."""
    what_if: WhatIf | None = None
    """A ``simulate`` scenario's taints, put on the clusters before anything else reads them."""
    explain: bool = False
    """Also evaluate the scheduler where Karmada keeps the previous result, and keep each rendered cluster's
    overridden object in the outcome (``OverrideResult.object``), so they can be explained."""
    focus: Callable[[ObjectKey], bool] | None = None
    """Templates to explain: always redone, and the run computes only what their outcomes depend on (the
    templates of their namespaces and those requiring them). The result holds those outcomes and no files:
    it is not to be committed."""
    partial: bool = False
    """With ``RepoSnapshot.changed``: return only what the judged templates make, their files and the state
    index, and none of the run-wide outputs (``RenderResult.scoped``): enough to compare (``diff``), not to
    commit."""
    lint: bool = True
    """Run the whole-input lint (``core.lint``: cross-object warnings, never errors). False for callers that
    show no warnings, as ``diff``, which reports errors only."""
    materialize: bool = True
    """Load the binding of every reused template into the result (False: only what the run needed)."""
    rolled_back_to: str | None = None
    """The revision whose inputs this run renders on request (``rollback``): its removals are what the user
    asked for."""
    guard: frozenset[str] | None = None
    """Check the result for committing (``reconcile.guard``), with the guardrails these names lift
    (``--allow``; ``all`` lifts every one); None: the result is not to be committed, nothing is checked."""


class FanOut(Protocol):
    def __call__(
        self,
        work: Callable[[Sequence[_T]], list[_R]],
        items: Sequence[_T],
        done: Callable[[int], None] | None = None,
    ) -> list[_R]:
        """``work`` over ``items``, split into chunks however the implementation likes: one result per item,
        in the items' order, exactly what ``work(items)`` returns. ``done`` is told, in the calling process,
        about how many items are done so far (for a progress bar)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Ports:
    """Every way a run reaches out of itself, in one place: the reads it makes on demand, the writes it makes
    ahead (a file told or stored is not committed), the fan-out of independent work, progress and
    cancellation. The adapters give real ones; a run given none reads only its snapshot and runs alone."""

    read_state: Callable[[Sequence[str]], Mapping[str, bytes]] | None = None
    """Reads state files (binding records) on demand, many at a time, when they are not in
    ``RepoSnapshot.state_files``."""
    read_records: Callable[[Sequence[str]], Mapping[str, bytes | Decoded]] | None = None
    """Reads binding records, many at a time, decoded (``core.inputs.loading.decode``) where the adapter
    keeps what it decoded by blob id between processes (a record of 200 clusters is 8 kB of YAML to parse),
    else as content. Asked instead of ``read_state`` by the run's record reader when given."""
    read_output: Callable[[str], bytes | None] | None = None
    """Reads a file of the source commit; needed only to release preserved manifests and to judge a
    rollout's wave."""
    read_output_at: Callable[[str, str], bytes | None] | None = None
    """Reads a file of another commit (commit, path): the files a rollout rolls back to."""
    count_outputs: Callable[[], Mapping[str, int] | None] | None = None
    """The files of each cluster folder, counted without listing their ids (the write guard's
    ``cluster-emptied``); None or a None answer: counted from ``RepoSnapshot.output_blobs``."""
    hash_blob: Callable[[bytes], str] = blob_sha
    """The repository's blob id function (SHA-1 or SHA-256 repositories)."""
    store: Callable[[Mapping[str, bytes]], Mapping[str, str] | None] | None = None
    """Takes a redone template's rendered files as soon as they are made, in whichever process makes them,
    and writes them into the object database: it returns their blob ids (path → id; the outcome then names
    them in ``stored`` and drops their contents, so a run does not hold the whole fleet), or None to leave
    them held."""
    emit: Callable[[Mapping[str, bytes]], None] | None = None
    """Told once, as soon as they are known, the files the redone templates write that ``store`` did not take
    (manifests and binding records, path → content), before the run-wide outputs and the index: an adapter
    can start writing their blobs while the run finishes."""
    fan_out: FanOut | None = None
    """Runs the templates to redo that are independent of one another, as an adapter decides (across
    processes); None: one by one in the run's loop."""
    progress: Callable[[int, int], None] | None = None
    """Told (templates done, templates in all) after each template; an entry point draws it."""
    cancelled: Callable[[], bool] | None = None
    """Asked between steps and templates; True stops the run with ``RunCancelled`` (nothing is returned,
    so nothing is written). The daemon gives a status-only run way to a user commit this way."""

    def checkpoint(self) -> None:
        """Raise ``RunCancelled`` when the caller asked the run to stop."""
        if self.cancelled is not None and self.cancelled():
            raise RunCancelled("the run was cancelled by its caller")

    def tell_progress(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)


@dataclass(frozen=True, slots=True, kw_only=True)
class WarmCaches:
    """What earlier runs of the same process computed of the same inputs, recalled by this run (and
    refreshed by it). They only save work: every entry is keyed by what it was computed from."""

    index_lines: IndexLines | None = None
    """State index entries parsed by an earlier run, by line."""
    classified: ClassifiedFiles | None = None
    """Input files classified by an earlier run."""
    memo: RunMemo | None = None
    """Templates checked, policies defaulted and indexed, matches, fingerprints, reused outcomes, index
    lines."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReconcileRequest:
    snapshot: RepoSnapshot
    mode: RunMode = field(default_factory=RunMode)
    ports: Ports = field(default_factory=Ports)
    caches: WarmCaches = field(default_factory=WarmCaches)

    @classmethod
    def of(
        cls, input_files: Mapping[str, bytes], config: ToolConfig, now: str, **snapshot: Any
    ) -> ReconcileRequest:
        """A request over files alone (no previous state unless given), as tests and ``render --out`` make."""
        return cls(snapshot=RepoSnapshot(input_files=input_files, config=config, now=now, **snapshot))

    @property
    def config(self) -> ToolConfig:
        return self.snapshot.config

    def with_snapshot(self, **changes: Any) -> ReconcileRequest:
        return replace(self, snapshot=replace(self.snapshot, **changes))

    def with_mode(self, **changes: Any) -> ReconcileRequest:
        return replace(self, mode=replace(self.mode, **changes))

    def with_ports(self, **changes: Any) -> ReconcileRequest:
        return replace(self, ports=replace(self.ports, **changes))

    def with_caches(self, **changes: Any) -> ReconcileRequest:
        return replace(self, caches=replace(self.caches, **changes))
