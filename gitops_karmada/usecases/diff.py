"""Diff: the fleet rendered at two sides (commits or checkouts) and compared, as ``diff`` reports it.

Both sides are rendered in memory (the work tree is never written). A revision is rendered incrementally,
its committed files read only where the other side differs; the second side reuses what loading made of
the first. ``simulate`` builds its sides with ``side_of`` too.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gitops_karmada.adapters.committed_outputs import CommittedOutputs
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.layered_blobs import LayeredBlobs, candidates
from gitops_karmada.adapters.repository import RepositoryState, read_commit, read_worktree
from gitops_karmada.adapters.warm_state import WarmState
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.diff import DiffSide, PlanDiff, compare
from gitops_karmada.core.diff.placement import placements_from_index
from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.incremental.state_index import read_index
from gitops_karmada.core.inputs.loading import load_bindings
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model.errors import GitError, UsageError
from gitops_karmada.reconcile import RenderResult, reconcile
from gitops_karmada.usecases.reconcile import changed_inputs
from gitops_karmada.usecases.up_to_date import since_reconcile

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence
    from pathlib import Path

    from gitops_karmada.core.diff import Guardrail
    from gitops_karmada.core.incremental.state_index import StateIndex


class NoUpstreamError(UsageError):
    """No base was given and the head has no upstream branch (nor an ``origin/HEAD``) to compare with."""


def compare_sides(
    repo: Path,
    base_rev: str | None,
    head_rev: str | None,
    base_path: Path | None,
    head_path: Path | None,
    guardrails: Sequence[Guardrail] = (),
    *,
    full: bool = False,
) -> PlanDiff:
    """Read and render both sides, then compare them (``full``: every template of each, see ``--full``)."""
    store = GitStore.open(repo) if base_path is None or head_path is None else None
    # the two revisions share most input files: the second side reuses what loading made of the first's
    warm = WarmState()
    if head_path is not None:
        head = read_checkout(head_path, full=full)
    else:
        assert store is not None
        head = read_revision(store, head_rev or "HEAD", warm, full=full)
    if base_path is not None:
        base = read_checkout(base_path, full=full)
    else:
        assert store is not None
        base_sha = base_rev or default_base(store, head_rev or "HEAD")
        # what the comparison reads of the base's unmatched templates: whether the head's still are
        base = read_revision(store, base_sha, warm, asked=frozenset(head.unmatched), full=full)
    paths = None
    if store is not None and isinstance(base.blobs, LayeredBlobs) and isinstance(head.blobs, LayeredBlobs):
        # two revisions: only the paths they (or their renders) differ in are compared, not every file
        paths = candidates(
            store, base.blobs, head.blobs, (base.layout.clusters_dir, head.layout.clusters_dir)
        )
    elif store is not None and (base.blobs is None) != (head.blobs is None):
        # a revision against a checkout: the checkout's files get blob ids too, so the two compare by blob
        # (the revision side holds only what its render changed; the rest is read where they differ)
        base, head = (with_blob_ids(side, store) for side in (base, head))
    return compare(base, head, guardrails, candidates=paths)


def with_blob_ids(side: DiffSide, store: GitStore) -> DiffSide:
    """``side`` with the blob id of every file of its tree, when it has none (a checkout's side)."""
    if side.blobs is not None:
        return side
    return replace(side, blobs={path: store.blob_id(content) for path, content in side.tree.items()})


def default_base(store: GitStore, head: str) -> str:
    """The merge-base of ``head`` and the upstream branch (else ``origin/HEAD``, the remote's default)."""
    upstream = store.try_resolve("@{upstream}") or store.try_resolve("refs/remotes/origin/HEAD")
    if upstream is None:
        raise NoUpstreamError(
            "no upstream branch (and no origin/HEAD) to compare with: give --base REV "
            "(or set one: git branch --set-upstream-to origin/main)"
        )
    base = store.merge_base(upstream, head)
    if base is None:
        raise GitError("merge-base", f"{head} and its upstream branch have no common ancestor")
    return base


def read_revision(
    store: GitStore,
    rev: str,
    warm: WarmState | None = None,
    *,
    asked: Collection[str] | None = None,
    full: bool = False,
) -> DiffSide:
    """Render the commit ``rev`` incrementally: only templates whose inputs changed since its last
    reconcile are redone; every other file and binding is taken from the commit, and read only if the
    other side differs there. ``warm``: decoded and loaded inputs kept from the other side (by content).

    When only input files changed since a reconcile of this engine, only the templates they can touch are
    judged (``core.incremental.change_scope``), the state index standing for the others. When nothing
    ``reconcile`` reads changed, the index stands for every template whose result is settled: only the
    unsettled are redone. ``asked``: the templates (``str(key)``) whose unmatched state the comparison reads;
    they are redone too, and the side's ``unmatched`` answers for those (and for the redone ones). ``full``:
    every template is judged and rendered, no state index trusted."""
    state = read_commit(store, rev, materialize=False, warm=warm)
    assert state.source is not None
    since = None if full else since_reconcile(store, rev)
    if since is not None and since.source != state.source:
        since = None  # the ref moved since it was read: judge every template of what was read
    vouched = vouched_index(state) if asked is not None and since is not None and since.unchanged else None
    request = state.request.with_mode(lint=False, full=full)  # the comparison reads errors only
    if vouched is not None:
        assert asked is not None
        redo = {identity for identity, entry in vouched.entries.items() if not entry.settled}
        request = request.with_mode(focus=lambda key: key.identity in redo or str(key) in asked)
    elif since is not None and not since.others:
        changed = changed_inputs(store, since.inputs, request.config, asked)
        request = request.with_snapshot(changed=changed).with_mode(partial=True)
    result = reconcile(request)
    changes = result.changes(state.current_blobs, store.blob_id)
    committed = state.current_blobs
    overlay = {path: None if content is None else store.blob_id(content) for path, content in changes.items()}
    blobs = LayeredBlobs(state.source, committed, overlay)
    outputs = state.request.snapshot.output_blobs
    counts = (
        blobs.cluster_counts(outputs, state.request.config.output.clusters_dir)
        if isinstance(outputs, CommittedOutputs)
        else None
    )

    def read(paths: Sequence[str]) -> dict[str, bytes]:
        found = store.read_blobs(sorted({committed[p] for p in paths if p in committed}))
        return {p: found[committed[p]] for p in paths if p in committed}

    rendered = {p: c for p, c in changes.items() if c is not None}
    label = state.source[:12] if rev == state.source else f"{rev} ({state.source[:12]})"
    side = side_of(label, state, result, rendered, blobs, read, index=vouched)
    return replace(side, cluster_counts=counts)


def vouched_index(state: RepositoryState) -> StateIndex | None:
    """The state index of a commit a run would make exactly the output of again (nothing ``reconcile``
    reads changed since a reconcile of this engine, whose index this is)."""
    request = state.request
    index = read_index(
        request.snapshot.state_files, RepoLayout.of(request.config), request.caches.index_lines
    )
    return index if index is not None and index.engine == ENGINE_VERSION else None


def read_checkout(root: Path, *, full: bool = False) -> DiffSide:
    """Render the files under ``root`` (a second checkout); the wall clock stands in for the commit time."""
    state = read_worktree(root, datetime.now(UTC))
    result = reconcile(state.request.with_mode(lint=False, full=full))
    changes = result.changes(state.current_blobs)
    tree = {p: (root / p).read_bytes() for p in state.current_blobs if p not in changes}
    tree.update({p: c for p, c in changes.items() if c is not None})
    return side_of(str(root), state, result, tree)


def side_of(
    label: str,
    state: RepositoryState,
    result: RenderResult,
    tree: dict[str, bytes],
    blobs: Mapping[str, str] | None = None,
    read: Callable[[Sequence[str]], Mapping[str, bytes]] | None = None,
    *,
    index: StateIndex | None = None,
) -> DiffSide:
    """``index``: the state index that stands for the templates a focused ``result`` did not redo."""
    request = state.request
    layout = RepoLayout.of(request.config)
    placements = None
    index = result.index if index is None else index
    if result.input_ok and index is not None:
        bindings = tuple(o.binding for o in result.outcomes if o.binding is not None and not o.reused)
        placements = placements_from_index(index)
    elif result.input_ok:
        bindings = result.bindings
    else:
        # the input does not load: the committed binding records stand for the placement
        records = [p for p in request.snapshot.state_blobs if layout.is_binding_record(p)]
        raw = dict(request.snapshot.state_files)
        if request.ports.read_state is not None:
            raw.update(request.ports.read_state(records))
        previous, _ = load_bindings({p: c for p, c in raw.items() if p in records})
        bindings = tuple(previous[identity] for identity in sorted(previous))
    return DiffSide(
        revision=label,
        tree=tree,
        bindings=bindings,
        blobs=blobs,
        read=read,
        placements=placements,
        layout=layout,
        inputs=result.inputs if result.input_ok else None,
        diagnostics=result.diagnostics,
        unmatched=tuple(
            str(o.key) for o in result.outcomes if o.match.state is ClaimState.UNMATCHED and not o.removed
        ),
    )
