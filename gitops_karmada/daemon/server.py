"""The daemon's HTTP endpoints, on the standard library's threading server.

``/healthz`` (the process answers), ``/readyz`` (a run has succeeded and failures, if any, are within the
retry budget), ``/metrics`` (Prometheus), ``/`` (the status page), ``/explain?template=KIND/NS/NAME``,
and ``POST /hooks/git`` (a GitHub or GitLab push webhook; only when a secret is configured).

Hardened for an open port (docs/security.md): GET and HEAD only (POST on the webhook), 404 and 405 otherwise;
``/explain``'s one parameter checked; security headers on every answer (a CSP without script); an optional
bearer token for the page and ``/explain``; the webhook rate limited; the server's own bounds (backlog,
connections, read deadline, header bytes) are in ``connections`` and ``header_budget``.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from loguru import logger
from prometheus_client import CONTENT_TYPE_LATEST

from gitops_karmada.daemon.connections import QUIET_ERRORS, BoundedHTTPServer
from gitops_karmada.daemon.header_budget import HeaderBudget, HeadersTooLarge
from gitops_karmada.daemon.page import explain_page, status_page
from gitops_karmada.daemon.rate_limit import TokenBucket
from gitops_karmada.daemon.settings import HttpAccess, HttpLimits, SettingsError
from gitops_karmada.daemon.webhook import MAX_BODY_BYTES, Verdict, decide
from gitops_karmada.model.errors import NotFoundError, UsageError
from gitops_karmada.usecases.explain import explain_commit, explanation_text, find_outcome

EXPLAIN_WAIT_SECONDS = 5.0
"""How long ``/explain`` waits for a run in progress to finish before it answers 503."""
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
    limits: HttpLimits = field(default_factory=HttpLimits)
    access: HttpAccess = field(default_factory=HttpAccess)
    webhook_rate: TokenBucket = field(init=False)
    explaining: threading.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        # frozen: made once, from the limits
        bucket = TokenBucket(self.limits.webhooks_per_second, self.limits.webhook_burst)
        object.__setattr__(self, "webhook_rate", bucket)
        object.__setattr__(self, "explaining", threading.Semaphore(1))

    def explain(self, template: str) -> tuple[int, str]:
        """(HTTP status, text) of ``explain`` for ``template`` at the last reconciled commit."""
        reconciled = self.status.read().reconciled
        if not reconciled:
            return 503, "nothing reconciled yet"
        # one explain at a time, and never waiting long for a run: a flood of them neither holds every
        # connection slot nor keeps the worker from its lock
        if not self.explaining.acquire(blocking=False):
            return 503, "another explain is being computed; retry"
        try:
            if not self.worker.lock.acquire(timeout=EXPLAIN_WAIT_SECONDS):
                return 503, "a reconcile run is in progress; retry in a moment"
            try:  # never read while a run writes the caches
                result = explain_commit(self.worker.store, reconciled, template)
            finally:
                self.worker.lock.release()
            if not result.input_ok:
                return 409, "the reconciled commit does not render any more"
            return 200, explanation_text(find_outcome(result, template))
        except UsageError as err:
            return 400, str(err)
        except NotFoundError as err:
            return 404, str(err)
        finally:
            self.explaining.release()


SECURITY_HEADERS = (
    # no script may run and nothing may load from elsewhere; the page's own inline styles are allowed
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
)
"""Sent with every answer (the page, ``/explain``, errors)."""
READ_ROUTES = frozenset({"/healthz", "/readyz", "/metrics", "/", "/explain"})
WEBHOOK_PATH = "/hooks/git"
MAX_TEMPLATE_CHARS = 1024
"""A template key is KIND/NS/NAME: Kubernetes names are at most 253 characters each."""
SOCKET_TIMEOUT_SECONDS = 30.0
"""A client that stops reading its answer is dropped after this long (a write that blocks)."""


def template_parameter(query: str) -> str:
    """``/explain``'s one parameter, ``template`` given once; ValueError saying what is wrong otherwise."""
    try:
        fields = urllib.parse.parse_qsl(
            query, keep_blank_values=True, strict_parsing=bool(query), max_num_fields=4
        )
    except ValueError:
        raise ValueError("the query string is malformed") from None
    names = sorted({name for name, _ in fields} - {"template"})
    if names:
        raise ValueError(f"unknown parameter(s): {', '.join(names)} (only template=KIND/NS/NAME)")
    values = [value for _, value in fields]
    if len(values) != 1 or not values[0]:
        raise ValueError("give template=KIND/NS/NAME once")
    template = values[0]
    if len(template) > MAX_TEMPLATE_CHARS or not template.isprintable():
        raise ValueError(f"template must be printable and at most {MAX_TEMPLATE_CHARS} characters")
    return template


