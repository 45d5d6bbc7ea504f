"""The daemon's HTTP endpoints, on the standard library's threading server.

``/healthz`` (the process answers), ``/readyz`` (a run has succeeded and failures, if any, are within the
retry budget), ``/metrics`` (Prometheus), ``/`` (the status page), ``/explain?template=KIND/NS/NAME``,
and ``POST /hooks/git`` (a GitHub or GitLab push webhook; only when a secret is configured).
"""

from __future__ import annotations

import errno
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from loguru import logger
from prometheus_client import CONTENT_TYPE_LATEST

from gitops_karmada.daemon.page import explain_page, status_page
from gitops_karmada.daemon.settings import SettingsError
from gitops_karmada.daemon.webhook import MAX_BODY_BYTES, Verdict, decide
from gitops_karmada.model.errors import NotFoundError, UsageError
from gitops_karmada.usecases.explain import explain_commit, explanation_text, find_outcome

DRAIN_LIMIT_BYTES = 64 * 1024 * 1024
"""An oversized body is read and dropped up to this size (then the connection is closed)."""

if TYPE_CHECKING:
    from gitops_karmada.daemon.metrics import DaemonMetrics
    from gitops_karmada.daemon.status import DaemonStatus
    from gitops_karmada.daemon.worker import Worker


@dataclass(frozen=True, slots=True)
class App:
    worker: Worker
    status: DaemonStatus
    metrics: DaemonMetrics
    webhook_secret: bytes | None

    def explain(self, template: str) -> tuple[int, str]:
        """(HTTP status, text) of ``explain`` for ``template`` at the last reconciled commit."""
        reconciled = self.status.read().reconciled
        if not reconciled:
            return 503, "nothing reconciled yet"
        try:
            with self.worker.lock:  # never read while a run writes the caches
                result = explain_commit(self.worker.store, reconciled, template)
            if not result.input_ok:
                return 409, "the reconciled commit does not render any more"
            return 200, explanation_text(find_outcome(result, template))
        except UsageError as err:
            return 400, str(err)
        except NotFoundError as err:
            return 404, str(err)


class _Handler(BaseHTTPRequestHandler):
    app: App
    server_version = "gitops-karmada"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        logger.bind(logger="http", client=self.client_address[0]).debug("{}", format % args)

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        app = self.app
        if url.path == "/healthz":
            return self._send(200, b"ok\n", "text/plain; charset=utf-8")
        if url.path == "/readyz":
            ready = app.status.is_ready(time.time(), app.worker.settings.retry_budget)
            return self._send(200 if ready else 503, b"ready\n" if ready else b"not ready\n", "text/plain")
        if url.path == "/metrics":
            return self._send(200, app.metrics.exposition(), CONTENT_TYPE_LATEST)
        if url.path == "/":
            ready = app.status.is_ready(time.time(), app.worker.settings.retry_budget)
            page = status_page(app.status.read(), ready=ready)
            return self._send(200, page.encode(), "text/html; charset=utf-8")
        if url.path == "/explain":
            template = urllib.parse.parse_qs(url.query).get("template", [""])[0]
            code, text = app.explain(template)
            return self._send(code, explain_page(template, text).encode(), "text/html; charset=utf-8")
        return self._send(404, b"not found\n", "text/plain")

    def do_POST(self) -> None:
        app = self.app
        if urllib.parse.urlsplit(self.path).path != "/hooks/git" or app.webhook_secret is None:
            return self._send(404, b"not found\n", "text/plain")
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            return self._send(400, b"bad Content-Length\n", "text/plain")
        if length > MAX_BODY_BYTES:
            # drain what a sender may still be writing (up to a bound), so that it reads the answer
            self.close_connection = True
            remaining = min(length, DRAIN_LIMIT_BYTES)
            while remaining > 0 and (chunk := self.rfile.read(min(remaining, 1 << 16))):
                remaining -= len(chunk)
            return self._send(413, b"payload too large\n", "text/plain")
        body = self.rfile.read(length) if length > 0 else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        decision = decide(headers, body, app.webhook_secret, app.worker.settings.ref)
        logger.bind(logger="http", verdict=decision.verdict.name.lower()).info("webhook: {}", decision.reason)
        if decision.verdict is Verdict.TRIGGER:
            app.worker.trigger("webhook")
        return self._send(decision.verdict.value, (decision.reason + "\n").encode(), "text/plain")

    def _send(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def bind_problem(host: str, port: int, err: OSError) -> str:
    """One line saying why ``--listen HOST:PORT`` cannot be served, and what to do."""
    where = f"--listen {host}:{port}"
    if isinstance(err, socket.gaierror):
        return f"{where}: cannot resolve the host {host!r} ({err.strerror}); give an address or a known name"
    if err.errno == errno.EADDRINUSE:
        return f"{where}: the address is already in use; pick another port, or 0 for a free one"
    if err.errno == errno.EACCES:
        privileged = " (ports below 1024 are privileged)" if 0 < port < 1024 else ""
        return f"{where}: permission denied{privileged}; pick a port of 1024 or more"
    if err.errno == errno.EADDRNOTAVAIL:
        return f"{where}: {host} is not an address of this machine"
    return f"{where}: cannot listen there: {err.strerror or err}"


class HttpServer:
    def __init__(self, app: App, host: str, port: int) -> None:
        """Binds ``host:port`` now; ``SettingsError`` (one line) when it cannot be bound."""
        handler = type("Handler", (_Handler,), {"app": app})
        try:
            self.server = ThreadingHTTPServer((host, port), handler)
        except OSError as err:
            raise SettingsError(bind_problem(host, port, err)) from None
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2})

    @property
    def address(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
