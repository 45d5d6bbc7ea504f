"""``verify``: is the committed output exactly what reconcile makes of the commit's inputs? (a CI check)

Re-renders a commit as ``reconcile`` would (read from the commit, never the work tree) and compares with
the committed cluster and state folders. Differences are named per file and told apart by history: a
managed file whose content no tool commit wrote was edited (or deleted) by hand; any other difference is
stale output (inputs changed, not reconciled yet). Hand-written files in the cluster folders are listed as
information only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_log import PathChange
from gitops_karmada.adapters.git_tree import parse_ls_tree_paths
from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.adapters.shard_store import output_view, recorded_shards, shard_tips
from gitops_karmada.adapters.tool_commits import is_tool_commit, latest_tool_commit
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.core.diff.fields import field_changes
from gitops_karmada.core.diff.secrets import is_secret
from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.incremental.state_index import read_index
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.ownership import is_state_file, ownership
from gitops_karmada.model.errors import InputError
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.lifecycle import owners_of, read_config
from gitops_karmada.usecases.up_to_date import UpToDate, unchanged_since_reconcile, uncommitted_inputs

HAND_EDIT_FIELDS = 5
"""Changed fields named in a hand edit's line; ``diff`` shows all of them."""

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.adapters.git_log import LogEntry
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.adapters.repository import RepositoryState
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.reconcile import RenderResult


class Finding(enum.StrEnum):
    STALE = "stale"
    """Reconcile would write or delete it: inputs changed since the last reconcile."""
    EDITED = "edited"
    """A tool-written file whose content no tool commit wrote."""
    DELETED = "deleted"
    """A tool-written file deleted by a commit that is not the tool's."""
    STATE_EDITED = "state-edited"
    """A binding record added, changed or deleted by hand."""
    WORK_TREE = "work-tree"
    """The checked-out files or index of a managed folder differ from the branch (an unfinished update of
    a killed run, or an uncommitted edit): the next ``git commit`` would revert the reconciler."""
    PENDING = "pending"
    """Stale under ``--allow-stale``: a pull request's inputs, reconciled after it merges (information)."""
    HAND_WRITTEN = "hand-written"
    """A file in a cluster folder the tool does not manage (information, not a failure)."""
    UNCOMMITTED = "uncommitted"
    """An input file edited in the work tree but not committed: verify checks the commit, not the edit."""
    SHARD = "shard"
    """An output shard's branch is not at the commit the state records (sharded ``output.mode``): a run
    interrupted between shards, or a commit someone made on the branch; the next reconcile repairs it."""

    @property
    def is_failure(self) -> bool:
        return self not in (Finding.HAND_WRITTEN, Finding.UNCOMMITTED, Finding.PENDING)


