"""The plain table writer: exactly the cell-by-cell layout, computed a column and a row at a time."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.cli.tables import fitted_widths, plain_table


def _cell_by_cell(columns: list[str], rows: list[list[str]], width: int, right: frozenset[str]) -> str:
    """The layout as first written: every cell measured, cut and padded on its own."""
    widths = fitted_widths([len(c) for c in columns], [[len(cell) for cell in row] for row in rows], width)
    lines = []
    for row in (columns, *rows):
        cells = []
        for column, cell, size in zip(columns, row, widths, strict=True):
            text = cell if len(cell) <= size else cell[: max(size - 1, 0)] + "…"
            cells.append(text.rjust(size) if column in right else text.ljust(size))
        lines.append("  ".join(cells).rstrip() + "\n")
    return "".join(lines)


_TEXT = st.text(alphabet="ab✓-{}0123456789 ", max_size=12)


@given(
    columns=st.lists(st.text(alphabet="ABC{}", max_size=6), min_size=1, max_size=6),
    data=st.data(),
    width=st.integers(min_value=0, max_value=80),
)
def test_the_table_is_the_cell_by_cell_layout(columns: list[str], data: st.DataObject, width: int) -> None:
    rows = data.draw(st.lists(st.lists(_TEXT, min_size=len(columns), max_size=len(columns)), max_size=6))
    right = frozenset(data.draw(st.sets(st.sampled_from(columns))))
    assert plain_table(columns, rows, width=width, right=right) == _cell_by_cell(columns, rows, width, right)
