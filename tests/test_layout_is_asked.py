"""``RepoLayout`` answers every path question: no module builds a managed folder's path by hand.

A fleet's folders are configurable (``output:`` of gitops-karmada.yaml) and a fleet may live in a subfolder of
a monorepo, so a path put together from a folder name and a slash anywhere but ``core/layout.py`` is a path
that is wrong for some fleet. The defaults are declared once, in ``model/wellknown.py``; the compatibility table
names them in prose.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gitops_karmada"
ALLOWED = {
    "core/layout.py": "the layout itself",
    "model/wellknown.py": "the folders' defaults, declared once",
    "model/compatibility.py": "the compatibility table names the default folders in prose",
}
FOLDER_ATTRIBUTES = frozenset({"clusters_dir", "state_dir", "snapshots_dir"})
DEFAULT_NAMES = ("karmada-state", "cluster-snapshots")


def _is_folder(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in FOLDER_ATTRIBUTES


def _starts_with_slash(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("/")


def hand_built(source: str) -> list[tuple[int, str]]:
    """Every place ``source`` builds a managed path by hand: ``x.clusters_dir + "/…"``, ``f"{x.state_dir}/…"``,
    or a default folder's name in a string."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source)
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)  # docstrings
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            if _is_folder(node.left) and _starts_with_slash(node.right):
                found.append((node.lineno, "a folder joined with '+'"))
        elif isinstance(node, ast.JoinedStr):
            parts = node.values
            for here, after in itertools.pairwise(parts):
                if (
                    isinstance(here, ast.FormattedValue)
                    and _is_folder(here.value)
                    and _starts_with_slash(after)
                ):
                    found.append((node.lineno, "a folder joined in an f-string"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            text = node.value
            if any(name in text for name in DEFAULT_NAMES) or text.startswith("clusters/"):
                found.append((node.lineno, f"a default folder in a string: {text[:40]!r}"))
    return found


def test_the_detector_sees_each_way_of_building_a_path_by_hand() -> None:
    sample = (
        'a = config.output.clusters_dir + "/"\nb = f"{layout.state_dir}/bindings"\nc = "karmada-state/x"\n'
    )
    assert [line for line, _ in hand_built(sample)] == [1, 2, 3]
    assert hand_built('a = layout.manifest_path(cluster, key)\nb = f"{layout.clusters_dir}"\n') == []


def test_no_module_but_the_layout_builds_a_managed_path() -> None:
    offenders = [
        f"gitops_karmada/{path}:{line}: {what}"
        for file in sorted(PACKAGE.rglob("*.py"))
        if (path := file.relative_to(PACKAGE).as_posix()) not in ALLOWED
        for line, what in hand_built(file.read_text())
    ]
    assert not offenders, "ask RepoLayout instead:\n" + "\n".join(offenders)
