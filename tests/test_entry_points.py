"""One CLI contract: every entry point answers ``--help`` (exit 0, a usage line), benchmarks included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gitops_karmada.cli import cli

ROOT = Path(__file__).parents[1]
BENCHMARKS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in ("__init__", "fleet"))


def _help(*module_and_args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *module_and_args, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("verb", sorted(cli.commands))
def test_every_verb_has_help(verb: str) -> None:
    done = _help("gitops_karmada", verb)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: gitops-karmada {verb} ")


@pytest.mark.parametrize("module", BENCHMARKS)
def test_every_benchmark_has_help(module: str) -> None:
    done = _help(f"benchmarks.{module}" if module != "__main__" else "benchmarks")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")
