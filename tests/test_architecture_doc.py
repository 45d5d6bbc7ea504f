"""docs/architecture.md stays a true map of the code, and no doc or docstring names code that is gone.

The page names every package and every module (one line each), its layers block is the import contract
``lint-imports`` enforces, and every dotted name in backticks (``core.layout.RepoLayout``,
``Ports.fan_out``) in the docs, the README and the package's docstrings is a module, or an attribute of one,
or a field of a class the package defines.
"""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gitops_karmada"
MAP = ROOT / "docs" / "architecture.md"
LAYERS = ("cli", "action", "daemon", "usecases", "adapters", "reconcile", "core", "model")
DOTTED = re.compile(rf"`((?:gitops_karmada\.)?(?:{'|'.join(LAYERS)})(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")
MEMBER = re.compile(r"`([A-Z][A-Za-z0-9]+)\.([a-z_]\w*)(?:=\w+|\(\))?`")
SUFFIXES = ("yml", "yaml", "md", "json", "py", "txt")
"""``action.yml``: a file, not a module."""


def _documents() -> list[tuple[str, str]]:
    docs = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    found = [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in docs]
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        strings = [
            node.value.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ]
        found.append((path.relative_to(ROOT).as_posix(), "\n".join(strings)))
    return found


def _has(obj: Any, name: str) -> bool:
    if hasattr(obj, name):
        return True
    fields = {
        **getattr(obj, "__annotations__", {}),
        **getattr(obj, "__dataclass_fields__", {}),
        **getattr(obj, "model_fields", {}),
    }
    return name in fields


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` (``core.layout.RepoLayout.of``) names a module of the package or something in one."""
    parts = dotted.removeprefix("gitops_karmada.").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module("gitops_karmada." + ".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not _has(obj, name):
                return False
            obj = getattr(obj, name, None)
        return True
    return False


@cache
def _classes() -> dict[str, list[tuple[str, str]]]:
    """Class name → the (module, class) pairs that define it in the package."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((module, node.name))
    return found


def member_resolves(cls: str, name: str) -> bool | None:
    """Whether ``cls.name`` is a member of a class the package defines; None when it defines no ``cls``."""
    defined = _classes().get(cls)
    if not defined:
        return None
    return any(_has(getattr(importlib.import_module(m), c), name) for m, c in defined)


def test_every_dotted_name_in_the_docs_and_docstrings_exists() -> None:
    stale = []
    for where, text in _documents():
        for match in DOTTED.finditer(text):
            name = match.group(1)
            if name.rsplit(".", 1)[-1] not in SUFFIXES and not resolves(name):
                stale.append(f"{where}: {name}")
        for match in MEMBER.finditer(text):
            if member_resolves(match.group(1), match.group(2)) is False:
                stale.append(f"{where}: {match.group(1)}.{match.group(2)}")
    assert not stale, "names of code that does not exist:\n" + "\n".join(sorted(set(stale)))


def test_the_map_names_every_package_and_every_module() -> None:
    text = MAP.read_text()
    packages = sorted(
        p.parent.relative_to(PACKAGE).as_posix() + "/"
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE
    )
    modules = sorted(
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if p.parent != PACKAGE and not (p.name == "__init__.py" and p.parent.parent == PACKAGE)
    )
    missing = [name for name in packages + modules if f"`{name}`" not in text]
    assert not missing, "docs/architecture.md does not name: " + ", ".join(missing)


def test_the_maps_layers_are_the_import_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    contract = [
        " | ".join(m.removeprefix("gitops_karmada.") for m in line.split(" | ")) for line in layers["layers"]
    ]
    block = re.search(r"```layers\n(.*?)```", MAP.read_text(), re.DOTALL)
    assert block is not None, "docs/architecture.md has no ```layers block"
    assert block.group(1).split("\n")[:-1] == contract


def test_the_checks_see_a_stale_name() -> None:
    assert resolves("core.layout.RepoLayout.of")
    assert not resolves("core.fan_out.FanOut")  # moved to reconcile.request
    assert member_resolves("Ports", "fan_out") is True
    assert member_resolves("ReconcileRequest", "fan_out") is False
    assert member_resolves("NoSuchClass", "x") is None


def test_every_test_the_security_page_names_exists() -> None:
    """docs/security.md lists each guarantee with the test that holds it (``tests/x.py::test_y``): each named
    test is a function of that file."""
    text = (ROOT / "docs" / "security.md").read_text()
    named = re.findall(r"`(tests/[\w/]+\.py)::(test_\w+)`", text)
    assert len(named) >= 20
    missing = []
    for file, test in named:
        path = ROOT / file
        tests = {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)}
        if test not in tests:
            missing.append(f"{file}::{test}")
    assert not missing, missing
