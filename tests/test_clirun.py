"""The in-process CLI runner (``tests.clirun``) leaves the test process as it found it, and answers as the
process would (tests/cli/test_contract.py compares the two for every verb)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from pathlib import Path

from loguru import logger

from gitops_karmada.cli.logs import logging_format
from tests.clirun import SIGNALS, cli_in_process
from tests.fleet import FleetRepo

ROOT = Path(__file__).parents[1]


def test_an_in_process_call_leaves_the_process_as_it_was(tmp_path: Path) -> None:
    before = (
        Path.cwd(),
        dict(os.environ),
        (sys.stdin, sys.stdout, sys.stderr),
        list(sys.argv),
        gc.get_threshold(),
        gc.isenabled(),
        gc.get_freeze_count(),
        logging_format(),
        threading.active_count(),
        [signal.getsignal(number) for number in SIGNALS],
    )
    repo = FleetRepo.create(tmp_path / "fleet", clusters=1)
    done = cli_in_process(
        repo.path, ["--logging-format", "json", "reconcile"], {"GITOPS_KARMADA_WORKERS": "1"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith('{"ts":')  # the CLI's JSON sink wrote to the captured stderr
    after = (
        Path.cwd(),
        dict(os.environ),
        (sys.stdin, sys.stdout, sys.stderr),
        list(sys.argv),
        gc.get_threshold(),
        gc.isenabled(),
        gc.get_freeze_count(),
        logging_format(),
        threading.active_count(),
        [signal.getsignal(number) for number in SIGNALS],
    )
    assert after == before
    lines: list[str] = []
    sink = logger.add(lines.append, format="{message}")
    try:
        logger.info("after the call")
    finally:
        logger.remove(sink)
    assert lines == ["after the call\n"], "no sink of the call is left, and nothing rewrites the message"


def test_exit_codes_output_and_errors_are_the_processes() -> None:
    version = cli_in_process(ROOT, ["--version"])
    assert (version.returncode, version.stderr) == (0, "")
    assert version.stdout.startswith("gitops-karmada, version ")
    usage = cli_in_process(ROOT, ["render", "-o", "xml"])
    assert usage.returncode == 2 and "Invalid value for '-o'" in usage.stderr and usage.stdout == ""
    missing = cli_in_process(ROOT, ["verify", "--repo", "/nonexistent/fleet"])
    assert missing.returncode in (1, 2) and missing.stderr
