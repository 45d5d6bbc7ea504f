"""A run's changes against what Git hosts handle well: counts the folders it touches as its commit would
have them and sizes the files it writes (``core.host_limits`` judges), one warning per folder or file."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.git_tree import decode_path
from gitops_karmada.core.file_changes import StoredBlob
from gitops_karmada.core.host_limits import folder_entries, host_limit_findings, touched_folders
from gitops_karmada.core.layout import RepoLayout

if TYPE_CHECKING:
    from collections.abc import Collection, Container, Mapping

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.file_changes import FileChange
    from gitops_karmada.core.host_limits import HostLimitFinding
    from gitops_karmada.model.config import ToolConfig

LISTED_FOLDERS = 1000
"""Up to this many touched folders are listed one level each (one ``ls-tree`` naming them); more (a first
run, a layout switch), and the managed folders are listed whole, once."""


def check_host_limits(
    store: GitStore,
    parent: str | None,
    changes: Mapping[str, FileChange],
    config: ToolConfig,
    existing: Container[str] | None = None,
) -> tuple[HostLimitFinding, ...]:
    """The folders and files ``changes`` on top of ``parent`` leave past ``output.hostLimits``.

    ``existing``: the paths at ``parent``, when the caller knows them; then only the folders whose entries
    change (a file added or deleted) are listed and counted. A rewritten file leaves its folder's count as it
    was: the run that made the folder too large said so, and a one-template change at fleet XL rewrites a
    file in 200 folders of 10,000 entries, which are not listed again for it."""
    limits = config.output.host_limits
    if not changes or not (limits.max_folder_entries or limits.max_file_bytes):
        return ()
    layout = RepoLayout.of(config)
    counts: dict[str, int] = {}
    if limits.max_folder_entries:
        moved = (
            changes
            if existing is None
            else [p for p, c in changes.items() if (p not in existing if c is not None else p in existing)]
        )
        folders = touched_folders(moved, layout.folders)
        before = entries_before(store, parent, folders, layout.folders) if parent is not None else {}
        counts = folder_entries(before, ((p, c is not None) for p, c in changes.items()), folders)
    sizes = _sizes_past(store, changes, limits.max_file_bytes) if limits.max_file_bytes else {}
    return host_limit_findings(counts, sizes, limits, layout)


def _sizes_past(store: GitStore, changes: Mapping[str, FileChange], limit: int) -> dict[str, int]:
    """The files ``changes`` writes past ``limit`` bytes, path → size. Each content is sized once, by
    object: a first run at fleet XL writes 2.6 million paths of a few thousand contents (one ``StoredBlob``
    per blob id), and sizing each path took seconds; only when one is too large are the paths looked at."""
    distinct = {id(change): change for change in changes.values()}
    known = store.blob_sizes(sorted({c.oid for c in distinct.values() if isinstance(c, StoredBlob)}))
    past: dict[int, int] = {}
    for key, change in distinct.items():
        size = len(change) if isinstance(change, bytes) else known.get(change.oid, 0) if change else 0
        if size > limit:
            past[key] = size
    if not past:
        return {}
    return {path: past[id(change)] for path, change in changes.items() if id(change) in past}


def entries_before(
    store: GitStore,
    parent: str,
    folders: Collection[str],
    roots: Collection[str],
    *,
    listed: int = LISTED_FOLDERS,
) -> dict[str, set[str]]:
    """The names directly inside each of ``folders`` (all under ``roots``) at ``parent``: up to ``listed``
    folders listed one level each, more by one listing of the ``roots``."""
    if len(folders) <= listed:
        # a folder named with one inside it is descended into, not listed: its entries say it is there
        paths = store.list_children_paths(parent, sorted(folders))
    else:
        raw = store.list_inside_raw(parent, sorted(roots))
        paths = [decode_path(record.partition(b"\t")[2]) for record in raw.split(b"\0") if record]
    # each path's own folder first (a million paths at fleet XL), then each distinct folder's way up: a
    # folder the run does not touch may be inside one it does
    inside: defaultdict[str, set[str]] = defaultdict(set)
    for path in paths:
        folder, _, name = path.rpartition("/")
        inside[folder].add(name)
    before: defaultdict[str, set[str]] = defaultdict(set)
    for folder, names in inside.items():
        if folder and folder in folders:
            before[folder].update(names)
        while "/" in folder:
            folder, _, name = folder.rpartition("/")
            if folder in folders:
                before[folder].add(name)
    return before


def log_host_limits(findings: tuple[HostLimitFinding, ...], command: str = "reconciler") -> None:
    """One warning per folder or file past the host limits."""
    for finding in findings:
        logger.bind(logger=command, path=finding.path, limit=finding.kind.value, size=finding.size).warning(
            "{}", finding.message
        )
