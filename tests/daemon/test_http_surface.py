"""Issue 39: the daemon's HTTP surface under hostile clients, against the real daemon on loopback.

A flood of connections is answered, a connection cap and a read timeout bound what clients hold, huge
headers get 431 and leave memory flat, resets leave one JSON line and no traceback, a deeply nested webhook
body is a 400, the page carries its security headers, routes and methods are checked, the webhook is rate
limited, and a bearer token can protect the page and ``/explain``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.cli.watch_harness import Daemon, Remote, clone, wait_for
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from collections.abc import Iterator

SECRET = b"s3cret"


def _signed(body: bytes, event: str = "push") -> dict[str, str]:
    digest = hmac.new(SECRET, body, hashlib.sha256).hexdigest()
    return {"X-GitHub-Event": event, "X-Hub-Signature-256": f"sha256={digest}"}


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    """A local-mode daemon on the shop fleet with a webhook secret, after its first run."""
    remote = Remote.create(tmp_path)
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    args = ("--interval", "60", "--webhook-secret-file", str(secret), "--http-read-timeout", "1")
    with Daemon.start(remote.bare, *args, log_path=tmp_path / "daemon.log") as started:
        wait_for(lambda: started.runs() == 1, "the initial reconcile")
        yield started


def _address(daemon: Daemon) -> tuple[str, int]:
    host, port = daemon.url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def _exchange(daemon: Daemon, request: bytes, timeout: float = 30) -> bytes:
    """Send ``request`` on a new connection; everything the daemon answers until it closes (or resets)."""
    with socket.create_connection(_address(daemon), timeout=timeout) as sock:
        # it may answer and close before reading everything: the answer is what counts
        with contextlib.suppress(OSError):
            sock.sendall(request)
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answer += chunk
        return answer


def _request(
    daemon: Daemon, method: str, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(daemon.url + path, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read()


def _rss_kib(daemon: Daemon) -> int:
    for line in Path(f"/proc/{daemon.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _refusals(daemon: Daemon, reason: str) -> float:
    """``gitops_karmada_http_refusals_total{reason}``."""
    from prometheus_client.parser import text_string_to_metric_families

    _, text = daemon.get("/metrics")
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "gitops_karmada_http_refusals_total" and sample.labels["reason"] == reason:
                return float(sample.value)
    raise AssertionError(f"no refusal series {reason}")


def _listen_overflows() -> int:
    """The kernel's count of connections dropped because a listen backlog was full (this network namespace)."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=True):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split(), values.split(), strict=True))["ListenOverflows"])
    raise AssertionError("no TcpExt counters")


def _every_line_is_json_without_traceback(daemon: Daemon) -> None:
    lines = daemon.log().splitlines()
    assert lines
    for line in lines:
        json.loads(line)  # raises on a line that is not JSON (a traceback's, say)
    assert "Traceback" not in daemon.log()


