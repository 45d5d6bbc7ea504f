"""A handler that fails unexpectedly: the client gets a 500, not a closed connection, and the log one record
with the traceback. The daemon's real HTTP server (and worker, status and metrics) on loopback, in process,
on a real repository; the fault is a Prometheus collector that raises, registered on the daemon's own
registry, as a broken third-party collector would."""

from __future__ import annotations

import http.client
from typing import TYPE_CHECKING

import pytest
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.server import App, HttpServer
from gitops_karmada.daemon.settings import WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, Snapshot
from gitops_karmada.daemon.worker import Worker
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from loguru import Record
    from prometheus_client.metrics_core import Metric


class BrokenCollector:
    def collect(self) -> Iterator[Metric]:
        raise RuntimeError("the collector\nbroke")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[HttpServer, DaemonMetrics]]:
    repo = FleetRepo.create(tmp_path / "fleet", clusters=1)
    status = DaemonStatus(Snapshot(repository=str(repo.path), branch="main", mode="local"))
    metrics = DaemonMetrics()
    worker = Worker(
        GitStore.open(repo.path),
        WorkerSettings(branch="main", remote=None, push=False, interval=60),
        status,
        metrics,
    )
    served = HttpServer(App(worker, status, metrics, None), "127.0.0.1", 0)
    served.start()
    try:
        yield served, metrics
    finally:
        served.stop()


def _ask(server: HttpServer, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    host, port = server.server.server_address[:2]
    connection = http.client.HTTPConnection(str(host), port, timeout=10)
    try:
        connection.request(method, path)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def test_a_handler_that_raises_answers_500_and_logs_one_record_with_the_traceback(
    server: tuple[HttpServer, DaemonMetrics],
) -> None:
    served, metrics = server
    assert _ask(served, "GET", "/metrics")[0] == 200
    records: list[Record] = []
    sink = logger.add(lambda m: records.append(m.record), level="DEBUG", format="{message}")
    try:
        metrics.registry.register(BrokenCollector())  # a Collector by its shape
        code, headers, body = _ask(served, "GET", "/metrics")
        head_code, _, head_body = _ask(served, "HEAD", "/metrics")
    finally:
        logger.remove(sink)
    assert (code, body) == (500, b"internal error; see the daemon's log\n")
    assert headers["Connection"] == "close" and headers["X-Content-Type-Options"] == "nosniff"
    assert (head_code, head_body) == (500, b"")
    failures = [r for r in records if r["level"].name == "ERROR"]
    assert [r["message"] for r in failures] == [
        "GET /metrics failed: RuntimeError: the collector broke",
        "HEAD /metrics failed: RuntimeError: the collector broke",
    ]
    assert all(r["exception"] is not None and r["exception"].type is RuntimeError for r in failures)
    assert len(records) == len(failures) + 2, "nothing else but the access lines"
    # the server goes on serving
    assert _ask(served, "GET", "/healthz")[:1] == (200,)
