"""What a long-lived process listed of a commit's subtrees, kept by tree id for the next commit.

Every run of the watch daemon lists the same folders: the 12,500 input and state files outside the
cluster folders, and the file counts of the cluster folders (a quarter of a million files at fleet M) for
the write guard. A subtree with the same id has the same content, so what was made of it is kept by
(path, tree id). A later run lists again only the trees its commit changed: one level at a time below a
tree that was large the last time it was listed (so one changed file deep in a large folder costs a few
short ``ls-tree`` calls), and whole below a small one or one never seen (the first run lists as a cold
process does). Each walk leaves the memo holding what it used, so memory follows the repository's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from gitops_karmada.adapters.git_tree import SUBMODULE_MODE, TreeEntry, count_runs, encode_path

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from gitops_karmada.adapters.git_store import GitStore

TREE_MODE = "040000"

SPLIT_ABOVE = 256
"""Entries below a tree above which a changed tree is listed one level at a time, not whole."""

_T = TypeVar("_T")


@dataclass
class SubtreeMemo(Generic[_T]):
    """What was made of each subtree listed, by (path, tree id), and how many entries it had."""

    made: dict[tuple[str, str], tuple[int, _T]] = field(default_factory=dict)
    inside: dict[tuple[str, str], tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """The subtrees a tree listed level by level was made of: kept while it is."""


@dataclass
class ShallowMemo:
    """What ``CommittedOutputs.shallow`` found below each folder, by (path, tree id): a long-lived process
    lists only the folders a commit changed."""

    below: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Walk(Generic[_T]):
    store: GitStore
    rev: str
    memo: SubtreeMemo[_T]
    of_entries: Callable[[Sequence[TreeEntry]], _T]
    """What to make of a tree listed whole (its non-tree entries, recursively)."""
    of_parts: Callable[[Sequence[TreeEntry | _T]], _T]
    """What to make of a tree from its children: its non-tree entries and what was made of its subtrees."""
    sizes: dict[str, int]
    """Entries below each path the last time it was listed."""
    of_listing: Callable[[bytes, Sequence[str]], list[tuple[int, _T]]] | None
    """What to make of trees listed whole straight from the listing's bytes (``ls-tree -r -z`` of exactly
    those trees, given in git's order), instead of an entry per file: (entries below, what was made)."""
    used: dict[tuple[str, str], tuple[int, _T]]
    used_inside: dict[tuple[str, str], tuple[tuple[str, str], ...]]

    def keep(self, key: tuple[str, str]) -> None:
        """``key`` stays in the memo, and so do the subtrees it was made of (a later change inside it
        then lists only what changed)."""
        self.used[key] = self.memo.made[key]
        inside = self.memo.inside.get(key)
        if inside is not None:
            self.used_inside[key] = inside
            for sub in inside:
                if sub in self.memo.made:
                    self.keep(sub)

    def trees(self, trees: Sequence[TreeEntry]) -> dict[str, tuple[int, _T]]:
        """(entries below, what was made) of each of ``trees`` (all of one depth: a listing's entries are
        told apart by their first components), by path."""
        found: dict[str, tuple[int, _T]] = {}
        whole: list[TreeEntry] = []
        split: list[TreeEntry] = []
        for tree in trees:
            kept = self.memo.made.get((tree.path, tree.oid))
            if kept is not None:
                found[tree.path] = kept
                self.keep((tree.path, tree.oid))
            elif self.sizes.get(tree.path, 0) > SPLIT_ABOVE:
                split.append(tree)
            else:
                whole.append(tree)
        if whole and self.of_listing is not None:
            paths = sorted((tree.path for tree in whole), key=lambda path: encode_path(path + "/"))
            raw = self.store.list_inside_raw(self.rev, paths)
            found.update(zip(paths, self.of_listing(raw, paths), strict=True))
        elif whole:
            below: dict[str, list[TreeEntry]] = {tree.path: [] for tree in whole}
            depth = whole[0].path.count("/") + 1
            for entry in self.store.list_inside(self.rev, [tree.path for tree in whole]):
                below["/".join(entry.path.split("/", depth)[:depth])].append(entry)
            for path, entries in below.items():
                found[path] = (len(entries), self.of_entries(entries))
        if split:
            children = self.store.list_children(self.rev, [tree.path for tree in split])
            inside = self.trees([c for c in children if c.mode == TREE_MODE])
            parts: dict[str, list[TreeEntry | _T]] = {tree.path: [] for tree in split}
            counts = dict.fromkeys(parts, 0)
            subtrees: dict[str, list[tuple[str, str]]] = {tree.path: [] for tree in split}
            for child in children:
                parent = child.path.rpartition("/")[0]
                if child.mode == TREE_MODE:
                    count, made = inside[child.path]
                    parts[parent].append(made)
                    counts[parent] += count
                    subtrees[parent].append((child.path, child.oid))
                else:
                    parts[parent].append(child)
                    counts[parent] += 1
            for tree in split:
                found[tree.path] = (counts[tree.path], self.of_parts(parts[tree.path]))
                self.used_inside[(tree.path, tree.oid)] = tuple(subtrees[tree.path])
        for tree in trees:
            self.used[(tree.path, tree.oid)] = found[tree.path]
        return found


