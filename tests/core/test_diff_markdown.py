"""The markdown report under a size budget: summary whole, rows whole, diffs cut at object boundaries."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.diff import (
    COMMENT_LIMIT,
    STEP_SUMMARY_LIMIT,
    Budget,
    PlanDiff,
    Unit,
    compare,
    render_markdown,
)
from gitops_karmada.core.diff.budget import measure
from gitops_karmada.core.diff.markdown import object_block
from tests.action.diffdata import binding, side

COMMENT = Budget(COMMENT_LIMIT, Unit.CHARACTERS)


def _configmap(name: str, value: str, lines: int) -> bytes:
    body = "".join(f"    line {i:05d}: {value}\n" for i in range(lines))
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\ndata:\n  big: |\n{body}".encode()


def _big_diff(clusters: int, objects: int, lines: int) -> PlanDiff:
    """Every object's every line changes: ``clusters`` x ``objects`` diffs of about 2 x ``lines`` lines."""
    base: dict[str, bytes] = {}
    head: dict[str, bytes] = {}
    bindings_before = []
    bindings_after = []
    for o in range(objects):
        name = f"cfg-{o:04d}"
        bindings_before.append(
            binding(
                "ConfigMap",
                "shop",
                name,
                dict.fromkeys((f"m{c:02d}" for c in range(clusters)), 0),
                api_version="v1",
            )
        )
        bindings_after.append(
            binding(
                "ConfigMap",
                "shop",
                name,
                dict.fromkeys((f"m{c:02d}" for c in range(clusters)), 0),
                api_version="v1",
            )
        )
        for c in range(clusters):
            path = f"clusters/m{c:02d}/shop/configmap/{name}.yaml"
            base[path] = _configmap(name, "old value " + "x" * 20, lines)
            head[path] = _configmap(name, "new value " + "y" * 20, lines)
    # one workload really moves, so the placement table is not empty
    bindings_before.append(binding("Deployment", "shop", "web", {"m00": 4, "m01": 4}, policy="pp/web"))
    bindings_after.append(binding("Deployment", "shop", "web", {"m00": 2, "m01": 6}, policy="pp/web"))
    return compare(side("base", *bindings_before, tree=base), side("head", *bindings_after, tree=head))


def _summary_part(text: str) -> str:
    """Everything up to and including the summary line."""
    end = text.index("**Summary:**")
    return text[: text.index("\n\n", end) + 2]


def _assert_well_formed(text: str) -> None:
    assert text.count("<details>") == text.count("</details>")
    fences = re.findall(r"^(`{3,})(?:diff)?$", text, flags=re.MULTILINE)
    assert len(fences) % 2 == 0


def test_a_5_mb_diff_fits_a_comment_with_the_summary_whole() -> None:
    diff = _big_diff(clusters=20, objects=50, lines=55)
    full = render_markdown(diff)
    assert len(full) > 5_000_000
    comment = render_markdown(diff, COMMENT)
    assert measure(comment, Unit.CHARACTERS) <= COMMENT_LIMIT
    assert _summary_part(comment) == _summary_part(full)
    assert "### Placement" in comment
    assert "| `Deployment.apps/shop/web` | pp/web | 8 | **4 → 2** | **4 → 6** | 2 of 8 (25 %) |" in comment
    _assert_well_formed(comment)
    shown = [o for o in diff.objects if object_block(o) in comment]
    assert 0 < len(shown) < len(diff.objects)
    # whole objects, in order: the shown ones are exactly the first ones
    assert shown == list(diff.objects[: len(shown)])
    assert (
        f"**Shortened to fit {COMMENT}**: {len(diff.objects) - len(shown):,} of {len(diff.objects):,} manifest diffs"
        in comment
    )


def test_without_a_budget_nothing_is_left_out() -> None:
    diff = _big_diff(clusters=2, objects=3, lines=5)
    full = render_markdown(diff)
    assert all(object_block(o) in full for o in diff.objects)
    assert "Shortened" not in full
    assert render_markdown(diff, COMMENT) == full  # small: the budget changes nothing


def test_the_step_summary_budget_counts_bytes() -> None:
    diff = _big_diff(clusters=10, objects=40, lines=60)
    summary = render_markdown(diff, Budget(STEP_SUMMARY_LIMIT, Unit.BYTES))
    assert len(summary.encode()) <= STEP_SUMMARY_LIMIT
    assert len(summary.encode()) > STEP_SUMMARY_LIMIT - 20_000  # the budget is used, not wasted
    _assert_well_formed(summary)


def test_a_long_placement_table_is_cut_at_a_row() -> None:
    before = [binding("Deployment", "shop", f"web-{i:04d}", {"m1": 2, "m2": 2}) for i in range(3000)]
    after = [binding("Deployment", "shop", f"web-{i:04d}", {"m1": 1, "m2": 3}) for i in range(3000)]
    diff = compare(side("base", *before), side("head", *after))
    comment = render_markdown(diff, COMMENT)
    assert measure(comment, Unit.CHARACTERS) <= COMMENT_LIMIT
    rows = [line for line in comment.splitlines() if line.startswith("| `Deployment.apps/shop/web-")]
    assert 100 < len(rows) < 3000
    assert all(line.endswith("1 of 4 (25 %) |") for line in rows)
    assert f"_… and {3000 - len(rows):,} more placement rows not shown (size limit)._" in comment


def test_characters_outside_the_basic_plane_count_twice() -> None:
    assert measure("a→🚀", Unit.CHARACTERS) == 4
    assert measure("a→🚀", Unit.BYTES) == 8


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=40),
    budget=st.integers(min_value=10_000, max_value=70_000),
    wide=st.booleans(),
)
def test_any_report_fits_any_budget(sizes: list[int], budget: int, wide: bool) -> None:
    value = "é🚀" if wide else "x"
    base = {
        f"clusters/m{i % 3}/shop/configmap/c{i}.yaml": _configmap(f"c{i}", "a" * 10, n)
        for i, n in enumerate(sizes)
    }
    head = {p: _configmap(f"c{i}", value * 10, n) for i, (p, n) in enumerate(zip(base, sizes, strict=True))}
    diff = compare(side("base", tree=base), side("head", tree=head))
    text = render_markdown(diff, Budget(budget, Unit.CHARACTERS))
    assert measure(text, Unit.CHARACTERS) <= budget
    assert _summary_part(text) == _summary_part(render_markdown(diff))
    _assert_well_formed(text)
    if "Shortened" not in text:
        assert all(object_block(o) in text for o in diff.objects)
