"""Golden scenarios: a source fleet reconciled through the real Git adapter equals ``expected/`` exactly."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from tests.fleet import FleetRepo
from tests.gitrepos import git

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {"repo-layout": ROOT / "repo-layout"}
MANAGED = ("clusters", "karmada-state")


def _tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text()
        for folder in MANAGED
        if (root / folder).is_dir()
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_golden_scenario(scenario: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    work = tmp_path / scenario
    shutil.copytree(SCENARIOS[scenario], work)
    git(work, "init", "-q", "-b", "main")
    repo = FleetRepo(work)
    repo.commit("fleet")
    repo.cli("reconcile")
    actual = _tree(work)
    expected_root = Path(__file__).parent / scenario / "expected"
    if request.config.getoption("--update-golden"):
        shutil.rmtree(expected_root, ignore_errors=True)
        for rel, content in actual.items():
            (expected_root / rel).parent.mkdir(parents=True, exist_ok=True)
            (expected_root / rel).write_text(content)
    expected = _tree(expected_root)
    assert sorted(actual) == sorted(expected), "files differ: " + ", ".join(sorted(set(actual) ^ set(expected)))
    mismatched = [rel for rel in sorted(expected) if actual[rel] != expected[rel]]
    diffs = [
        "".join(difflib.unified_diff(expected[rel].splitlines(True), actual[rel].splitlines(True), rel, rel))
        for rel in mismatched[:3]
    ]
    assert not mismatched, f"{len(mismatched)} file(s) differ; first diffs:\n" + "\n".join(diffs)
    # the repository's own inputs are untouched and a second run changes nothing
    assert "no commit needed" in repo.cli("reconcile").stdout