def test_a_flood_of_200_connections_is_answered(daemon: Daemon) -> None:
    """200 clients connect at the same moment: the kernel's backlog takes them all at once (with the standard
    library's backlog of 5, most connection attempts overflowed it: dropped, and retried a second later)."""
    start = threading.Barrier(200)
    answers: list[bytes] = []
    overflows = _listen_overflows()

    def get() -> None:
        start.wait()
        with socket.create_connection(_address(daemon), timeout=30) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            answers.append(answer)

    threads = [threading.Thread(target=get) for _ in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == 200 and all(a.startswith(b"HTTP/1.1 200") for a in answers)
    assert _listen_overflows() == overflows, "connection attempts overflowed the listen backlog"


def test_connections_are_capped_and_a_slow_client_is_dropped(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    args = ("--interval", "60", "--http-max-connections", "3", "--http-read-timeout", "3")
    with Daemon.start(remote.bare, *args, log_path=tmp_path / "daemon.log") as daemon:
        # three clients that send nothing hold every slot: the next waits for one, then hears 503
        idle = [socket.create_connection(_address(daemon)) for _ in range(3)]
        time.sleep(0.5)
        assert _exchange(daemon, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 503")
        # the read timeout drops them, and their slots serve again
        for sock in idle:
            sock.settimeout(30)
            assert sock.recv(100) == b""
            sock.close()
        assert _request(daemon, "GET", "/healthz")[0] == 200
        # a client sending a byte every 0.5 s is dropped too, mid-request, after the read timeout
        started = time.monotonic()
        with socket.create_connection(_address(daemon)) as slow:
            try:
                for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\n" * 10:
                    slow.sendall(bytes([byte]))
                    time.sleep(0.5)
                raise AssertionError("the slow client was never dropped")
            except OSError:
                pass
        assert time.monotonic() - started < 20
        assert _refusals(daemon, "busy") == 1
        assert _refusals(daemon, "read_timeout") >= 4
        _every_line_is_json_without_traceback(daemon)


def test_headers_beyond_64_kib_get_431_and_memory_stays_flat(daemon: Daemon) -> None:
    header = "X-Filler: " + "a" * 1000 + "\r\n"
    request = ("GET /healthz HTTP/1.1\r\nHost: x\r\n" + header * 70 + "\r\n").encode()
    assert _exchange(daemon, request).startswith(b"HTTP/1.1 431")
    fine = ("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + header * 50 + "\r\n").encode()
    assert _exchange(daemon, fine).startswith(b"HTTP/1.1 200")
    before = _rss_kib(daemon)
    huge = ("GET / HTTP/1.1\r\nHost: x\r\n" + ("X-Big: " + "b" * 60000 + "\r\n") * 100 + "\r\n").encode()
    threads = [threading.Thread(target=_exchange, args=(daemon, huge)) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    after = _rss_kib(daemon)
    # 30 requests of 6 MB of headers each: the standard library kept about 300 MB; here, a few MB
    assert after - before < 40 * 1024, (before, after)
    assert _refusals(daemon, "headers_too_large") == 31
    assert _request(daemon, "GET", "/healthz")[0] == 200


def test_resets_and_early_closes_leave_one_json_line_each_and_no_traceback(daemon: Daemon) -> None:
    linger = struct.pack("ii", 1, 0)  # close with a reset
    for request in (
        b"GET / HTTP/1.1\r\nHost",
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /hooks/git HTTP/1.1\r\nContent-Length: 100\r\n\r\n{",
    ):
        for _ in range(10):
            sock = socket.create_connection(_address(daemon))
            sock.sendall(request)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            sock.close()
    time.sleep(1)
    assert _request(daemon, "GET", "/healthz")[0] == 200
    _every_line_is_json_without_traceback(daemon)


def test_a_deeply_nested_webhook_body_is_a_400(daemon: Daemon) -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    assert daemon.post("/hooks/git", body, _signed(body)) == 400
    assert any("nested too deeply" in e.get("msg", "") for e in daemon.entries())
    assert _request(daemon, "GET", "/healthz")[0] == 200
    _every_line_is_json_without_traceback(daemon)


def test_every_answer_carries_the_security_headers(daemon: Daemon) -> None:
    for path in ("/", "/explain?template=Deployment.apps/shop/web", "/nope", "/explain"):
        _, headers, _ = _request(daemon, "GET", path)
        policy = headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, path
        assert "script-src" not in policy, "no script may run, inline or not"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"


def test_routes_methods_and_explain_parameters_are_checked(daemon: Daemon) -> None:
    assert _request(daemon, "GET", "/nope")[0] == 404
    assert _request(daemon, "GET", "/index.html")[0] == 404
    status, headers, _ = _request(daemon, "PUT", "/")
    assert (status, headers["Allow"]) == (405, "GET, HEAD")
    status, headers, _ = _request(daemon, "DELETE", "/hooks/git")
    assert (status, headers["Allow"]) == (405, "POST")
    assert _request(daemon, "POST", "/metrics")[0] == 405
    assert _request(daemon, "GET", "/hooks/git")[0] == 405
    status, headers, body = _request(daemon, "HEAD", "/")
    assert (status, body) == (200, b"") and int(headers["Content-Length"]) > 0
    assert _request(daemon, "GET", "/explain?template=Deployment.apps/shop/web")[0] == 200
    for query, reason in (
        ("", b"give template=KIND/NS/NAME once"),
        ("?template=", b"give template=KIND/NS/NAME once"),
        ("?template=a&template=b", b"give template=KIND/NS/NAME once"),
        ("?template=Deployment.apps/shop/web&debug=1", b"unknown parameter(s): debug"),
        ("?template=" + "x" * 2000, b"at most 1024 characters"),
        ("?template=a%00b", b"printable"),
        ("?a=1&b=2&c=3&d=4&e=5", b"malformed"),
    ):
        status, _, body = _request(daemon, "GET", "/explain" + query)
        assert status == 400 and reason in body, (query, status, body)


def test_a_webhook_flood_gets_429_and_a_push_is_still_reconciled(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    work = tmp_path / "work"
    clone(remote.bare, work)
    args = (
        "--remote",
        "origin",
        "--interval",
        "60",
        "--webhook-secret-file",
        str(secret),
        "--webhook-rate",
        "5",
    )
    with Daemon.start(work, *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        source = remote.push_change(5)
        push = json.dumps({"ref": "refs/heads/main"}).encode()
        answers: list[int] = []

        def deliver() -> None:
            for _ in range(20):
                answers.append(daemon.post("/hooks/git", push, _signed(push)))

        threads = [threading.Thread(target=deliver) for _ in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(answers) == 200 and set(answers) == {202, 429}, sorted(set(answers))
        assert answers.count(429) >= 150, "a burst of 10 then 5 a second"
        assert _refusals(daemon, "rate_limited") == answers.count(429)
        too_large = b"x" * (6 * 1024 * 1024)
        assert daemon.post("/hooks/git", too_large, _signed(too_large)) == 413
        assert _refusals(daemon, "body_too_large") == 1
        wait_for(lambda: remote.reconciled(source), "the push the webhooks announced", timeout=20)


def test_a_bearer_token_protects_the_page_and_explain(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    token = tmp_path / "token"
    token.write_text("t0ken-for-the-page\n")
    args = ("--interval", "60", "--token-file", str(token))
    with Daemon.start(remote.bare, *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        good = {"Authorization": "Bearer t0ken-for-the-page"}
        for path in ("/", "/explain?template=Deployment.apps/shop/web"):
            status, headers, _ = _request(daemon, "GET", path)
            assert (status, headers["WWW-Authenticate"]) == (401, 'Bearer realm="gitops-karmada"'), path
            assert _request(daemon, "GET", path, {"Authorization": "Bearer wrong"})[0] == 401
            assert _request(daemon, "GET", path, good)[0] == 200, path
        for path in ("/healthz", "/readyz", "/metrics"):
            assert _request(daemon, "GET", path)[0] == 200, path
        assert _refusals(daemon, "unauthorized") == 4
        assert daemon.terminate() == 0
    with Daemon.start(remote.bare, *args, "--token-for-metrics", log_path=tmp_path / "metrics.log") as daemon:
        assert _request(daemon, "GET", "/metrics")[0] == 401
        assert _request(daemon, "GET", "/metrics", {"Authorization": "Bearer t0ken-for-the-page"})[0] == 200
        assert _request(daemon, "GET", "/healthz")[0] == 200
    token.write_text("\n")
    repo = FleetRepo(remote.bare)
    done = repo.cli("watch", "--listen", "127.0.0.1:0", "--token-file", str(token), check=2)
    assert "put one token in it" in done.stderr


@pytest.mark.long
def test_explain_never_waits_long_for_a_run_and_runs_one_at_a_time(tmp_path: Path) -> None:
    """A ``git`` on PATH that holds the run's ``fast-import`` for 8 s while ``slow`` exists: a run in
    progress for that long, deterministically."""
    import os
    import shutil

    from tests.gitrepos import git

    remote = Remote.create(tmp_path)
    real_git = shutil.which("git")
    slow = tmp_path / "slow"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        f'#!/bin/sh\ncase " $* " in *" fast-import "*) if [ -f {slow} ]; then rm -f {slow}; sleep 8; fi;; esac\n'
        f'exec {real_git} "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {"PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}
    explain = "/explain?template=Deployment.apps/shop/web"
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log", env=env) as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        assert _request(daemon, "GET", explain)[0] == 200
        slow.touch()
        source = remote.push_change(6)
        wait_for(lambda: not slow.exists(), "the run to reach its fast-import")
        answers: list[tuple[int, bytes]] = []
        first = threading.Thread(target=lambda: answers.append(_request(daemon, "GET", explain)[::2]))
        first.start()
        time.sleep(1)  # the first explain is waiting for the run
        status, _, body = _request(daemon, "GET", explain)
        assert status == 503 and b"another explain" in body, body
        assert _request(daemon, "GET", "/healthz")[0] == 200
        first.join(timeout=30)
        [(status, body)] = answers
        assert status == 503 and b"a reconcile run is in progress" in body, body
        wait_for(lambda: remote.reconciled(source), "the slow run's commit")
        assert _request(daemon, "GET", explain)[0] == 200
        git(remote.bare, "fsck", "--no-progress")