class _Handler(BaseHTTPRequestHandler):
    app: App
    server: BoundedHTTPServer
    budget: HeaderBudget
    answering: bool
    """Whether this request's answer was begun (``send_response``): past that, a failure can only close."""
    server_version = "gitops-karmada"
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_SECONDS

    def log_message(self, format: str, *args: Any) -> None:
        logger.bind(logger="http", client=self.client_address[0]).debug("{}", format % args)

    def setup(self) -> None:
        super().setup()
        self.budget = HeaderBudget(self.rfile, self.server.limits.header_bytes)
        self.rfile = self.budget  # type: ignore[assignment]  # reads like the file it wraps

    def handle_one_request(self) -> None:
        # the request line and headers must arrive within the read timeout (an idle keep-alive too)
        self.server.deadlines.arm(self.connection, self.server.limits.read_timeout)
        self.budget.reset()
        self.answering = False
        try:
            super().handle_one_request()
        except HeadersTooLarge:  # the request line alone is over the budget
            self.requestline, self.request_version, self.command = "", "", ""
            self._refuse_headers()
        except QUIET_ERRORS:
            raise  # the client went away: one debug line (``BoundedHTTPServer.handle_error``)
        except Exception as err:  # a bug: the client gets a 500, the log one record with the traceback
            self._failed(err)

    def send_response(self, code: int, message: str | None = None) -> None:
        self.answering = True
        super().send_response(code, message)

    def _failed(self, err: Exception) -> None:
        path = urllib.parse.urlsplit(self.path).path
        logger.bind(logger="http", client=self.client_address[0]).opt(exception=err).error(
            "{} {} failed: {}: {}", self.command, path, type(err).__name__, " ".join(str(err).split())
        )
        self.close_connection = True
        if self.answering:  # part of an answer is out: nothing but closing can follow it
            return
        with contextlib.suppress(OSError):
            self._send(500, b"internal error; see the daemon's log\n", "text/plain",
                       body=self.command != "HEAD")  # fmt: skip

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        self.server.deadlines.disarm(self.connection)
        if not parsed and self.budget.spent:
            self.server.refused("headers_too_large")
            self._drain(1 << 20)  # so that the client reads the 431 rather than a reset
        return parsed

    def _refuse_headers(self) -> None:
        self.server.refused("headers_too_large")
        self.close_connection = True
        self.send_error(431, "Request Header Fields Too Large")
        self._drain(1 << 20)

    def end_headers(self) -> None:
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        super().end_headers()

    def do_HEAD(self) -> None:
        self._get(body=False)

    def do_GET(self) -> None:
        self._get(body=True)

    def _get(self, *, body: bool) -> None:
        url = urllib.parse.urlsplit(self.path)
        app = self.app
        if url.path not in READ_ROUTES:
            return self._not_found_or_not_allowed(url.path, body=body)
        if url.path in app.access.protected and not self._authorized():
            self.server.refused("unauthorized")
            return self._send(401, b"a bearer token is needed\n", "text/plain", body=body,
                              extra=(("WWW-Authenticate", 'Bearer realm="gitops-karmada"'),))  # fmt: skip
        if url.path == "/healthz":
            return self._send(200, b"ok\n", "text/plain; charset=utf-8", body=body)
        if url.path == "/readyz":
            ready = app.status.is_ready(time.time(), app.worker.settings.retry_budget)
            answer = b"ready\n" if ready else b"not ready\n"
            return self._send(200 if ready else 503, answer, "text/plain", body=body)
        if url.path == "/metrics":
            return self._send(200, app.metrics.exposition(), CONTENT_TYPE_LATEST, body=body)
        if url.path == "/":
            ready = app.status.is_ready(time.time(), app.worker.settings.retry_budget)
            page = status_page(app.status.read(), ready=ready)
            return self._send(200, page.encode(), "text/html; charset=utf-8", body=body)
        try:
            template = template_parameter(url.query)
        except ValueError as err:
            return self._send(400, f"/explain: {err}\n".encode(), "text/plain; charset=utf-8", body=body)
        code, text = app.explain(template)
        return self._send(code, explain_page(template, text).encode(), "text/html; charset=utf-8", body=body)

    def do_POST(self) -> None:
        app = self.app
        path = urllib.parse.urlsplit(self.path).path
        if path != WEBHOOK_PATH or app.webhook_secret is None:
            return self._not_found_or_not_allowed(path, body=True)
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            return self._send(400, b"bad Content-Length\n", "text/plain")
        if length > MAX_BODY_BYTES:
            self.server.refused("body_too_large")
            self._drain(min(length, DRAIN_LIMIT_BYTES))  # so that a sender still writing reads the answer
            return self._send(413, b"payload too large\n", "text/plain")
        if not app.webhook_rate.take():  # before the body is read or its signature checked: cheap
            self.server.refused("rate_limited")
            self._drain(length)
            return self._send(429, b"too many webhook deliveries; retry later\n", "text/plain",
                              extra=(("Retry-After", "1"),))  # fmt: skip
        self.server.deadlines.arm(self.connection, self.server.limits.read_timeout)
        body = self.rfile.read(length) if length > 0 else b""
        self.server.deadlines.disarm(self.connection)
        if len(body) < length:
            self.close_connection = True
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        decision = decide(headers, body, app.webhook_secret, app.worker.settings.ref)
        logger.bind(logger="http", verdict=decision.verdict.name.lower()).info("webhook: {}", decision.reason)
        if decision.verdict is Verdict.TRIGGER:
            app.worker.trigger("webhook")
        return self._send(decision.verdict.value, (decision.reason + "\n").encode(), "text/plain")

    def _not_allowed(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        self._not_found_or_not_allowed(path, body=True)

    def do_PUT(self) -> None:
        self._not_allowed()

    def do_DELETE(self) -> None:
        self._not_allowed()

    def do_PATCH(self) -> None:
        self._not_allowed()

    def do_OPTIONS(self) -> None:
        self._not_allowed()

    def do_TRACE(self) -> None:
        self._not_allowed()

    def _not_found_or_not_allowed(self, path: str, *, body: bool) -> None:
        """404 for a path nothing serves; 405 (with ``Allow``) for a known path and another method."""
        if path == WEBHOOK_PATH and self.app.webhook_secret is not None:
            allow = "POST"
        elif path in READ_ROUTES:
            allow = "GET, HEAD"
        else:
            return self._send(404, b"not found\n", "text/plain", body=body)
        self.close_connection = True  # a body we did not read may follow
        return self._send(405, b"method not allowed\n", "text/plain", body=body, extra=(("Allow", allow),))

    def _authorized(self) -> bool:
        token = self.app.access.token
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        return token is not None and scheme.lower() == "bearer" and hmac.compare_digest(value.encode(), token)

    def _drain(self, size: int) -> None:
        """Read and drop up to ``size`` bytes of what the client still sends (within the read timeout),
        then close: the client reads the answer instead of a reset."""
        self.close_connection = True
        self.server.deadlines.arm(self.connection, self.server.limits.read_timeout)
        try:
            while size > 0 and (chunk := self.rfile.read1(min(size, 1 << 16))):
                size -= len(chunk)
        except OSError:
            pass
        finally:
            self.server.deadlines.disarm(self.connection)

    def _send(
        self,
        code: int,
        payload: bytes,
        content_type: str,
        *,
        body: bool = True,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in extra:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body:
            self.wfile.write(payload)


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
            self.server = BoundedHTTPServer((host, port), handler, app.limits, app.metrics.http.refused)
        except OSError as err:
            raise SettingsError(bind_problem(host, port, err)) from None
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2})

    @property
    def address(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self.server.deadlines.start()
        self.thread.start()

    def stop(self) -> None:
        self.server.deadlines.stop()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
