"""A loopback stand-in for a member cluster's API server: canned answers to a few paths (no tests here).

A real ``http.server`` on 127.0.0.1 in a thread; the real kubectl talks to it through a kubeconfig. Lists
are paged as the API server pages them (``limit`` and ``continue``), and every request is recorded, so a
test can check that kubectl sent exactly the requests expected and nothing else (no discovery).
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: a JSON document (dict or list) or plain text, with its status code."""

    body: Any
    status: int = 200


def status_answer(code: int, reason: str, message: str) -> Answer:
    """A ``metav1.Status`` error, as the API server sends one."""
    return Answer(
        {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason,
         "code": code},
        code,
    )  # fmt: skip


NOT_FOUND = status_answer(404, "NotFound", "the server could not find the requested resource")


def object_list(kind: str, items: list[dict[str, Any]], api_version: str = "v1") -> Answer:
    return Answer(
        {"kind": kind, "apiVersion": api_version, "metadata": {"resourceVersion": "1"}, "items": items}
    )


@dataclass
class KubeApi:
    """Answers ``routes`` (path without query → answer); anything else is 404 NotFound."""

    routes: dict[str, Answer] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    """Every request's path and query, in order."""
    _server: http.server.ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def paths(self) -> list[str]:
        return [request.partition("?")[0] for request in self.requests]

    def answer(self, target: str) -> tuple[int, str, bytes]:
        self.requests.append(target)
        url = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(url.query)
        found = self.routes.get(url.path, NOT_FOUND)
        body = found.body
        if isinstance(body, dict) and isinstance(body.get("items"), list) and "limit" in query:
            start = int(query.get("continue", ["0"])[0])
            limit = int(query["limit"][0])
            rest = body["items"][start + limit :]
            body = {**body, "items": body["items"][start : start + limit]}
            body["metadata"] = {
                **body.get("metadata", {}),
                **({"continue": str(start + limit)} if rest else {}),
            }
        if isinstance(body, dict | list):
            return found.status, "application/json", json.dumps(body).encode()
        return found.status, "text/plain; charset=utf-8", str(body).encode()

    def kubeconfig(self, path: Path, *, context: str = "member") -> Path:
        """A kubeconfig whose current context, ``context``, points at this server."""
        return kubeconfig(path, self.url, context=context)

    def __enter__(self) -> KubeApi:
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, content_type, payload = api.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


def kubeconfig(path: Path, server: str, *, context: str = "member") -> Path:
    """A kubeconfig whose current context, ``context``, points at ``server`` (no credentials)."""
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": {"server": server}}],
        "users": [{"name": context, "user": {}}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
    }
    path.write_text(json.dumps(document))  # JSON is YAML
    return path


def closed_port() -> int:
    """A loopback port nothing listens on (connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class SilentServer:
    """A loopback port that accepts connections and never answers (requests time out)."""

    def __enter__(self) -> str:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        self._socket.close()
