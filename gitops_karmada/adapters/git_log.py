"""Parses ``git log``/``git diff-tree`` output: commits with their trailers and the blobs each one changed.

Only parsing lives here (the store runs git): one ``git log -z --raw`` call yields every commit of a walk with
its trailers and, per changed path, the old and new blob ids, so history and verification never run git
once per commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_tree import decode_path

if TYPE_CHECKING:
    from collections.abc import Mapping

COMMIT_MARKER = "%x1e"
"""Starts every commit header in the log output (a byte no commit id, mode or raw line begins with)."""
LOG_FORMAT = f"{COMMIT_MARKER}%H%x00%P%x00%ct%x00%s%x00%(trailers:only,unfold)%x00"
_ABSENT_MODE = "000000"


@dataclass(frozen=True, slots=True)
class PathChange:
    """One path a commit changed against its (first) parent; ids and modes are None where it is absent."""

    path: str
    old_oid: str | None
    new_oid: str | None
    old_mode: str | None = None
    new_mode: str | None = None

    @property
    def deleted(self) -> bool:
        return self.new_oid is None

    @property
    def added(self) -> bool:
        return self.old_oid is None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One commit of a history walk."""

    commit: str
    parents: tuple[str, ...]
    committed_at: datetime
    subject: str
    trailers: Mapping[str, str] = field(default_factory=dict)
    """``Key: value`` trailers of the message; a key given twice keeps its last value."""
    changes: tuple[PathChange, ...] = ()
    """The changed paths (when the walk asked for them), against the first parent."""

    def change_of(self, path: str) -> PathChange | None:
        return next((change for change in self.changes if change.path == path), None)


def parse_trailers(text: str) -> dict[str, str]:
    trailers: dict[str, str] = {}
    for line in text.splitlines():
        key, separator, value = line.partition(":")
        if separator and key.strip():
            trailers[key.strip()] = value.strip()
    return trailers


def _is_null_oid(oid: str) -> bool:
    return not oid.strip("0")


def parse_raw_change(meta: bytes, raw_path: bytes) -> PathChange:
    """One ``--raw`` record: ``:<old mode> <new mode> <old oid> <new oid> <status>`` and its path."""
    old_mode, new_mode, old_oid, new_oid, _status = meta.decode("ascii").lstrip(":").split(" ")[:5]
    return PathChange(
        path=decode_path(raw_path),
        old_oid=None if _is_null_oid(old_oid) else old_oid,
        new_oid=None if _is_null_oid(new_oid) else new_oid,
        old_mode=None if old_mode == _ABSENT_MODE else old_mode,
        new_mode=None if new_mode == _ABSENT_MODE else new_mode,
    )


def parse_raw_changes(output: bytes) -> tuple[PathChange, ...]:
    """``git diff-tree -r -z --raw`` output (no commit headers)."""
    tokens = output.split(b"\0")
    changes = []
    index = 0
    while index < len(tokens):
        token = tokens[index].lstrip(b"\n")
        if token.startswith(b":") and index + 1 < len(tokens):
            changes.append(parse_raw_change(token, tokens[index + 1]))
            index += 2
        else:
            index += 1
    return tuple(changes)


def parse_log(output: bytes) -> tuple[LogEntry, ...]:
    """``git log -z --format=LOG_FORMAT [--raw]`` output, in the order git printed it.

    Tokens are read positionally (header fields after a marker, a path after each raw record), so a path or
    subject that happens to look like a header or a raw record cannot derail the parse.
    """
    tokens = output.split(b"\0")
    entries: list[LogEntry] = []
    header: tuple[str, tuple[str, ...], datetime, str, dict[str, str]] | None = None
    changes: list[PathChange] = []

    def flush() -> None:
        if header is not None:
            commit, parents, when, subject, trailers = header
            entries.append(LogEntry(commit, parents, when, subject, trailers, tuple(changes)))

    index = 0
    while index < len(tokens):
        token = tokens[index].lstrip(b"\n")
        if token.startswith(b"\x1e") and index + 4 < len(tokens):
            flush()
            changes = []
            header = (
                token[1:].decode("ascii"),
                tuple(tokens[index + 1].decode("ascii").split()),
                datetime.fromtimestamp(int(tokens[index + 2]), tz=UTC),
                tokens[index + 3].decode("utf-8", "replace"),
                parse_trailers(tokens[index + 4].decode("utf-8", "replace")),
            )
            index += 5
        elif token.startswith(b":") and index + 1 < len(tokens):
            changes.append(parse_raw_change(token, tokens[index + 1]))
            index += 2
        else:
            index += 1
    flush()
    return tuple(entries)
