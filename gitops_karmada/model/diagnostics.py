"""Diagnostics: what is wrong, where (file, document index, field path), and how bad."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True, order=True)
class SourceRef:
    """A document in the repository: the file's POSIX path and the 0-based index of the document in it."""

    path: str
    doc_index: int = 0

    def __str__(self) -> str:
        return f"{self.path}[{self.doc_index}]"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about the input or the run. ``field`` is a dotted path in Karmada's JSON names."""

    severity: Severity
    message: str
    source: SourceRef | None = None
    field: str = ""
    subject: str = ""
    """The object concerned when there is no source document (a template key, a binding)."""
    code: str = ""
    """What kind of finding it is, for machines (``schema``: a rendered manifest fails its schema)."""

    def __str__(self) -> str:
        where = " ".join(
            part for part in (str(self.source) if self.source else self.subject, self.field) if part
        )
        return f"{where}: {self.message}" if where else self.message

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_dict(self) -> dict[str, Any]:
        """The diagnostic as a JSON report item (absent parts left out)."""
        item: dict[str, Any] = {"severity": self.severity.value, "message": self.message}
        if self.source is not None:
            item["file"] = self.source.path
            item["document"] = self.source.doc_index
        if self.field:
            item["field"] = self.field
        if self.subject:
            item["subject"] = self.subject
        if self.code:
            item["code"] = self.code
        return item


def error(
    message: str, source: SourceRef | None = None, field: str = "", subject: str = "", code: str = ""
) -> Diagnostic:
    return Diagnostic(Severity.ERROR, message, source, field, subject, code)


def warning(message: str, source: SourceRef | None = None, field: str = "", subject: str = "") -> Diagnostic:
    return Diagnostic(Severity.WARNING, message, source, field, subject)


def field_path(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a JSON-ish field path: ``spec.list[0].field``."""
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic's marker for "the key itself is wrong": the path already names it
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        elif not out:
            out = part
        else:
            out += f".{part}"
    return out
