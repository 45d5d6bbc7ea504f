"""The ``watch`` daemon as a real subprocess, bare remotes on disk and users pushing to them (no tests here)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.action.scenarios import REPO_LAYOUT
from tests.cli.test_push import shop_remote
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

TIMEOUT = 60.0


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@dataclass
class Daemon:
    process: subprocess.Popen[bytes]
    log_path: Path
    offset: int = 0
    """Where this daemon's lines start in a log file that earlier daemons wrote to."""
    url: str = ""

    @classmethod
    def start(cls, repo: Path, *args: str, log_path: Path, env: dict[str, str] | None = None) -> Daemon:
        """The daemon on ``repo`` with ``args``; pushes are not held back (``--push-interval 0``) unless
        ``args`` names another interval (the last one given counts)."""
        command = [sys.executable, "-m", "gitops_karmada", "--logging-format", "json", "--log-level", "debug",
                   "watch", "--repo", str(repo), "--listen", "127.0.0.1:0", "--push-interval", "0",
                   *args]  # fmt: skip
        offset = log_path.stat().st_size if log_path.exists() else 0
        with log_path.open("ab") as log:
            process = subprocess.Popen(command, stdout=log, stderr=log, env={**os.environ, **(env or {})})
        daemon = cls(process, log_path, offset)
        wait_for(lambda: daemon._listening() or daemon.process.poll() is not None, "the daemon to listen")
        assert daemon.process.poll() is None, daemon.log()
        return daemon

    def _listening(self) -> bool:
        for entry in self.entries():
            if entry.get("listen", "").startswith("http://"):
                self.url = entry["listen"]
                return True
        return False

    def log(self) -> str:
        return self.log_path.read_bytes()[self.offset :].decode(errors="replace")

    def entries(self) -> list[dict[str, Any]]:
        found = []
        for line in self.log().splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as err:
            with err:
                return err.code, err.read().decode()

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> int:
        request = urllib.request.Request(self.url + path, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return int(response.status)
        except urllib.error.HTTPError as err:
            with err:
                return int(err.code)

    def runs(self, result: str | None = None) -> int:
        """``gitops_karmada_reconcile_runs_total`` (of one result, or all)."""
        from prometheus_client.parser import text_string_to_metric_families

        _, text = self.get("/metrics")
        total = 0.0
        for family in text_string_to_metric_families(text):
            if family.name == "gitops_karmada_reconcile_runs":
                for sample in family.samples:
                    if sample.name.endswith("_total") and (
                        result is None or sample.labels["result"] == result
                    ):
                        total += sample.value
        return int(total)

    def terminate(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=TIMEOUT)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=TIMEOUT)

    def __enter__(self) -> Daemon:
        return self

    def __exit__(self, *_: object) -> None:
        if self.process.poll() is None:
            self.kill()


@dataclass
class Remote:
    """A bare remote holding the shop fleet, and a user's clone that pushes to it."""

    bare: Path
    user: FleetRepo
    pushed: list[str] = field(default_factory=list)
    """User commits that reached the remote, in order."""

    @classmethod
    def create(cls, tmp_path: Path, example: bool = False) -> Remote:
        """The shop fleet, or with ``example`` repo-layout/ (its Lua customizations fork a worker)."""
        if example:
            shutil.copytree(REPO_LAYOUT, tmp_path / "example")
            origin = FleetRepo(tmp_path / "example")
            git(origin.path, "init", "-q", "-b", "main")
            origin.commit("example fleet")
            bare = tmp_path / "remote.git"
            git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(bare))
        else:
            bare = shop_remote(tmp_path)
        user = clone(bare, tmp_path / "user")
        return cls(bare, user)

    def tip(self) -> str:
        return git(self.bare, "rev-parse", "refs/heads/main")

    def trailers(self, rev: str) -> dict[str, str]:
        body = git(self.bare, "log", "-1", "--format=%(trailers:only,unfold)", rev)
        return dict(line.split(": ", 1) for line in body.splitlines() if ": " in line)

    def reconciled(self, source: str) -> bool:
        """Whether the remote tip is a reconcile commit of ``source``."""
        return self.trailers(self.tip()).get("Source-Commit") == source

    def tool_commits(self) -> list[str]:
        """Source-Commit trailers of every reconcile commit on the remote branch, oldest first."""
        log = git(self.bare, "log", "--reverse", "--format=%H", "refs/heads/main")
        sources = [self.trailers(sha).get("Source-Commit") for sha in log.splitlines()]
        return [s for s in sources if s]

    def push_change(self, replicas: int, path: str = "apps/web.yaml") -> str:
        """Commit a replica change on the remote tip and push it, retrying after a daemon's push won a race."""
        from tests.builders import deployment

        for _ in range(20):
            git(self.user.path, "fetch", "-q", "origin")
            git(self.user.path, "reset", "-q", "--hard", "origin/main")
            self.user.write(path, deployment("web", "shop", replicas=replicas))
            sha = self.user.commit(f"web: {replicas} replicas")
            done = subprocess.run(["git", "-C", str(self.user.path), "push", "-q", "origin", "main"],
                                  capture_output=True, check=False)  # fmt: skip
            if done.returncode == 0:
                self.pushed.append(sha)
                return sha
            time.sleep(0.05)
        raise AssertionError("could not push a user commit in 20 tries")


def clone(remote: Path, path: Path) -> FleetRepo:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    git(path, "config", "user.email", "user@example.com")
    git(path, "config", "user.name", "A User")
    return FleetRepo(path)
