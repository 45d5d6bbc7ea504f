"""The state index (``<state>/index/<namespace>.json``): what a run needs to know of every previous binding.

Reading 5,000 binding records costs seconds (their YAML is large); a run that changed one template must
not pay it. The index holds, per template, the fingerprint of its inputs, the blob id of its binding
record, a digest of the blob ids of its rendered files, its policy claim, whether its result is settled
(scheduled, nothing refused or failed) and the warnings it produced. An entry is trusted only while the
record and the rendered files still have the blob ids it names, so a hand edit of either is noticed
without reading them; anything else is read from the records themselves.

One file per namespace (``_cluster.json`` for cluster-scoped templates), one entry a line, sorted: a run
that changes one template changes one line of one namespace's file, and commits kilobytes, not the
megabytes of a fleet's whole index. A namespace whose file would pass the shard budget (half a Git host's
1 MB file limit) is split by a hash of each template's identity into 2, 4, 8, ... files
(``<namespace>.<i>-of-<n>.json``), as few as keep every file within it: the split is a function of the
entries alone, so a run from scratch and an incremental one write the same files. An index of one file
(``<state>/index.json``, as versions before shards wrote it) is still read, and replaced by the shards on
the next run. Pure.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from gitops_karmada.core.incremental.index_sets import (
    DIGEST_LENGTH,
    SETS_OPEN,
    SHARED_FIELDS,
    SetLine,
    SetTable,
    entry_json,
    field_value,
    named_digests,
    names_every_set,
    set_bytes,
    set_lines,
)
from gitops_karmada.model.diagnostics import Diagnostic, Severity, SourceRef

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.core.run_memo import RunMemo

INDEX_KIND = "StateIndex"
INDEX_API_VERSION = "gitops-karmada.io/v1alpha1"

Identity = tuple[str, str, str, str]

SHARD_BUDGET = 500_000
"""Bytes a shard file may hold before its namespace is split: half the 1 MB a Git host shows of a file, so a
bucket a little fuller than its share stays within that."""
MAX_BUCKETS = 256
"""A namespace is split into at most this many files (an entry is never split)."""


def identity_text(identity: Identity) -> str:
    """``group/kind/namespace/name``; no part can hold a ``/`` (groups, kinds and names are validated)."""
    return "/".join(identity)


def parse_identity(text: str) -> Identity | None:
    parts = text.split("/")
    return (parts[0], parts[1], parts[2], parts[3]) if len(parts) == 4 else None


def files_digest(paths: Iterable[str], blobs: Mapping[str, str]) -> str:
    """A digest of the blob ids the files have now (a missing file counts as missing)."""
    data = "\n".join(f"{path}\0{blobs.get(path, '-')}" for path in sorted(paths))
    return hashlib.sha256(data.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True, slots=True)
class IndexEntry:
    fingerprint: str
    record: str
    """Blob id of the binding record this entry describes."""
    files: str
    """``files_digest`` of the rendered files the binding owns."""
    rendered: tuple[str, ...]
    """The clusters whose folder holds the template's manifest (the binding's ownership)."""
    settled: bool
    claim: tuple[str, str, str, str] | None = None
    """(policy kind, namespace, name, permanent id) the binding records as its claim."""
    warnings: tuple[Diagnostic, ...] = ()
    placement: Mapping[str, int] = field(default_factory=dict)
    """Cluster → replicas of the binding's result (0 for objects without replicas), for placement reports."""
    workload: bool = False
    """Whether the template has replicas (a placement report shows numbers, not checkmarks)."""
    failover: bool = False
    """Whether the failover controllers have business with the record: eviction tasks, first-seen
    unhealthy times, or application failover in its spec (so a run reads only such records)."""
    health: Mapping[str, str] = field(default_factory=dict)
    """Cluster → what it reported (``core.views.status_summary.cluster_health``), for the status page."""
    ready: str = ""
    """kubectl's READY of the template's aggregated status (``3/5``); empty when not known."""
    required: bool = False
    """Whether other templates' bindings require it (``propagateDeps``): its output follows theirs."""
    waves: Mapping[str, str] = field(default_factory=dict)
    """Cluster → the rollout wave it is in (`` (waiting)``: its folder keeps the files of the last
    promoted render), for a template a RolloutPolicy governs."""
    tiers: Mapping[str, str] = field(default_factory=dict)
    """Cluster → the overflow tier it is in, by name (only for a placement with overflow affinities)."""

    def to_api(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "record": self.record,
            "files": self.files,
            "rendered": list(self.rendered),
            "settled": self.settled,
            **({"claim": list(self.claim)} if self.claim else {}),
            **({"warnings": [_diagnostic_to_api(d) for d in self.warnings]} if self.warnings else {}),
            "placement": dict(sorted(self.placement.items())),
            **({"workload": True} if self.workload else {}),
            **({"failover": True} if self.failover else {}),
            **({"health": dict(sorted(self.health.items()))} if self.health else {}),
            **({"ready": self.ready} if self.ready else {}),
            **({"required": True} if self.required else {}),
            **({"waves": dict(sorted(self.waves.items()))} if self.waves else {}),
            **({"tiers": dict(sorted(self.tiers.items()))} if self.tiers else {}),
        }

    @classmethod
    def from_api(cls, raw: Mapping[str, Any], sets: SetTable | None = None) -> IndexEntry:
        """The entry of a parsed JSON line (``sets``: its file's, for the collections it names by digest);
        TypeError, KeyError or ValueError when a field has the wrong shape (an index edited by hand is then
        not trusted). Types are checked a whole collection at a time: a run reads 20,000 entries of 200
        clusters each, most naming the same few sets."""
        claim = raw.get("claim")
        return cls(
            fingerprint=str(raw["fingerprint"]),
            record=str(raw["record"]),
            files=str(raw["files"]),
            rendered=field_value(raw, "rendered", sets, _names, None),
            settled=bool(raw["settled"]),
            claim=(str(claim[0]), str(claim[1]), str(claim[2]), str(claim[3])) if claim else None,
            warnings=tuple(_diagnostic_from_api(d) for d in raw.get("warnings", ())),
            placement=field_value(raw, "placement", sets, _counts, {}),
            workload=bool(raw.get("workload", False)),
            failover=bool(raw.get("failover", False)),
            health=field_value(raw, "health", sets, _texts, {}),
            ready=str(raw.get("ready", "")),
            required=bool(raw.get("required", False)),
            waves=_texts(raw.get("waves", {})),
            tiers=_texts(raw.get("tiers", {})),
        )


