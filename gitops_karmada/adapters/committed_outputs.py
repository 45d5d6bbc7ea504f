"""The files of a commit's cluster folders (path → blob id), read only as far as a run looks at them.

A full run and ``verify`` walk every file and get one listing. An incremental run asks about the few paths it
rewrites, and whether any file of a reused template was edited by hand since the tool's last commit: that is
one ``diff-tree`` against that commit, not a listing of a quarter of a million files (whose parsing dominated
a one-template run at fleet scale).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.count_cache import load_counts, save_counts
from gitops_karmada.adapters.git_path_lookup import PathLookup
from gitops_karmada.adapters.git_tree import SUBMODULE_MODE, count_runs, encode_path, parse_ls_tree_ids
from gitops_karmada.adapters.subtree_memo import TREE_MODE, ShallowMemo, SubtreeMemo, files_below

if TYPE_CHECKING:
    from gitops_karmada.adapters.git_store import GitStore

LISTING_AFTER = 4096
"""Lookups after which one listing of the folders is cheaper than asking path by path."""


class CommittedOutputs(Mapping[str, str]):
    """Files (not submodules) under ``folder`` in ``commit``: path → blob id."""

    def __init__(
        self, store: GitStore, commit: str, folder: str, counted: SubtreeMemo[int] | None = None
    ) -> None:
        """``counted``: file counts of subtrees made by earlier runs of the process (``counts``), for the
        folders the count cache does not know."""
        self._store = store
        self._counted = counted
        self._commit = commit
        self._prefix = folder.rstrip("/") + "/"
        self._listing: dict[str, str] | None = None
        self._counts: dict[str, int] | None = None
        self._known: dict[str, str | None] = {}
        self._lookup: PathLookup | None = None

    # -- Mapping ------------------------------------------------------------------------------------------

    def __getitem__(self, path: str) -> str:
        oid = self._oid(path)
        if oid is None:
            raise KeyError(path)
        return oid

    def __contains__(self, path: object) -> bool:
        if self._listing is not None:  # a full or first run asks for millions of paths: no call more
            return isinstance(path, str) and path in self._listing
        return isinstance(path, str) and self._oid(path) is not None

    def get(self, path: str, default: Any = None) -> Any:
        """``Mapping.get`` without a ``KeyError`` per missing path."""
        if self._listing is not None:
            return self._listing.get(path, default)
        oid = self._oid(path)
        return default if oid is None else oid

    def __iter__(self) -> Iterator[str]:
        return iter(self.listing())

    def __len__(self) -> int:
        return len(self.listing())

    # -- reading ------------------------------------------------------------------------------------------

    def listing(self) -> dict[str, str]:
        """Every file under the folder (one ``ls-tree``), kept for the rest of the run."""
        if self._listing is None:
            self._listing = parse_ls_tree_ids(self._store.list_tree_raw(self._commit, self._prefix))
            self.close()
        return self._listing

    def _oid(self, path: str) -> str | None:
        if self._listing is not None:
            return self._listing.get(path)
        if not path.startswith(self._prefix):
            return None
        if path in self._known:
            return self._known[path]
        if len(self._known) >= LISTING_AFTER or not PathLookup.can_ask(path):
            return self.listing().get(path)
        if self._lookup is None:
            self._lookup = PathLookup(self._store.runner, self._commit)
            if self._lookup.entry(self._prefix.rstrip("/")) is None:
                # no folder at all (a first run): nothing to list, nothing to ask path by path
                self._listing = {}
                self.close()
                return None
        oid = self._known[path] = self._lookup.oid(path)
        return oid

    def shallow(self, depth: int, memo: ShallowMemo | None = None) -> frozenset[str]:
        """Files (and symbolic links) fewer than ``depth`` slashes deep, listed level by level: a handful of
        non-recursive ``ls-tree`` calls, whatever the number of manifests below them. ``memo``: what earlier
        runs of the process found below each folder, by (path, tree id); only the folders a commit changed
        are listed again, and the memo is left holding what this call used."""
        if self._listing is not None:
            return frozenset(p for p in self._listing if p.count("/") < depth)
        kept = memo.below if memo is not None else {}
        used: dict[tuple[str, str], frozenset[str]] = {}
        top = self._prefix.rstrip("/")
        if top.count("/") + 1 >= depth:
            return frozenset()
        found = self._shallow_below([(top, "")], depth, kept, used)[top]
        if memo is not None:
            memo.below = used
        return found

    def _shallow_below(
        self,
        folders: list[tuple[str, str]],
        depth: int,
        kept: dict[tuple[str, str], frozenset[str]],
        used: dict[tuple[str, str], frozenset[str]],
    ) -> dict[str, frozenset[str]]:
        """The shallow files below each of ``folders`` ((path, tree id), all of one depth; an empty id is
        never kept), the folders not in ``kept`` listed together, one level at a time."""
        found: dict[str, frozenset[str]] = {}
        unknown: list[str] = []
        for path, oid in folders:
            known = kept.get((path, oid)) if oid else None
            if known is None:
                unknown.append(path)
            else:
                found[path] = used[(path, oid)] = known
        if not unknown:
            return found
        files: dict[str, set[str]] = {path: set() for path in unknown}
        inside: dict[str, list[str]] = {path: [] for path in unknown}
        deeper: list[tuple[str, str]] = []
        for entry in self._store.list_children(self._commit, unknown):
            parent = entry.path.rpartition("/")[0]
            if entry.mode == TREE_MODE:
                if entry.path.count("/") + 1 < depth:
                    deeper.append((entry.path, entry.oid))
                    inside[parent].append(entry.path)
            elif entry.mode != SUBMODULE_MODE:
                files[parent].add(entry.path)
        below = self._shallow_below(deeper, depth, kept, used) if deeper else {}
        oids = dict(folders)
        for path in unknown:
            made = frozenset(files[path].union(*(below[sub] for sub in inside[path])))
            found[path] = made
            if oids[path]:
                used[(path, oids[path])] = made
        return found

    def counts(self) -> dict[str, int]:
        """Files per entry of the folder (a cluster's folder, or a stray file). The counts the last writing
        run kept are taken by tree id (``count_cache``); the folders it did not write (edited since, or
        written by another process) are counted through the process's memo of subtrees (the daemon), else
        from one ``ls-tree -r`` of just them, with byte searches (records are ``<mode> <type> <oid> TAB
        <path> NUL``), not a parse per file."""
        if self._counts is None:
            self._counts = self._count()
        return dict(self._counts)

    @property
    def counted(self) -> dict[str, int] | None:
        """What ``counts`` gave, if it was asked."""
        return dict(self._counts) if self._counts is not None else None

    def _count(self) -> dict[str, int]:
        if self._listing is not None:
            return dict(Counter(p[len(self._prefix) :].partition("/")[0] for p in self._listing))
        folder = self._prefix.rstrip("/")
        children = self._store.list_children(self._commit, [folder])
        kept = load_counts(self._store.git_dir)
        below = {c.path: kept[(c.path, c.oid)] for c in children if (c.path, c.oid) in kept}
        unknown = [c for c in children if c.mode == TREE_MODE and c.path not in below]
        if unknown and self._counted is not None:
            below.update(files_below(self._store, self._commit, unknown, self._counted))
        elif unknown:
            paths = sorted((c.path for c in unknown), key=lambda path: encode_path(path + "/"))
            runs = count_runs(
                self._store.list_inside_raw(self._commit, paths), [f"{path}/" for path in paths]
            )
            below.update(
                (path, records - submodules) for path, (records, submodules) in zip(paths, runs, strict=True)
            )
        found = {
            c.path[len(self._prefix) :]: below[c.path] if c.mode == TREE_MODE else 1
            for c in children
            if c.mode != SUBMODULE_MODE
        }
        return {name: count for name, count in found.items() if count}

    def remember_counts(self, commit: str, after: Mapping[str, int]) -> None:
        """Keep ``after`` (entry of the folder → files, as ``counts`` gives them) as the counts of the cluster
        folders of ``commit`` (the output as a commit has it), by tree id, for the next run's ``counts``: the
        writing run knows them from its plan without listing a file."""
        folder = self._prefix.rstrip("/")
        save_counts(
            self._store.git_dir,
            {
                (c.path, c.oid): after.get(c.path[len(self._prefix) :], 0)
                for c in self._store.list_children(commit, [folder])
                if c.mode == TREE_MODE
            },
        )

    def close(self) -> None:
        if self._lookup is not None:
            self._lookup.close()
            self._lookup = None
