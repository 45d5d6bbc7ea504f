"""Every entry point runs with the collector tuned for a heap that only grows during a run."""

from __future__ import annotations

import subprocess
import sys

from gitops_karmada.adapters.gc_tuning import THRESHOLDS

PROBE = """
import gc
from gitops_karmada import cli
try:
    cli.main(["--version"])
except SystemExit:
    print(*gc.get_threshold(), gc.get_freeze_count() > 0)
"""


def test_the_cli_collects_young_objects_less_often_and_never_rescans_the_imports() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-4:] == [*(str(t) for t in THRESHOLDS), "True"], done.stdout
    assert THRESHOLDS[0] > 700, "fewer young collections than CPython's default"