def _names(value: Any) -> tuple[str, ...]:
    names = tuple(value)
    _only(names, str)
    return names


def _counts(value: Any) -> dict[str, int]:
    counts = dict(value)
    _only(counts.values(), int)
    return counts


def _texts(value: Any) -> dict[str, str]:
    texts = dict(value)
    _only(texts.values(), str)
    return texts


def _only(values: Iterable[Any], kind: type) -> None:
    # the keys of a JSON object are always strings; its values and array items are checked here
    if not set(map(type, values)) <= {kind}:
        raise TypeError(f"expected only {kind.__name__} values")


@dataclass(frozen=True, slots=True)
class StateIndex:
    engine: str
    entries: Mapping[Identity, IndexEntry] = field(default_factory=dict)
    run: str = ""
    """The part of every fingerprint shared by all templates when the index was written
    (``FingerprintContext.run_digest``: engine, configuration, inventory, snapshots, ClusterOverridePolicies);
    empty when not known. A run that computes the same value may judge only the templates a change of input
    files touches (``core.incremental.change_scope``)."""

    def dump(self, memo: RunMemo | None = None) -> bytes:
        """Deterministic JSON, one entry a line (``memo``: lines written of the same entries before)."""
        return self._dump(sorted(self.entries), memo)

    raw: Mapping[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    """The shard files this index was read from (shard name → content), those this version would write as
    they are; empty when not read from shards."""

    def shards(
        self, memo: RunMemo | None = None, previous: StateIndex | None = None, budget: int = SHARD_BUDGET
    ) -> dict[str, bytes]:
        """The index as it is kept: one file per namespace (``shard_of``), split into as few hash buckets
        (``bucket_of``) as keep every file within ``budget`` bytes, each as ``dump`` writes it. The files of a
        namespace of ``previous`` holding exactly these entries (the same objects: a reused template's entry
        is its previous one) under the same engine and run, each within the budget, are kept as they were
        read, not written again: a run redoing one template rewrites its namespace's files alone, as it
        commits (and a file a version that did not split wrote past the budget is split)."""
        homes = _by_home(self.entries)
        homes_before: dict[str, list[Identity]] = {}
        read: dict[str, dict[str, bytes]] = {}
        same_run = previous is not None and (previous.engine, previous.run) == (self.engine, self.run)
        if previous is not None and previous.raw and same_run:
            homes_before = _by_home(previous.entries)
            for shard, raw in previous.raw.items():
                place = shard_place(shard)
                if place is not None:
                    read.setdefault(place[0], {})[shard] = raw
        found: dict[str, bytes] = {}
        head = len(self._head())
        for home, identities in homes.items():
            if (
                previous is not None
                and home in read
                and homes_before.get(home) == identities
                and all(self.entries[i] is previous.entries[i] for i in identities)
                and _split_as_budgeted(read[home], head, budget)
            ):
                found.update(read[home])
                continue
            lines = self._lines(identities, memo)
            for shard, members in _split(home, identities, lines, head, budget):
                found[shard] = self._file([lines[k] for k in members])
        return found

    def _head(self) -> bytes:
        return orjson.dumps(
            {
                "apiVersion": INDEX_API_VERSION,
                "kind": INDEX_KIND,
                "engine": self.engine,
                **({"run": self.run} if self.run else {}),
            }
        )

    def _lines(self, identities: list[Identity], memo: RunMemo | None) -> list[_Line]:
        shared: dict[bytes, SetLine] = {}  # one copy of each set: 20,000 entries name a few

        def line(identity: Identity) -> _Line:
            text, named = entry_json(self.entries[identity].to_api())
            kept = tuple(shared.setdefault(digest, (digest, json)) for digest, json in named)
            return b"  " + orjson.dumps(identity_text(identity)) + b": " + text, kept

        if memo is None:
            return [line(identity) for identity in identities]
        return [
            memo.recall("index_line", (self.entries[i],), i, functools.partial(line, i)) for i in identities
        ]

    def _file(self, lines: list[_Line]) -> bytes:
        named = {digest: text for _, sets in lines for digest, text in sets}
        body = b",\n".join(text for text, _ in lines)
        return (
            self._head()[:-1]
            + set_lines(named)
            + _TEMPLATES_OPEN
            + body
            + (b"\n" if lines else b"")
            + _TEMPLATES_CLOSE
        )

    def _dump(self, identities: list[Identity], memo: RunMemo | None) -> bytes:
        return self._file(self._lines(identities, memo))


_Line = tuple[bytes, tuple[SetLine, ...]]
"""An entry's line of its file and the sets it names."""

_TEMPLATES_OPEN, _TEMPLATES_CLOSE = b',"templates":{\n', b"}}\n"
_LINES_CLOSE = b"\n" + _TEMPLATES_CLOSE


def _by_home(entries: Mapping[Identity, IndexEntry]) -> dict[str, list[Identity]]:
    by_home: dict[str, list[Identity]] = {}
    for identity in sorted(entries):
        by_home.setdefault(shard_of(identity), []).append(identity)
    return by_home


def shard_budget(max_file_bytes: int) -> int:
    """The shard budget under ``output.hostLimits.maxFileBytes`` (0: no limit, the default budget)."""
    return max(1, max_file_bytes // 2) if max_file_bytes else SHARD_BUDGET


def _frame(head: int) -> int:
    """The bytes of a shard file but its lines' and sets' (each line counts its own length and two): the
    head without its brace, the frame, less the last line's comma."""
    return head - 1 + len(_TEMPLATES_OPEN) + len(_TEMPLATES_CLOSE) - 1


class _Filling:
    """The size of one file being filled: the frame, its lines, and each set its lines name, once."""

    __slots__ = ("named", "size")

    def __init__(self, frame: int) -> None:
        self.size = frame
        self.named: set[bytes] = set()

    def add(self, line_bytes: int, named: Iterable[tuple[bytes, int]]) -> None:
        self.size += line_bytes
        for digest, size in named:
            if digest not in self.named:
                self.size += size + (0 if self.named else len(SETS_OPEN))
                self.named.add(digest)


def _split(
    home: str, identities: list[Identity], lines: list[_Line], head: int, budget: int
) -> list[tuple[str, list[int]]]:
    """The files of one namespace: (shard name, the positions of its lines), in as few buckets as keep each
    file within ``budget`` (a power of two, at most ``MAX_BUCKETS``)."""
    frame = _frame(head)
    sizes = [len(text) + 2 for text, _ in lines]
    named = [tuple((digest, set_bytes(text)) for digest, text in sets) for _, sets in lines]
    whole = _Filling(frame)
    for size, sets in zip(sizes, named, strict=True):
        whole.add(size, sets)
    if whole.size <= budget:
        return [(home, list(range(len(lines))))]
    hashes = [_identity_hash(identity) for identity in identities]
    count = 2
    while True:
        buckets: list[list[int]] = [[] for _ in range(count)]
        filled = [_Filling(frame) for _ in range(count)]
        for position, hashed in enumerate(hashes):
            bucket = hashed % count
            buckets[bucket].append(position)
            filled[bucket].add(sizes[position], named[position])
        if max(f.size for f in filled) <= budget or count >= MAX_BUCKETS:
            return [(f"{home}.{i}-of-{count}", members) for i, members in enumerate(buckets) if members]
        count *= 2


def _split_as_budgeted(files: Mapping[str, bytes], head: int, budget: int) -> bool:
    """Whether one namespace's files, as read, are split as ``_split`` splits them under ``budget``: each
    within it, and no two buckets that half as many would join fitting in one (the budget may have grown
    since they were written, and it is not part of the run digest)."""
    places = [(shard_place(name), len(raw)) for name, raw in files.items()]
    counts = {place[2] for place, _ in places if place is not None}
    if len(counts) != 1 or any(place is None or size > budget for place, size in places):
        return False
    (count,) = counts
    if count == 1:
        return True
    half = count // 2
    parts: dict[int, tuple[list[bytes], list[bytes]]] = {}
    for name, raw in files.items():
        place, found = shard_place(name), _parts(raw)
        if place is None or found is None:
            return False  # not as ``_file`` lays a file out: written again
        parts[place[1]] = found
    for bucket in range(half):
        joined = _Filling(_frame(head))
        for sets, lines in (parts.get(bucket, ([], [])), parts.get(bucket + half, ([], []))):
            for line in lines:
                joined.add(len(line) + 2, ())
            joined.add(0, [(line[: DIGEST_LENGTH + 3], len(line) + 2) for line in sets])
        if joined.size > budget:
            return True  # half as many files would not do
    return False


def _parts(raw: bytes) -> tuple[list[bytes], list[bytes]] | None:
    """The set lines and entry lines of a file as ``_file`` lays it out; None for another layout."""
    head, found, rest = raw.partition(_TEMPLATES_OPEN)
    if not found or not rest.endswith(_LINES_CLOSE):
        return None
    lines = rest[: -len(_LINES_CLOSE)].split(b",\n")
    _, has_sets, table = head.partition(SETS_OPEN)
    if not has_sets:
        return [], lines
    if not table.endswith(b"\n}"):
        return None
    return table[:-2].split(b",\n"), lines


def _identity_hash(identity: Identity) -> int:
    return int.from_bytes(hashlib.sha256(identity_text(identity).encode()).digest()[:8], "big")


def bucket_of(identity: Identity, count: int) -> int:
    """Which of ``count`` files of its namespace holds ``identity``'s entry."""
    return _identity_hash(identity) % count


def shard_place(shard: str) -> tuple[str, int, int] | None:
    """(namespace shard, bucket, bucket count) a shard name stands for (``team-a``: bucket 0 of 1;
    ``team-a.3-of-8``: bucket 3 of 8), or None when ``shards`` writes no such name."""
    home, dot, rest = shard.partition(".")
    if not dot:
        return home, 0, 1
    index, of, count = rest.partition("-of-")
    if not (of and index.isdigit() and count.isdigit()):
        return None
    bucket, total = int(index), int(count)
    if f"{bucket}-of-{total}" != rest or total < 2 or total & (total - 1) or bucket >= total:
        return None
    return home, bucket, total


def belongs(identity: Identity, shard: str) -> bool:
    """Whether ``shard`` is the file ``shards`` writes ``identity``'s entry in (for its bucket count)."""
    place = shard_place(shard)
    if place is None or place[0] != shard_of(identity):
        return False
    return place[2] == 1 or bucket_of(identity, place[2]) == place[1]


CLUSTER_SCOPED_SHARD = "_cluster"
"""The shard of cluster-scoped templates (no namespace can be named so: ``_`` is not DNS-1123)."""


def shard_of(identity: Identity) -> str:
    """The namespace an entry is kept under (its files split into buckets past the budget): a run that redoes
    one template rewrites the entries of one namespace, not the fleet's (at 5,000 templates the whole index
    is megabytes to compress)."""
    return identity[2] or CLUSTER_SCOPED_SHARD


IndexLines = dict[bytes, tuple[Identity, IndexEntry]]
"""Entries parsed before, by their line of the index (what a long-lived process keeps between runs)."""


def read_index(
    files: Mapping[str, bytes], layout: RepoLayout, lines: IndexLines | None = None
) -> StateIndex | None:
    """The index among the state folder's ``files`` (path → content): its shards, else the one file of
    older versions; None when there is none or it cannot be trusted."""
    shards = {shard: raw for path, raw in files.items() if (shard := layout.index_shard(path)) is not None}
    if shards:
        return parse_index_shards(shards, lines)
    return parse_index(files.get(layout.legacy_index_path), lines)


def parse_index(raw: bytes | None, lines: IndexLines | None = None) -> StateIndex | None:
    """The index kept in one file, or None when absent or unreadable (the run then reads every record: a
    full run).

    ``lines``: entries already parsed, by line. When given and the file has the layout ``dump`` writes (one
    entry a line), only lines not in it are parsed, and it is refreshed to hold exactly this file's lines;
    any other layout is parsed as a whole."""
    if raw is None:
        return None
    return parse_index_shards({"": raw}, lines, sharded=False)


def parse_index_shards(
    shards: Mapping[str, bytes], lines: IndexLines | None = None, *, sharded: bool = True
) -> StateIndex | None:
    """The index kept in shard files (shard name → content), or None when there are none, or one is
    unreadable, has another engine, or holds an entry of another shard (a full run then decides). Its
    ``raw`` leaves out the files of a namespace an older version wrote without shared sets: they are
    written again."""
    fresh: IndexLines = {}
    engine: str | None = None
    runs: set[str] = set()
    entries: dict[Identity, IndexEntry] = {}
    outdated: set[str] = set()  # namespaces with a file to write again (all their files, then)
    for shard, raw in sorted(shards.items()):
        parsed = _parse_lines(raw, lines, fresh) if lines is not None else None
        if parsed is None:
            parsed = _parse_whole(raw)
        if parsed is None or engine not in (None, parsed.engine):
            return None
        engine = parsed.engine
        runs.add(parsed.run)
        shared = (getattr(e, name) for e in parsed.entries.values() for name in SHARED_FIELDS)
        if not names_every_set(raw, shared):
            outdated.add(shard.partition(".")[0])
        for identity, entry in parsed.entries.items():
            if (sharded and not belongs(identity, shard)) or identity in entries:
                return None
            entries[identity] = entry
    if engine is None:
        return None
    if lines is not None:
        lines.clear()
        lines.update(fresh)
    # shards that disagree on it (one edited or left from another run) make it unknown
    return StateIndex(
        engine=engine,
        entries=entries,
        run=runs.pop() if len(runs) == 1 else "",
        raw={s: r for s, r in shards.items() if s.partition(".")[0] not in outdated} if sharded else {},
    )


def _parse_whole(raw: bytes) -> StateIndex | None:
    try:
        data = orjson.loads(raw)
        if data.get("kind") != INDEX_KIND or data.get("apiVersion") != INDEX_API_VERSION:
            return None
        sets = SetTable(data.get("sets", {}))
        entries: dict[Identity, IndexEntry] = {}
        for text, entry in data["templates"].items():
            identity = parse_identity(text)
            if identity is None:
                return None
            entries[identity] = IndexEntry.from_api(entry, sets)
        return StateIndex(engine=str(data["engine"]), entries=entries, run=str(data.get("run", "")))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _parse_lines(raw: bytes, memo: IndexLines, fresh: IndexLines) -> StateIndex | None:
    """Parse the lines of ``raw`` not in ``memo``, adding every line to ``fresh``; None when ``raw`` does not
    have the layout ``dump`` writes. A line known before must still find the sets it names in this file."""
    head, found, rest = raw.partition(_TEMPLATES_OPEN)
    if not found or not rest.endswith(_LINES_CLOSE):
        return None  # not the layout dump writes (an empty index, or edited by hand): parse it whole
    try:
        header = orjson.loads(head + b"}")
        if header.get("kind") != INDEX_KIND or header.get("apiVersion") != INDEX_API_VERSION:
            return None
        engine = str(header["engine"])
        table = header.get("sets", {})
        sets = SetTable(table)
        mine: IndexLines = {}
        for line in rest[: -len(_LINES_CLOSE)].split(b",\n"):
            known = memo.get(line)
            if known is None:
                ((text, entry),) = orjson.loads(b"{" + line + b"}").items()
                identity = parse_identity(text)
                if identity is None:
                    return None
                known = (identity, IndexEntry.from_api(entry, sets))
            elif any(digest not in table for digest in named_digests(line)):
                return None
            mine[line] = known
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    entries = dict(mine.values())
    if len(entries) != len(mine):
        return None  # a template listed twice: let the whole-file parse decide
    fresh.update(mine)
    return StateIndex(engine=engine, entries=entries, run=str(header.get("run", "")))


def _diagnostic_to_api(diagnostic: Diagnostic) -> dict[str, Any]:
    source = diagnostic.source
    return {
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        **({"path": source.path, "document": source.doc_index} if source else {}),
        **({"field": diagnostic.field} if diagnostic.field else {}),
        **({"subject": diagnostic.subject} if diagnostic.subject else {}),
    }


def _diagnostic_from_api(raw: Mapping[str, Any]) -> Diagnostic:
    path = raw.get("path")
    return Diagnostic(
        Severity(raw["severity"]),
        str(raw["message"]),
        SourceRef(str(path), int(raw.get("document", 0))) if path is not None else None,
        str(raw.get("field", "")),
        str(raw.get("subject", "")),
    )
