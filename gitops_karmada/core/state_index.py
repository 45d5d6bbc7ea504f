"""The state index (``<state>/index.json``): what a run needs to know of every previous binding, in one file.

Reading 5,000 binding records costs seconds (their YAML is large); a run that changed one template must
not pay it. The index holds, per template, the fingerprint of its inputs, the blob id of its binding
record, a digest of the blob ids of its rendered files, its policy claim, whether its result is settled
(scheduled, nothing refused or failed) and the warnings it produced. An entry is trusted only while the
record and the rendered files still have the blob ids it names, so a hand edit of either is noticed
without reading them; anything else is read from the records themselves.

One entry a line, sorted, so a run that changes one template changes one line. Pure.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from gitops_karmada.model.diagnostics import Diagnostic, Severity, SourceRef

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

INDEX_KIND = "StateIndex"
INDEX_API_VERSION = "gitops-karmada.io/v1alpha1"

Identity = tuple[str, str, str, str]


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
    """Cluster → what it reported (``core.status_summary.cluster_health``), for the status page."""
    ready: str = ""
    """kubectl's READY of the template's aggregated status (``3/5``); empty when not known."""

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
        }

    @classmethod
    def from_api(cls, raw: Mapping[str, Any]) -> IndexEntry:
        claim = raw.get("claim")
        return cls(
            fingerprint=str(raw["fingerprint"]),
            record=str(raw["record"]),
            files=str(raw["files"]),
            rendered=tuple(str(c) for c in raw["rendered"]),
            settled=bool(raw["settled"]),
            claim=(str(claim[0]), str(claim[1]), str(claim[2]), str(claim[3])) if claim else None,
            warnings=tuple(_diagnostic_from_api(d) for d in raw.get("warnings", ())),
            placement={str(k): int(v) for k, v in raw.get("placement", {}).items()},
            workload=bool(raw.get("workload", False)),
            failover=bool(raw.get("failover", False)),
            health={str(k): str(v) for k, v in raw.get("health", {}).items()},
            ready=str(raw.get("ready", "")),
        )


@dataclass(frozen=True, slots=True)
class StateIndex:
    engine: str
    entries: Mapping[Identity, IndexEntry] = field(default_factory=dict)

    def dump(self) -> bytes:
        """Deterministic JSON, one entry a line."""
        head = orjson.dumps(
            {"apiVersion": INDEX_API_VERSION, "kind": INDEX_KIND, "engine": self.engine}
        ).decode()
        lines = [
            f"  {orjson.dumps(identity_text(identity)).decode()}: "
            f"{orjson.dumps(self.entries[identity].to_api(), option=orjson.OPT_SORT_KEYS).decode()}"
            for identity in sorted(self.entries)
        ]
        body = ",\n".join(lines)
        return (head[:-1] + ',"templates":{\n' + body + ("\n" if lines else "") + "}}\n").encode()


IndexLines = dict[bytes, tuple[Identity, IndexEntry]]
"""Entries parsed before, by their line of the index (what a long-lived process keeps between runs)."""

_TEMPLATES_OPEN, _TEMPLATES_CLOSE = b',"templates":{\n', b"\n}}\n"


def parse_index(raw: bytes | None, lines: IndexLines | None = None) -> StateIndex | None:
    """The index, or None when absent or unreadable (the run then reads every record: a full run).

    ``lines``: entries already parsed, by line. When given and the file has the layout ``dump`` writes (one
    entry a line), only lines not in it are parsed, and it is refreshed to hold exactly this file's lines;
    any other layout is parsed as a whole."""
    if raw is None:
        return None
    if lines is not None:
        parsed = _parse_lines(raw, lines)
        if parsed is not None:
            return parsed
    try:
        data = orjson.loads(raw)
        if data.get("kind") != INDEX_KIND or data.get("apiVersion") != INDEX_API_VERSION:
            return None
        entries: dict[Identity, IndexEntry] = {}
        for text, entry in data["templates"].items():
            identity = parse_identity(text)
            if identity is None:
                return None
            entries[identity] = IndexEntry.from_api(entry)
        return StateIndex(engine=str(data["engine"]), entries=entries)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _parse_lines(raw: bytes, memo: IndexLines) -> StateIndex | None:
    head, found, rest = raw.partition(_TEMPLATES_OPEN)
    if not found or not rest.endswith(_TEMPLATES_CLOSE):
        return None  # not the layout dump writes (an empty index, or edited by hand): parse it whole
    try:
        header = orjson.loads(head + b"}")
        if header.get("kind") != INDEX_KIND or header.get("apiVersion") != INDEX_API_VERSION:
            return None
        engine = str(header["engine"])
        fresh: IndexLines = {}
        for line in rest[: -len(_TEMPLATES_CLOSE)].split(b",\n"):
            known = memo.get(line)
            if known is None:
                ((text, entry),) = orjson.loads(b"{" + line + b"}").items()
                identity = parse_identity(text)
                if identity is None:
                    return None
                known = (identity, IndexEntry.from_api(entry))
            fresh[line] = known
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    entries = dict(fresh.values())
    if len(entries) != len(fresh):
        return None  # a template listed twice: let the whole-file parse decide
    memo.clear()
    memo.update(fresh)
    return StateIndex(engine=engine, entries=entries)


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