def walk(
    store: GitStore,
    rev: str,
    trees: Sequence[TreeEntry],
    memo: SubtreeMemo[_T],
    of_entries: Callable[[Sequence[TreeEntry]], _T],
    of_parts: Callable[[Sequence[TreeEntry | _T]], _T],
    of_listing: Callable[[bytes, Sequence[str]], list[tuple[int, _T]]] | None = None,
) -> dict[str, _T]:
    """What is made of each of ``trees`` (tree entries of ``rev``), by path; ``memo`` is left holding exactly
    the subtrees this walk used."""
    sizes: dict[str, int] = {}
    for (path, _oid), (count, _made) in memo.made.items():
        sizes[path] = max(count, sizes.get(path, 0))
    used: dict[tuple[str, str], tuple[int, _T]] = {}
    used_inside: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    walker = _Walk(store, rev, memo, of_entries, of_parts, sizes, of_listing, used, used_inside)
    by_depth: dict[int, list[TreeEntry]] = {}
    for tree in trees:
        by_depth.setdefault(tree.path.count("/"), []).append(tree)
    found: dict[str, tuple[int, _T]] = {}
    for level in by_depth.values():
        found.update(walker.trees(level))
    memo.made, memo.inside = used, used_inside
    return {path: made for path, (_count, made) in found.items()}


def entries_below(
    store: GitStore, rev: str, roots: Sequence[TreeEntry], memo: SubtreeMemo[tuple[TreeEntry, ...]]
) -> tuple[TreeEntry, ...]:
    """Every non-tree entry of ``roots`` (entries of ``rev``; a tree stands for every entry below it), in
    the order of ``roots``, each tree's entries in git's order."""

    def of_parts(parts: Sequence[TreeEntry | tuple[TreeEntry, ...]]) -> tuple[TreeEntry, ...]:
        flat: list[TreeEntry] = []
        for part in parts:
            if isinstance(part, TreeEntry):
                flat.append(part)
            else:
                flat.extend(part)
        return tuple(flat)

    made = walk(store, rev, [r for r in roots if r.mode == TREE_MODE], memo, tuple, of_parts)
    return of_parts([made[r.path] if r.mode == TREE_MODE else r for r in roots])


def files_below(
    store: GitStore, rev: str, trees: Sequence[TreeEntry], memo: SubtreeMemo[int]
) -> dict[str, int]:
    """How many files and links (not submodules) are below each of ``trees``, by path."""

    def of_entries(entries: Sequence[TreeEntry]) -> int:
        return sum(1 for e in entries if e.mode != SUBMODULE_MODE)

    def of_parts(parts: Sequence[TreeEntry | int]) -> int:
        return sum(p if isinstance(p, int) else int(p.mode != SUBMODULE_MODE) for p in parts)

    def of_listing(raw: bytes, paths: Sequence[str]) -> list[tuple[int, int]]:
        # byte searches, not an entry per file: a first walk counts a quarter of a million files
        return [
            (records, records - submodules)
            for records, submodules in count_runs(raw, [f"{p}/" for p in paths])
        ]

    return walk(store, rev, trees, memo, of_entries, of_parts, of_listing)
