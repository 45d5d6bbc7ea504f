"""What a commit does to one path: write a content, name a blob already stored, or delete (pure values)."""

from __future__ import annotations

from typing import NamedTuple


class StoredBlob(NamedTuple):
    """A file a run wrote straight into the object database as it made it (``Ports.store``):
    named by its blob id, its content no longer held."""

    oid: str


FileChange = bytes | StoredBlob | None
"""What a commit does to one path: write this content, name this stored blob, or delete it (None)."""
