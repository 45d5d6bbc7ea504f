"""The console script leaves the process without tearing down its heap (``cli.run``), and still exits as a
normal exit would: the same code, its exit handlers run, its output flushed, a running thread waited for."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import atexit, sys, threading, time
from gitops_karmada.cli import run
atexit.register(lambda: print("exit handler ran"))
sys.stdout.write("unflushed ")
if "--thread" in sys.argv:
    sys.argv.remove("--thread")
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread finished"))).start()
sys.argv[0] = "gitops-karmada"
run()
"""


def probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=False)


def test_a_command_exits_with_its_code_its_output_flushed_and_its_exit_handlers_run() -> None:
    done = probe("--version")
    assert done.returncode == 0, done.stderr
    assert "unflushed gitops-karmada, version" in done.stdout and "exit handler ran" in done.stdout
    usage = probe("reconcile", "--no-such-option")
    assert usage.returncode == 2 and "exit handler ran" in usage.stdout
    refused = probe("reconcile", "--repo", "/nonexistent/repository")
    assert refused.returncode == 1, refused.stderr


def test_a_thread_still_running_is_waited_for() -> None:
    done = probe("--thread", "--version")
    assert done.returncode == 0, done.stderr
    assert "thread finished" in done.stdout and "exit handler ran" in done.stdout


def test_the_entry_points_are_the_quick_exit() -> None:
    from importlib.metadata import entry_points

    (script,) = (e for e in entry_points(group="console_scripts") if e.name == "gitops-karmada")
    assert script.value == "gitops_karmada.cli:run"
    module = subprocess.run(
        [sys.executable, "-m", "gitops_karmada", "--version"], capture_output=True, text=True, check=False
    )
    assert module.returncode == 0 and module.stdout.startswith("gitops-karmada, version")
