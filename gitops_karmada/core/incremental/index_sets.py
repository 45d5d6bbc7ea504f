"""The cluster lists and maps a state index file writes once (its ``sets``), named by digest from its entries.

At 200 clusters an entry's rendered clusters, placement and health were 2 kB of the same cluster names, the
same for most templates of a namespace: 47 MB of index at 20,000 templates, parsed by every run and held as
4 million strings. A list or map of more than ``SHARED_MIN`` clusters is written once per file, under the
first 16 hex digits of the SHA-256 of its JSON, and an entry names it (``renderedSet``, ``placementSet``,
``healthSet``); one of fewer clusters stays in the entry, so a small fleet's index reads as before. Reading
checks every set against its digest (a hand edit of one is noticed, and the index is then not trusted), and
converts and checks each once: the entries naming it share one value. Pure.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sized

SHARED_MIN = 8
"""A collection of more than this many clusters is written in the file's ``sets``, not in the entry."""
SHARED_FIELDS = ("health", "placement", "rendered")
"""The entry fields that name a set, each by the key ``<field>Set``."""
DIGEST_LENGTH = 16
SETS_OPEN = b',"sets":{\n'

_NAMED = re.compile(rb'Set":"([0-9a-f]+)"')
"""A set an entry's line names (``Set`` can end no other key of a line: cluster names are lowercase)."""

SetLine = tuple[bytes, bytes]
"""(digest, JSON) of one set, as its file writes it."""

T = TypeVar("T")


def set_key(name: str) -> str:
    return f"{name}Set"


def digest_of(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()[:DIGEST_LENGTH]


def entry_json(api: dict[str, Any]) -> tuple[bytes, tuple[SetLine, ...]]:
    """An entry's JSON (``IndexEntry.to_api``'s, keys sorted) with its large collections named by digest,
    and the sets it names."""
    named: list[SetLine] = []
    for name in SHARED_FIELDS:
        value = api.get(name)
        if value is not None and len(value) > SHARED_MIN:
            text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
            digest = digest_of(text)
            del api[name]
            api[set_key(name)] = digest
            named.append((digest.encode(), text))
    return orjson.dumps(api, option=orjson.OPT_SORT_KEYS), tuple(named)


class SetTable:
    """The sets of one index file (digest → parsed JSON), checked against their digests: ValueError when
    one does not match, TypeError when the table is not a JSON object."""

    __slots__ = ("_converted", "_raw")

    def __init__(self, raw: object) -> None:
        if not isinstance(raw, dict):
            raise TypeError("sets: expected an object")
        for digest, value in raw.items():
            if digest_of(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)) != digest:
                raise ValueError(f"sets: {digest} does not match its content")
        self._raw: Mapping[str, Any] = raw
        self._converted: dict[tuple[str, str], Any] = {}

    def value(self, name: str, digest: object, convert: Callable[[Any], T]) -> T:
        """The set ``digest`` as field ``name`` of an entry holds it, converted (and checked) once; KeyError
        when the file has no such set."""
        if not isinstance(digest, str):
            raise TypeError(f"{set_key(name)}: expected a digest")
        key = (name, digest)
        found = self._converted.get(key)
        if found is None:
            found = self._converted[key] = convert(self._raw[digest])
        return found


def field_value(
    raw: Mapping[str, Any], name: str, sets: SetTable | None, convert: Callable[[Any], T], default: Any
) -> T:
    """Field ``name`` of an entry's JSON: given in the entry, or named from the file's ``sets`` (not both);
    ``default`` when neither (None: the field is required)."""
    digest = raw.get(set_key(name))
    if digest is None:
        return convert(raw[name] if default is None else raw.get(name, default))
    if name in raw or sets is None:
        raise KeyError(set_key(name))
    return sets.value(name, digest, convert)


def names_every_set(raw: bytes, collections: Iterable[Sized]) -> bool:
    """Whether a file names from its sets every one of these ``collections`` (its entries' shared fields) of
    more than ``SHARED_MIN`` clusters, as this version writes it; an older version wrote them all in the
    entries, and such a file is written again rather than kept as it was read."""
    large = sum(1 for collection in collections if len(collection) > SHARED_MIN)
    return len(_NAMED.findall(raw)) == large


def named_digests(line: bytes) -> list[str]:
    """The digests of the sets an entry's line names."""
    return [digest.decode() for digest in _NAMED.findall(line)]


def set_lines(named: Mapping[bytes, bytes]) -> bytes:
    """The ``sets`` member of a file naming these sets (digest → JSON), one a line, sorted; empty if none."""
    if not named:
        return b""
    return SETS_OPEN + b",\n".join(b'  "%s": %s' % (d, named[d]) for d in sorted(named)) + b"\n}"


def set_bytes(text: bytes) -> int:
    """What one set adds to a file naming it (its line and separator): ``set_lines`` adds ``SETS_OPEN``
    once, then this per set."""
    return len(text) + DIGEST_LENGTH + 8
