"""Test-wide fixtures: every test runs with a clean Git identity and no user/global Git config.

Tests marked ``long`` (tens of seconds each: the incremental state machines, the kill -9 daemon trials) are
collected first. Under pytest-xdist a worker then starts them at once while the others work through the
rest of the suite, instead of one of them starting last and running alone at the end. How many examples
and trials they run is ``tests.budget``'s.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture(autouse=True)
def _isolated_git(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(Path(home) / ".gitconfig"))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.test")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.test")
    yield


@pytest.fixture(autouse=True)
def _collector_unfrozen() -> Iterator[None]:
    """A test that imports every verb in this process (``cli.all_commands``) makes the CLI freeze what is
    imported (``adapters.gc_tuning``): undone after it, so that the next test of the worker starts as a fresh
    process would (``tests/test_clirun.py`` checks that a CLI call leaves the process as it found it)."""
    frozen = gc.get_freeze_count()
    yield
    if not frozen and gc.get_freeze_count():
        gc.unfreeze()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "long: runs for several seconds or more; collected first (see conftest)"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: the order otherwise kept


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/*/expected from the current output (review the diff before committing)",
    )
