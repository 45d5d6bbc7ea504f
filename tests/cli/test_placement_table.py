"""The reconcile report's placement table (``cli.output.placement_table``): bindings placed alike share their
cells, and every row still shows its own binding's cells (replicas per cluster, ✓, -, "(not written)")."""

from __future__ import annotations

from gitops_karmada.cli.output import _cells, placement_table
from gitops_karmada.cli.tables import plain_table
from tests.action.scenarios import REPO_LAYOUT
from tests.inprocess import run


def test_every_row_shows_its_own_bindings_cells() -> None:
    # the example fleet, but its Kustomize source (which a run in process does not render)
    tree = {
        path: p.read_bytes()
        for p in REPO_LAYOUT.rglob("*")
        if p.is_file() and not (path := p.relative_to(REPO_LAYOUT).as_posix()).startswith("apps/payments/")
    }
    result = run(tree, "2026-01-01T00:00:00Z")
    assert result.inputs is not None
    clusters = [c.name for c in result.inputs.clusters]
    placed = [o for o in result.outcomes if o.binding is not None]
    shapes = {tuple(_cells(o.binding, clusters)) for o in placed if o.binding is not None}
    assert len(placed) > len(shapes) > 2, "rows that share their cells, and rows that differ"
    table = placement_table(result).splitlines()
    for outcome in placed:
        assert outcome.binding is not None
        (line,) = (line for line in table if line.startswith(f"{outcome.key} "))
        alone = plain_table(
            ["TEMPLATE", "POLICY", *(c.upper() for c in clusters), "STATUS"],
            [[str(outcome.key), "-", *_cells(outcome.binding, clusters), outcome.status]],
        )
        cells = alone.splitlines()[1].split()[2:-1]
        assert line.split()[-len(cells) - 1 : -1] == cells, outcome.key
