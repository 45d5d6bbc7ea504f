"""One CLI contract: every entry point answers ``--help`` (exit 0, a usage line), benchmarks included.

The verbs answer in process here; tests/cli/test_contract.py runs each verb once as a process of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gitops_karmada.cli import VERBS, cli
from tests.clirun import cli_in_process

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


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_has_help(verb: str) -> None:
    done = cli_in_process(ROOT, [verb, "--help"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: gitops-karmada {verb} ")


@pytest.mark.parametrize("module", BENCHMARKS)
def test_every_benchmark_has_help(module: str) -> None:
    done = _help(f"benchmarks.{module}" if module != "__main__" else "benchmarks")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")


def test_every_verb_resolves_to_its_command() -> None:
    commands = cli.all_commands()
    assert sorted(commands) == sorted(VERBS)
    assert all(command.name == verb for verb, command in commands.items())


def test_a_verb_imports_only_what_it_uses() -> None:
    """The daemon's libraries (Prometheus client, watchdog, the HTTP server) load for ``watch`` only, not for
    ``--version`` nor for a reconcile; rich's progress bar only on a terminal."""
    probe = (
        "import sys\n"
        "from gitops_karmada.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('prometheus_client', 'watchdog', 'http.server', 'rich', 'deepdiff')\n"
        "print('loaded:', *(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )

    def loaded(*args: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], cwd=ROOT, capture_output=True, text=True, check=False
        )
        return set(done.stderr.strip().splitlines()[-1].split()[1:])

    assert loaded("--version") == set()
    assert loaded("reconcile", "--help") == set()
    assert {"prometheus_client", "watchdog", "http.server"} <= loaded("watch", "--help")
