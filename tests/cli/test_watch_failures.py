"""Issue 33, item 6: ``watch`` fails clearly: every refused option is one line (JSON under
``--logging-format json``) and its exit code, never a traceback; the daemon's text lines carry their time.

Each case runs the real daemon in a subprocess; the cases run side by side (the machine has 2 CPUs).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.cli.test_reconcile import shop
from tests.cli.watch_harness import TIMEOUT, wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from collections.abc import Iterator

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d ")


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    message: str
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)
    prefix: tuple[str, ...] = ()
    """A command the daemon runs under (``setpriv``: a root that may not bind privileged ports)."""


def _privileged_port() -> tuple[int, tuple[str, ...]] | None:
    """A port this process may not bind, and the command that takes the right away from root; None on a
    machine with no privileged port (``ip_unprivileged_port_start`` 0)."""
    start = int(Path("/proc/sys/net/ipv4/ip_unprivileged_port_start").read_text())
    if start <= 1:
        return None
    if os.geteuid() != 0:
        return start - 1, ()
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "setpriv (util-linux) drops root's right to bind a privileged port"
    return start - 1, (setpriv, "--bounding-set", "-net_bind_service")


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield int(held.getsockname()[1])


def _run(cases: list[Case], repo: Path, *, json_logs: bool) -> list[subprocess.CompletedProcess[str]]:
    """Every case at once; each must end by itself (a daemon that starts is a failure of the case)."""
    logging = ("--logging-format", "json") if json_logs else ()
    runs = [
        subprocess.Popen(
            [*case.prefix, sys.executable, "-m", "gitops_karmada", *logging, "watch", "--repo", str(repo),
             *case.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200", **case.env},
        )
        for case in cases
    ]  # fmt: skip
    done = []
    for case, run in zip(cases, runs, strict=True):
        try:
            stdout, stderr = run.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            run.kill()
            run.communicate()
            raise AssertionError(f"{case.args}: the daemon started instead of refusing") from None
        done.append(subprocess.CompletedProcess(run.args, run.returncode, stdout, stderr))
    return done


def _failure_cases(tmp_path: Path, repo: Path, busy_port: int) -> list[Case]:
    empty = tmp_path / "empty-secret"
    empty.write_text("")
    blank = tmp_path / "blank-secret"
    blank.write_text("  \n\t\n")
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    plain = tmp_path / "plain"
    plain.mkdir(exist_ok=True)
    cases = [
        Case(("--listen", f"127.0.0.1:{busy_port}"), f"--listen 127.0.0.1:{busy_port}: the address is already in use"),
        Case(("--listen", "nosuchhost.invalid:8080"), "cannot resolve the host 'nosuchhost.invalid'"),
        Case(("--listen", "localhost"), "--listen 'localhost' is not HOST:PORT (or 'off')"),
        Case(("--listen", "127.0.0.1:0", "--webhook-secret-file", str(empty)), "is empty: put the shared secret in it"),
        Case(("--listen", "127.0.0.1:0", "--webhook-secret-file", str(blank)), "is empty: put the shared secret in it"),
        Case(("--listen", "127.0.0.1:0"), "GITOPS_KARMADA_WEBHOOK_SECRET holds only whitespace",
             env={"GITOPS_KARMADA_WEBHOOK_SECRET": " \n"}),
        Case(("--listen", "off", "--webhook-secret-file", str(secret)), "--listen is off: nothing would receive"),
        Case(("--listen", "127.0.0.1:0", "--branch", "nope"), f"--branch nope: {repo} has no commit on it"),
        Case(("--listen", "off", "--collect", "member1"), "--collect 'member1' is not NAME=KUBECONFIG[@CONTEXT]"),
        Case(("--listen", "off", "--repo", str(plain)), "is not a git repository", code=1),
    ]  # fmt: skip
    privileged = _privileged_port()
    if privileged is not None:  # a machine where every port may be bound has no such case
        port, prefix = privileged
        cases.append(
            Case(
                ("--listen", f"127.0.0.1:{port}"),
                f"--listen 127.0.0.1:{port}: permission denied (ports below 1024 are privileged)"
                if port < 1024
                else f"--listen 127.0.0.1:{port}: permission denied",
                prefix=prefix,
            )
        )
    return cases


@pytest.mark.parametrize("json_logs", [False, True], ids=["text", "json"])
def test_every_refused_option_is_one_line_and_its_exit_code(
    tmp_path: Path, busy_port: int, json_logs: bool
) -> None:
    repo = shop(tmp_path).path
    cases = _failure_cases(tmp_path, repo, busy_port)
    for case, done in zip(cases, _run(cases, repo, json_logs=json_logs), strict=True):
        lines = done.stderr.splitlines()
        assert done.returncode == case.code, (case.args, done.stderr)
        assert "Traceback" not in done.stderr, (case.args, done.stderr)
        assert len(lines) == 1, (case.args, done.stderr)
        assert done.stdout == ""
        if json_logs:
            entry = json.loads(lines[0])
            assert entry["level"] == "error" and case.message in entry["msg"], (case.args, entry)
        else:
            assert "error: " + case.message in lines[0] or case.message in lines[0], (case.args, lines[0])


def test_a_detached_head_and_click_errors_are_one_json_line_too(tmp_path: Path) -> None:
    repo = shop(tmp_path).path
    git(repo, "checkout", "-q", "--detach")
    cases = [
        Case(("--listen", "127.0.0.1:0"), "HEAD is detached: name the branch with --branch"),
        Case(("--interval", "soon"), "'soon' is not a valid float"),
        Case(("--no-such-option",), "No such option '--no-such-option'"),
    ]
    for case, done in zip(cases, _run(cases, repo, json_logs=True), strict=True):
        assert done.returncode == 2, (case.args, done.stderr)
        [line] = done.stderr.splitlines()
        assert case.message in json.loads(line)["msg"], line
    # click's own usage errors keep click's usage text for people; still no traceback
    for case, done in zip(cases, _run(cases, repo, json_logs=False), strict=True):
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert case.message in done.stderr


def _text_daemon(repo: Path, log: Path, *args: str) -> list[str]:
    """Start the daemon with text logs, wait for its first run, stop it; its lines."""
    command = [sys.executable, "-m", "gitops_karmada", "watch", "--repo", str(repo), "--listen", "127.0.0.1:0",
               "--interval", "60", *args]  # fmt: skip
    with log.open("wb") as out:
        daemon = subprocess.Popen(command, stdout=out, stderr=out)
    try:
        wait_for(lambda: "reconciled " in log.read_text() or daemon.poll() is not None, "the first run")
        assert daemon.poll() is None, log.read_text()
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=TIMEOUT) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    return log.read_text().splitlines()


def test_the_daemons_text_lines_carry_their_time_and_say_whether_the_webhook_is_on(tmp_path: Path) -> None:
    fleet = shop(tmp_path)
    lines = _text_daemon(fleet.path, tmp_path / "off.log")
    assert lines and all(TIMESTAMP.match(line) for line in lines), lines
    assert any("webhook off: no secret given (--webhook-secret-file)" in line for line in lines), lines
    assert any(line.endswith("stopped") for line in lines)
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    lines = _text_daemon(fleet.path, tmp_path / "on.log", "--webhook-secret-file", str(secret))
    assert any(re.search(r"webhook on: POST http://127\.0\.0\.1:\d+/hooks/git", line) for line in lines), (
        lines
    )
    # the short commands keep a CLI's plain lines
    fleet.write("apps/web.yaml", fleet.read("apps/web.yaml").replace("replicas: 4", "replicas: 5"))
    fleet.commit("scale")
    done = fleet.cli("reconcile")
    assert done.stderr and not any(TIMESTAMP.match(line) for line in done.stderr.splitlines()), done.stderr


def test_what_the_system_refuses_is_one_line_anywhere(tmp_path: Path) -> None:
    fleet = shop(tmp_path)
    done = fleet.cli("render", "--out", "/proc/no-such-folder", check=1)
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line == "error: No such file or directory: /proc/no-such-folder"
    debug = fleet.cli("--log-level", "debug", "render", "--out", "/proc/no-such-folder", check=1)
    assert "Traceback" in debug.stderr  # asked for: where it was raised
