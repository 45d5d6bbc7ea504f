"""A cache of decoded input files and binding records by blob id, in the repository's git directory (never
committed).

Decoding 7,500 YAML files costs a couple of seconds at fleet scale, and a binding record of 200 clusters is
8 kB of YAML; a file's decoded documents depend only on its bytes, so they are kept by blob id
(content-addressed: an entry can never be stale) in a SQLite file under ``<git dir>/gitops-karmada/``. A
run lists the tree, looks every input blob up in one query, and reads and decodes only the misses; the
records it reads are looked up the same way. Once the file holds more than twice the blobs the commit read
has (and ``PRUNE_SLACK`` more), the others are dropped: old versions of edited files do not pile up. The
cache is an optimisation only: when it cannot be opened or written (a read-only repository, a concurrent
writer holding it), the run decodes everything and goes on.
"""

from __future__ import annotations

import pickle
import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING

from gitops_karmada import __version__
from gitops_karmada.core.inputs.loading import Decoded, decode

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence
    from pathlib import Path

CACHE_FOLDER = "gitops-karmada"
CACHE_FILE = f"decoded-{__version__}.sqlite"
"""One file per tool version: the decoder may change with the tool, and old files are simply ignored."""
_BATCH = 500
_TIMEOUT_SECONDS = 2.0
PRUNE_SLACK = 10_000
"""Entries beyond twice the commit's files the cache may hold before the others are dropped."""


def cache_path(git_dir: Path) -> Path:
    return git_dir / CACHE_FOLDER / CACHE_FILE


def decode_inputs(
    git_dir: Path | None,
    blobs: Mapping[str, str],
    read: Callable[[Sequence[str]], Mapping[str, bytes]],
    memory: dict[str, Decoded] | None = None,
) -> dict[str, Decoded]:
    """path → decoded documents of every input (``blobs``: path → blob id; ``read``: blob ids → bytes).

    ``memory`` (blob id → documents), kept by a long-lived process, is asked before the cache file and is
    left holding exactly this run's blobs."""
    wanted = set(blobs.values())
    held = {oid: memory[oid] for oid in wanted if oid in memory} if memory is not None else {}
    found = {
        **held,
        **(_lookup(git_dir, wanted - held.keys()) if git_dir is not None and len(held) < len(wanted) else {}),
    }
    missing = sorted({oid for oid in blobs.values() if oid not in found})
    decoded: dict[str, Decoded] = {oid: decode(raw) for oid, raw in read(missing).items()} if missing else {}
    if git_dir is not None:
        _store(
            git_dir,
            {oid: documents for oid, documents in decoded.items() if not isinstance(documents, Exception)},
        )
    if memory is not None:
        memory.clear()
        memory.update(found)
        memory.update(decoded)
    return {path: found[oid] if oid in found else decoded[oid] for path, oid in blobs.items()}


def _connect(git_dir: Path, *, create: bool) -> sqlite3.Connection | None:
    path = cache_path(git_dir)
    if not create and not path.exists():
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=_TIMEOUT_SECONDS, isolation_level=None)
        connection.execute(
            "CREATE TABLE IF NOT EXISTS decoded (blob TEXT PRIMARY KEY, documents BLOB NOT NULL)"
        )
    except (OSError, sqlite3.Error):
        return None
    return connection


def _lookup(git_dir: Path, oids: set[str]) -> dict[str, Decoded]:
    connection = _connect(git_dir, create=False)
    if connection is None:
        return {}
    found: dict[str, Decoded] = {}
    wanted = sorted(oids)
    with closing(connection):
        try:
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                marks = ",".join("?" * len(chunk))
                for oid, data in connection.execute(
                    f"SELECT blob, documents FROM decoded WHERE blob IN ({marks})", chunk
                ):
                    found[oid] = pickle.loads(data)
        except (sqlite3.Error, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return {}
    return found


def _store(git_dir: Path, entries: Mapping[str, Decoded]) -> None:
    if not entries:
        return
    connection = _connect(git_dir, create=True)
    if connection is None:
        return
    with closing(connection):
        try:
            connection.execute("BEGIN")
            connection.executemany(
                "INSERT OR REPLACE INTO decoded (blob, documents) VALUES (?, ?)",
                [
                    (oid, pickle.dumps(documents, protocol=pickle.HIGHEST_PROTOCOL))
                    for oid, documents in entries.items()
                ],
            )
            connection.execute("COMMIT")
        except sqlite3.Error:
            return


def prune_decoded(git_dir: Path | None, live: Collection[str]) -> int:
    """Drop the entries whose blob is not in ``live`` (the blobs of the commit a run reads) once the cache
    holds more than ``2 × len(live) + PRUNE_SLACK``; the number dropped. A blob of another branch dropped is
    decoded again when asked."""
    if git_dir is None:
        return 0
    connection = _connect(git_dir, create=False)
    if connection is None:
        return 0
    with closing(connection):
        try:
            (held,) = connection.execute("SELECT count(*) FROM decoded").fetchone()
            if held <= 2 * len(live) + PRUNE_SLACK:
                return 0
            connection.execute("BEGIN")
            connection.execute("CREATE TEMP TABLE live (blob TEXT PRIMARY KEY)")
            connection.executemany("INSERT OR IGNORE INTO live (blob) VALUES (?)", ((oid,) for oid in live))
            deleted = connection.execute("DELETE FROM decoded WHERE blob NOT IN (SELECT blob FROM live)")
            dropped = deleted.rowcount
            connection.execute("COMMIT")
        except sqlite3.Error:
            return 0
    return int(dropped)
