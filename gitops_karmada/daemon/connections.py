"""The HTTP server's bounds on connections: a real listen backlog, a cap on connections served at once, a
deadline for reading each request, and one log line (never a traceback) for a connection that fails.

The standard library's server listens with a backlog of 5 and starts a thread for every connection it
accepts, however many; a client that sends one byte a second holds its thread for as long as it likes.
Here the kernel queues up to ``BACKLOG`` connections, at most ``max_connections`` are served at once (the
next one waits ``SLOT_WAIT_SECONDS`` for a slot, then gets a 503), and a request whose line and headers (or
body) have not arrived within the read timeout has its socket shut down by a reaper thread.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from loguru import logger

if TYPE_CHECKING:
    from collections.abc import Callable

    from gitops_karmada.daemon.settings import HttpLimits

BACKLOG = 256
"""Connections the kernel holds for ``accept`` (the standard library's default is 5)."""
SLOT_WAIT_SECONDS = 2.0
"""How long a connection beyond ``max_connections`` waits for a slot before it is answered 503."""
BUSY_ANSWER = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
    b"Retry-After: 1\r\nConnection: close\r\n\r\nbusy\n"
)
QUIET_ERRORS = (ConnectionError, TimeoutError)
"""A client that resets, closes early or is too slow: routine on an open port, logged at debug level."""


class ReadDeadlines:
    """Sockets that must finish sending a request by a time; a reaper thread shuts down those that did not
    (a blocked read then returns, and the handler thread ends)."""

    def __init__(self, on_drop: Callable[[], None] = lambda: None) -> None:
        self._on_drop = on_drop
        self._deadlines: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._reap, name="http-read-deadlines", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def arm(self, sock: socket.socket, seconds: float) -> None:
        with self._lock:
            self._deadlines[sock] = time.monotonic() + seconds

    def disarm(self, sock: socket.socket) -> None:
        with self._lock:
            self._deadlines.pop(sock, None)

    def _reap(self) -> None:
        while not self._stopped.wait(0.25):
            now = time.monotonic()
            with self._lock:
                late = [sock for sock, deadline in self._deadlines.items() if deadline <= now]
                for sock in late:
                    del self._deadlines[sock]
            for sock in late:
                logger.bind(logger="http").debug("dropped a client that did not send its request in time")
                self._on_drop()
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class BoundedHTTPServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with ``BACKLOG``, a connection cap and read deadlines (``HttpLimits``)."""

    request_queue_size = BACKLOG
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: Any,
        limits: HttpLimits,
        refused: Callable[[str], None] = lambda _reason: None,
    ) -> None:
        self.limits = limits
        self.refused = refused
        """Counts a refusal by reason (``metrics.HTTP_REFUSALS``)."""
        self.deadlines = ReadDeadlines(lambda: refused("read_timeout"))
        self._slots = threading.BoundedSemaphore(limits.max_connections)
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # the accept loop waits here for a slot; meanwhile the kernel's backlog holds new connections
        if not self._slots.acquire(timeout=SLOT_WAIT_SECONDS):
            logger.bind(logger="http", client=client_address[0]).warning(
                "{} connections are being served: answered 503", self.limits.max_connections
            )
            self.refused("busy")
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(BUSY_ANSWER)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.deadlines.disarm(request)
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One log line instead of the standard library's traceback on stderr."""
        err = sys.exc_info()[1]
        log = logger.bind(logger="http", client=client_address[0])
        if isinstance(err, QUIET_ERRORS):
            log.debug("connection ended: {}", _one_line(err))
        else:
            log.error("request failed: {}: {}", type(err).__name__, _one_line(err))


def _one_line(err: BaseException | None) -> str:
    return " ".join(str(err).split()) or type(err).__name__
