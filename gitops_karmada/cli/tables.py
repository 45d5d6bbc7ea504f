"""Plain tables that fit the terminal: kubectl's look (upper-case headers, no borders), one totals line.

On a terminal the table is as wide as the terminal and long cells are cut with an ellipsis, the widest
column first and the first column (the object's name) last; into a pipe or file nothing is cut,
so scripts and golden files see every character.
"""

from __future__ import annotations

import shutil
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

UNLIMITED = 10_000


def terminal_width() -> int:
    """The width a table may take on stdout: the terminal's (``COLUMNS`` first), unlimited for a pipe."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size((120, 24)).columns
    return UNLIMITED


def plain_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    width: int | None = None,
    right: frozenset[str] = frozenset(),
) -> str:
    """``rows`` under ``columns``, two spaces apart; columns named in ``right`` are right-aligned.

    Formatted a row at a time by one format string, measured a column at a time: a first run's table has
    5,000 rows of 52 columns."""
    limit = terminal_width() if width is None else width
    if any(len(row) != len(columns) for row in rows):
        raise ValueError(f"every row must have {len(columns)} cells")
    longest = [max(map(len, cells)) for cells in zip(*rows, strict=True)] if rows else [0] * len(columns)
    widths = fitted_widths([len(c) for c in columns], [longest], limit)
    line = "  ".join(
        f"{{:{'>' if c in right else '<'}{size}}}" for c, size in zip(columns, widths, strict=True)
    )
    cut = [i for i, size in enumerate(widths) if max(longest[i], len(columns[i])) > size]
    lines = []
    for row in (columns, *rows):
        if cut:
            row = list(row)
            for i in cut:
                if len(row[i]) > widths[i]:
                    row[i] = row[i][: max(widths[i] - 1, 0)] + "…"
        lines.append(line.format(*row).rstrip() + "\n")
    return "".join(lines)


def fitted_widths(headers: Sequence[int], rows: Sequence[Sequence[int]], limit: int) -> list[int]:
    """Column widths within ``limit``: the widest column gives way first, down to its header (at least 3);
    the first column (the object's name) gives way last. Wider than ``limit`` only when nothing can."""
    widths = list(headers)
    for row in rows:
        widths = [max(w, cell) for w, cell in zip(widths, row, strict=True)]
    floors = [max(h, 3) for h in headers]
    excess = sum(widths) + 2 * (len(widths) - 1) - limit
    while excess > 0:
        order = [*sorted(range(1, len(widths)), key=lambda i: widths[i] - floors[i], reverse=True), 0]
        shrinkable = next((i for i in order if widths[i] > floors[i]), None)
        if shrinkable is None:
            break
        cut = min(excess, widths[shrinkable] - floors[shrinkable], max(1, widths[shrinkable] // 4))
        widths[shrinkable] -= cut
        excess -= cut
    return widths


_SINGULAR = {"policies": "policy", "replicas": "replica"}


def totals_line(totals: Mapping[str, int]) -> str:
    """``11 bindings · 26 replicas · 1 unschedulable``."""
    return (
        " · ".join(f"{count} {_singular(name) if count == 1 else name}" for name, count in totals.items())
        + "\n"
    )


def _singular(name: str) -> str:
    return _SINGULAR.get(name, name.removesuffix("s"))
