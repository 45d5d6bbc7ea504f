"""Every entry point runs with the collector tuned: a one-shot command collects no cycles, the daemon collects
them at thresholds for a heap that only grows during a run."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from gitops_karmada.adapters.gc_tuning import THRESHOLDS

if TYPE_CHECKING:
    from pathlib import Path

PROBE = """
import gc
from gitops_karmada import cli
try:
    cli.main(["--version"])
except SystemExit:
    print(*gc.get_threshold(), gc.get_freeze_count() > 0, gc.isenabled())
"""


def test_a_one_shot_command_collects_no_cycles_and_never_rescans_the_imports() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-5:] == [*(str(t) for t in THRESHOLDS), "True", "False"], done.stdout
    assert THRESHOLDS[0] > 700, "fewer young collections than CPython's default, once the daemon collects"


def test_the_daemon_collects_cycles_at_the_tuned_thresholds(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    probe = PROBE.replace(
        '["--version"]',
        repr(["watch", "--repo", str(tmp_path), "--listen", "off", "--webhook-secret-file", str(secret)]),
    )
    # refused once the daemon's settings are read (a secret for a webhook that is off): past the point where
    # the daemon turns collection back on, and before it would run
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "--listen is off" in done.stderr
    assert done.stdout.split()[-5:] == [*(str(t) for t in THRESHOLDS), "True", "True"], done.stdout