@dataclass(frozen=True, slots=True)
class VerifyItem:
    path: str
    finding: Finding
    detail: str
    commit: str | None = None
    """The commit that made the hand edit, when it can be named."""

    def to_dict(self) -> dict[str, str]:
        return {
            "path": self.path,
            "finding": self.finding.value,
            "detail": self.detail,
            **({"commit": self.commit} if self.commit else {}),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    commit: str
    last_reconcile: str | None
    """The newest tool commit on the first-parent history (the reference for hand edits)."""
    items: tuple[VerifyItem, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    input_ok: bool = True
    failed_templates: tuple[str, ...] = ()
    templates: int = 0
    """Templates of the commit (those with a binding, or that the render judged)."""
    rendered: int = 0
    """Templates re-rendered to check them; the state index's fingerprints vouched for the others."""

    @property
    def failures(self) -> tuple[VerifyItem, ...]:
        return tuple(item for item in self.items if item.finding.is_failure)

    @property
    def info(self) -> tuple[VerifyItem, ...]:
        return tuple(item for item in self.items if not item.finding.is_failure)

    @property
    def ok(self) -> bool:
        return self.input_ok and not self.failed_templates and not self.failures


def verify_commit(
    store: GitStore, rev: str, *, full: bool = False, allow_stale: bool = False
) -> VerifyReport:
    """Re-render ``rev`` and name every managed file that is stale or was edited by hand.

    Templates whose inputs' fingerprint the state index vouches for (and whose record and files are as the
    tool wrote them) are not re-rendered; ``full`` re-renders everything. ``allow_stale``: stale files are
    information (``pending``), not failures, as on a pull request whose inputs reconcile renders after
    the merge; hand edits still fail.
    """
    if not full:
        current = unchanged_since_reconcile(store, rev)
        if current is not None:
            vouched = _vouched(store, rev, current)
            if vouched is not None:
                return vouched
    state = read_commit(store, rev, full=full, materialize=False)
    assert state.source is not None
    commit = state.source
    anchor = latest_tool_commit(store, commit)
    last_reconcile = anchor.commit if anchor is not None else None
    layout = RepoLayout.of(state.request.config)
    # hand edits are found from history alone: they are reported even when the input cannot be rendered
    items = _hand_edits(store, state, layout, last_reconcile)
    items.update(_work_tree(store, rev, state.request.config, layout))
    items.update(_shards(store, rev, commit, layout))
    result = reconcile(state.request)
    if not result.input_ok:
        return VerifyReport(
            commit=commit,
            last_reconcile=last_reconcile,
            items=tuple(sorted(items.values(), key=lambda item: item.path)),
            diagnostics=result.diagnostics,
            input_ok=False,
        )
    items.update(_stale(store, state, result, items, last_reconcile, allow_stale=allow_stale))
    items.update(_hand_written(store, state, result, layout, items, last_reconcile))
    ordered = sorted(items.values(), key=lambda item: (not item.finding.is_failure, item.path))
    return VerifyReport(
        commit=commit,
        last_reconcile=last_reconcile,
        items=tuple(ordered),
        diagnostics=result.diagnostics,
        failed_templates=tuple(str(outcome.key) for outcome in result.failed_templates),
        templates=len(result.outcomes),
        rendered=sum(1 for outcome in result.outcomes if not outcome.reused),
    )


def _vouched(store: GitStore, rev: str, current: UpToDate) -> VerifyReport | None:
    """The report of a commit that nothing reconcile reads changed in since a tool commit of this engine,
    from that commit's state index: reconcile would make exactly its output again (the fingerprints vouch
    for every template at once), so nothing is re-rendered, and no managed file changed since, so there is
    no hand edit to name. Hand-written files are still listed, and the warnings the index recorded for its
    templates are repeated. None when the index cannot be trusted (the caller re-renders)."""
    config, _ = read_config(store, current.source)
    layout = RepoLayout.of(config)
    state_entries = [
        e
        for e in store.list_entries(current.source, [layout.state_dir])
        if e.is_regular_file and is_state_file(e.path) and not layout.is_binding_record(e.path)
    ]
    blobs = store.read_blobs([e.oid for e in state_entries])
    state_files = {e.path: blobs[e.oid] for e in state_entries}
    index = read_index(state_files, layout)
    if index is None or index.engine != ENGINE_VERSION:
        return None
    owned = set(ownership((), state_files, layout).paths)
    for identity, entry in index.entries.items():
        owned.update(layout.identity_manifest_path(cluster, identity) for cluster in entry.rendered)
    items = _work_tree(store, rev, config, layout)
    items.update(_shards(store, rev, current.source, layout))
    # the paths alone, not a path → blob id mapping: a third of the time for a quarter of a million files
    view = output_view(store, current.source, layout)
    listed = parse_ls_tree_paths(store.list_tree_raw(view.rev, layout.clusters_dir))
    items.update(
        (path, VerifyItem(path, Finding.HAND_WRITTEN, "not written by gitops-karmada; left alone"))
        for path in sorted(p for p in listed if p not in owned and p not in items and layout.is_output(p))
    )
    ordered = sorted(items.values(), key=lambda item: (not item.finding.is_failure, item.path))
    warnings = tuple(w for identity in sorted(index.entries) for w in index.entries[identity].warnings)
    return VerifyReport(
        commit=current.source,
        last_reconcile=current.reconciled,
        items=tuple(ordered),
        diagnostics=warnings,
        templates=len(index.entries),
    )


def _hand_edits(
    store: GitStore, state: RepositoryState, layout: RepoLayout, anchor: str | None
) -> dict[str, VerifyItem]:
    """Managed files changed since ``anchor`` to content that no tool commit in between produced."""
    assert state.source is not None
    commit = state.source
    if anchor is None:
        changed = [_added(path, oid) for path, oid in sorted(state.current_blobs.items())]
    else:
        changed = list(store.diff(anchor, commit, layout.folders))
    if not changed:
        return {}
    # every commit since the anchor, side branches included: a tool commit on a merged branch is the tool's
    walk = store.log(commit, since=anchor, paths=layout.folders, first_parent=False, with_changes=True)
    produced = {(c.path, c.new_oid) for entry in walk if is_tool_commit(entry) for c in entry.changes}
    unexplained = [c for c in changed if (c.path, c.new_oid) not in produced]
    outputs = [c.path for c in unexplained if layout.is_output(c.path)]
    owned = owners_of(store, commit, layout, outputs).paths
    if anchor is not None and any(path not in owned for path in outputs):
        owned |= owners_of(store, anchor, layout, outputs).paths  # it may have been disowned by a hand edit
    items: dict[str, VerifyItem] = {}
    for change in unexplained:
        if layout.is_state_record(change.path):
            how = "added" if change.added else "deleted" if change.deleted else "changed"
            finding, what = Finding.STATE_EDITED, f"binding record {how} by hand"
        elif layout.is_output(change.path) and change.path in owned:
            finding = Finding.DELETED if change.deleted else Finding.EDITED
            what = f"tool-written file {'deleted' if change.deleted else 'changed'} by hand"
        else:
            continue  # a hand-written file: reported as information later
        by = _editor(walk, change) or _merge_editor(store, commit, anchor, change)
        detail = f"{what} in {by[:12]}" if by else what
        if finding is Finding.EDITED:
            detail += _edited_fields(store, change)
        items[change.path] = VerifyItem(change.path, finding, detail, by)
    return items


def _edited_fields(store: GitStore, change: PathChange) -> str:
    """``: spec.replicas: 4 → 6; …`` for a hand-edited manifest (nothing for a Secret or unreadable YAML)."""
    if change.old_oid is None or change.new_oid is None:
        return ""
    blobs = store.read_blobs([change.old_oid, change.new_oid])
    try:
        old, new = (load_yaml_documents(blobs[oid]) for oid in (change.old_oid, change.new_oid))
    except InputError:
        return ""
    if len(old) != 1 or len(new) != 1 or is_secret(old[0].body) or is_secret(new[0].body):
        return ""
    fields = field_changes(old[0].body, new[0].body, limit=HAND_EDIT_FIELDS)
    return f": {'; '.join(fields)}" if fields else ""


def _work_tree(store: GitStore, rev: str, config: ToolConfig, layout: RepoLayout) -> dict[str, VerifyItem]:
    """The checkout of ``rev`` (when it is checked out): managed paths that disagree with the commit, and
    input files with uncommitted edits."""
    if store.work_tree is None or store.try_resolve(rev) != store.try_resolve("HEAD"):
        return {}
    items: dict[str, VerifyItem] = {}
    why = (
        "an earlier run was killed before the work tree followed the branch: run gitops-karmada reconcile to "
        "finish it"
        if store.pending_sync()
        else "differs from the commit in the work tree or index: commit or discard it (the next git commit "
        "would otherwise record it)"
    )
    for path in store.uncommitted(include=layout.folders):
        items[path] = VerifyItem(path, Finding.WORK_TREE, why)
    for path in uncommitted_inputs(store, config):
        items[path] = VerifyItem(
            path, Finding.UNCOMMITTED, "edited in the work tree, not committed: not verified"
        )
    return items


def _shards(store: GitStore, rev: str, commit: str, layout: RepoLayout) -> dict[str, VerifyItem]:
    """The output shards whose branch is not where ``commit`` recorded it, when ``commit`` is the checked-out
    one (an older commit's shards have moved on by design)."""
    if store.try_resolve("HEAD") != commit and store.try_resolve(rev) != store.try_resolve("HEAD"):
        return {}
    record = recorded_shards(store, commit, layout)
    items: dict[str, VerifyItem] = {}
    shards = record.shards if record is not None else ()
    tips = shard_tips(store, (r.shard for r in shards))
    for recorded in shards:
        tip = tips[recorded.shard.name]
        if tip is not None and tip != recorded.commit:
            items[recorded.shard.ref] = VerifyItem(
                recorded.shard.ref,
                Finding.SHARD,
                f"the branch is at {tip[:12]} but {layout.shards_path} records "
                f"{recorded.commit[:12]}: a run was interrupted between shards, or someone committed on the "
                "branch; the next reconcile writes it again",
            )
    return items


def _added(path: str, oid: str) -> PathChange:
    return PathChange(path=path, old_oid=None, new_oid=oid)


def _editor(walk: tuple[LogEntry, ...], change: PathChange) -> str | None:
    """The newest commit of the walk that gave the path its current content (None: e.g. a merge did)."""
    for entry in walk:
        own = entry.change_of(change.path)
        if own is not None and own.new_oid == change.new_oid and not is_tool_commit(entry):
            return entry.commit
    return None


def _merge_editor(store: GitStore, commit: str, anchor: str | None, change: PathChange) -> str | None:
    """The first-parent commit (a merge, typically) that gave the path its content, when no plain commit
    did: a merge's own edits show only against its first parent."""
    walk = store.log(commit, since=anchor, paths=[change.path], with_changes=True, max_count=1)
    own = walk[0].change_of(change.path) if walk else None
    return walk[0].commit if own is not None and own.new_oid == change.new_oid else None


def _stale(
    store: GitStore,
    state: RepositoryState,
    result: RenderResult,
    edited: Mapping[str, VerifyItem],
    anchor: str | None,
    *,
    allow_stale: bool,
) -> dict[str, VerifyItem]:
    since = f"not reconciled since {anchor[:12]}" if anchor else "never reconciled"
    finding = Finding.PENDING if allow_stale else Finding.STALE
    items = {}
    # a template's content is one object for every cluster it is the same on: hashed once, not 200 times
    for path, content in result.changes(state.current_blobs, store.remembered_blob_id()).items():
        if path in edited:
            continue
        if content is None:
            what = "reconcile would delete it"
        elif path in state.current_blobs:
            what = "reconcile would rewrite it"
        else:
            what = "missing: reconcile would write it"
        items[path] = VerifyItem(path, finding, f"{what} ({since})")
    return items


def _hand_written(
    store: GitStore,
    state: RepositoryState,
    result: RenderResult,
    layout: RepoLayout,
    found: Mapping[str, VerifyItem],
    anchor: str | None,
) -> dict[str, VerifyItem]:
    """Files of the cluster folders no record claims (information). After a hand edit of the records,
    files the last reconcile wrote are told apart: they lost their claim, they were not written by hand."""
    # the cluster folders' own listing (a dict walked in C), not the state-and-outputs view over it; sorted
    # after filtering: sorting the mapping itself would walk it twice (len, then iter)
    paths = sorted(
        p
        for p in state.request.snapshot.output_blobs
        if p not in result.owned and p not in result.managed and p not in found and layout.is_output(p)
    )
    disowned: frozenset[str] = frozenset()
    if paths and anchor and any(item.finding is Finding.STATE_EDITED for item in found.values()):
        disowned = owners_of(store, anchor, layout, paths).paths
    return {
        path: VerifyItem(
            path,
            Finding.HAND_WRITTEN,
            f"tool-written as of reconcile {anchor[:12]}, but no record claims it now (see state-edited)"
            if anchor and path in disowned
            else "not written by gitops-karmada; left alone",
        )
        for path in paths
    }
