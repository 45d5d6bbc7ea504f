"""Lists the entries of a commit's tree with ``git ls-tree -r -z`` and classifies them by mode."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.adapters.git_process import GitRunner

REGULAR_FILE_MODE = "100644"
EXECUTABLE_FILE_MODE = "100755"
SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"


class EntryKind(enum.StrEnum):
    """What a tree entry is, from its git mode."""

    FILE = "file"
    EXECUTABLE = "executable"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"


_KIND_BY_MODE = {
    REGULAR_FILE_MODE: EntryKind.FILE,
    EXECUTABLE_FILE_MODE: EntryKind.EXECUTABLE,
    SYMLINK_MODE: EntryKind.SYMLINK,
    SUBMODULE_MODE: EntryKind.SUBMODULE,
    # Old git wrote group-writable files as 100664; fsck accepts it and checkout treats it as 100644.
    "100664": EntryKind.FILE,
}


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One non-tree entry of a recursive tree listing; ``oid`` is a blob (or a submodule's commit)."""

    path: str
    mode: str
    oid: str

    @property
    def kind(self) -> EntryKind:
        return _KIND_BY_MODE[self.mode]

    @property
    def is_regular_file(self) -> bool:
        return self.kind in (EntryKind.FILE, EntryKind.EXECUTABLE)


def decode_path(raw: bytes) -> str:
    """A git path as ``str``; bytes that are not UTF-8 survive as surrogates and encode back unchanged."""
    return raw.decode("utf-8", "surrogateescape")


def encode_path(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def parse_ls_tree(output: bytes) -> tuple[TreeEntry, ...]:
    """Parse ``ls-tree -r -z`` records: ``<mode> SP <type> SP <oid> TAB <path> NUL``."""
    entries = []
    for record in output.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, _kind, oid = meta.decode("ascii").split(" ")
        entries.append(TreeEntry(path=decode_path(raw_path), mode=mode, oid=oid))
    return tuple(entries)


def parse_ls_tree_ids(output: bytes) -> dict[str, str]:
    """path → object id of ``ls-tree -r -z`` records, submodules left out: ``parse_ls_tree`` without an
    object per record (the id is the field before the first TAB; modes, types and ids hold none), for
    listings of millions of files. The records are matched a chunk at a time, not split all at once (at 2
    million files the list of records alone was 280 MB), and each distinct id is one string: the files of
    200 clusters share a few thousand contents."""
    ids: dict[str, str] = {}
    seen: dict[str, str] = {}
    start, end = 0, len(output)
    while start < end:
        stop = output.rfind(b"\0", start, start + _CHUNK) + 1 or end
        for oid, path in _ID_AND_PATH.findall(decode_path(output[start:stop])):
            ids[path] = seen.setdefault(oid, oid)
        start = stop
    return ids


_ID_AND_PATH = re.compile(rf"(?:^|\0)(?!{SUBMODULE_MODE} )[^ \0]* [^ \0]* ([^\t\0]*)\t([^\0]*)")
_CHUNK = 1 << 20
"""Bytes of a listing decoded and matched at once."""


_NOT_SUBMODULE_PATH = re.compile(rf"(?:^|\0)(?!{SUBMODULE_MODE} )[^\t\0]*\t([^\0]*)")


def parse_ls_tree_paths(output: bytes) -> list[str]:
    """The paths of ``ls-tree -r -z`` records, submodules left out, in git's order: one regular expression
    over the decoded listing (a third of ``parse_ls_tree_ids``' time for a quarter of a million files)."""
    return _NOT_SUBMODULE_PATH.findall(decode_path(output))


def count_runs(output: bytes, keys: Sequence[str]) -> list[tuple[int, int]]:
    """(records, submodule records) of each run of ``ls-tree -r -z`` records whose paths start with a key
    (``folder/`` for a tree, ``path\0`` for one file), for keys in the listing's order whose runs follow one
    another (the listing holds nothing else): found with byte searches, without parsing a record per file."""
    raw = b"\0" + output
    starts: list[int] = []
    at = 0  # each search starts where the last run began
    for key in keys:
        start = _record_start(raw, encode_path(key), at)
        if start >= 0:
            at = start
        starts.append(start)
    found = sorted(s for s in starts if s >= 0)
    ends = dict(zip(found, [*found[1:], len(raw) - 1], strict=False))  # no run found: one end, unused
    submodule = b"\0" + SUBMODULE_MODE.encode() + b" "
    return [
        (raw.count(b"\0", s, ends[s]), raw.count(submodule, s, ends[s])) if s >= 0 else (0, 0) for s in starts
    ]


def _record_start(raw: bytes, path: bytes, at: int) -> int:
    """The offset of the NUL before the first record (from ``at``) whose path starts with ``path``; -1 if
    none. A match must follow the record's TAB, with no TAB between it and the record's start."""
    found = raw.find(b"\t" + path, at)
    while found >= 0:
        start = raw.rfind(b"\0", 0, found)
        if b"\t" not in raw[start:found]:
            return start
        found = raw.find(b"\t" + path, found + 1)
    return -1


def normalise_prefix(prefix: str) -> str:
    """``clusters/`` and ``clusters`` mean the same folder; ``""`` and ``.`` mean the whole tree."""
    stripped = prefix.strip("/")
    return "" if stripped == "." else stripped


def is_under(path: str, prefix: str) -> bool:
    """Whether ``path`` is ``prefix`` itself or inside the folder ``prefix`` (whole path components)."""
    return not prefix or path == prefix or path.startswith(prefix + "/")


def ls_tree_raw(
    runner: GitRunner, commit: str, pathspecs: Sequence[str], *, recursive: bool = True, names: bool = False
) -> bytes:
    """``ls-tree -z`` of ``commit`` limited to ``pathspecs`` (none: the whole tree), as git prints it
    (``names``: the paths alone, NUL-separated)."""
    args = ["--literal-pathspecs", "ls-tree", *(["-r"] if recursive else []), "-z", "--full-tree"]
    args += [*(["--name-only"] if names else []), commit]
    if pathspecs:
        args += ["--", *pathspecs]
    return runner.run(args, operation="ls-tree", what=f"listing the tree of {commit}").stdout


def list_tree(runner: GitRunner, commit: str, prefixes: Sequence[str] | None = None) -> tuple[TreeEntry, ...]:
    """Every non-tree entry of ``commit``'s tree, in git's order, optionally only under ``prefixes``."""
    wanted = sorted({normalise_prefix(prefix) for prefix in prefixes}) if prefixes is not None else [""]
    # The pathspec lets git skip unrelated subtrees; the filter below is what defines the result.
    entries = parse_ls_tree(ls_tree_raw(runner, commit, [] if "" in wanted else wanted))
    if "" in wanted:
        return entries
    return tuple(entry for entry in entries if any(is_under(entry.path, prefix) for prefix in wanted))
