"""A size budget for a report: pieces are added while they fit, measured the way the consumer counts.

GitHub limits a comment to 65,536 characters (counted conservatively here as UTF-16 code units, so an
emoji counts twice) and a job summary to 1 MiB (UTF-8 bytes). Measures are additive over concatenation,
so the total is the sum of the pieces and nothing is measured twice.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

COMMENT_LIMIT = 65_536
STEP_SUMMARY_LIMIT = 1024 * 1024


class Unit(enum.StrEnum):
    CHARACTERS = "characters"
    """UTF-16 code units: never fewer than the characters GitHub counts."""
    BYTES = "bytes"
    """UTF-8 bytes."""


def measure(text: str, unit: Unit) -> int:
    if unit is Unit.BYTES:
        return len(text.encode("utf-8"))
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True, slots=True)
class Budget:
    limit: int
    unit: Unit = Unit.CHARACTERS

    def __str__(self) -> str:
        return f"{self.limit:,} {self.unit.value}"


@dataclass(slots=True)
class BudgetWriter:
    """Collects the pieces of a report; ``fits`` says whether a piece (plus a reserve) still fits."""

    budget: Budget | None
    reserve: int = 0
    """Kept free for the notes that say what was left out."""
    parts: list[str] = field(default_factory=list)
    used: int = 0

    def size(self, text: str) -> int:
        return measure(text, self.budget.unit) if self.budget is not None else 0

    def fits(self, text: str, extra: int = 0) -> bool:
        if self.budget is None:
            return True
        return self.used + self.size(text) + extra + self.reserve <= self.budget.limit

    def add(self, text: str) -> None:
        """Add ``text`` whether or not it fits (for the parts that are never left out)."""
        self.parts.append(text)
        self.used += self.size(text)

    def add_note(self, text: str) -> None:
        """Add a note that may use the reserve (what-was-left-out notes)."""
        self.add(text)

    def text(self) -> str:
        return "".join(self.parts)
