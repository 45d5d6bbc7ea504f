"""The README's quick start stays true: ``gitops-karmada demo`` prints the block the README shows after "The
demo prints:" (placement table, quota table, commit line), the commit id aside."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
COMMIT_ID = re.compile(r"(?<=^committed )[0-9a-f]{12}(?=:)", re.MULTILINE)


def _readme_block() -> str:
    """The code block that follows "The demo prints:" in README.md."""
    text = (ROOT / "README.md").read_text()
    after = text.split("The demo prints:\n", 1)[1]
    opening = after.index("```\n") + len("```\n")
    return after[opening : after.index("```\n", opening)]


def test_the_demo_prints_what_the_readme_shows(tmp_path: Path) -> None:
    # the quick start's job, as it runs it: the demo, from a clone's root (repo-layout/ is its default source)
    done = subprocess.run(
        [sys.executable, "-m", "gitops_karmada", "demo", "--workdir", str(tmp_path / "demo")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    shown = _readme_block()
    first = shown.splitlines()[0]
    lines = done.stdout.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(first.split()[0]))
    end = next(i for i, line in enumerate(lines) if line.startswith("committed ")) + 1
    printed = "".join(lines[start:end])
    assert COMMIT_ID.sub("<commit>", printed) == COMMIT_ID.sub("<commit>", shown)
