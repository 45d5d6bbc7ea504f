"""A loopback HTTP server that answers like GitHub's issue-comments API (no tests here).

Endpoints: ``GET /repos/{o}/{r}/issues/{n}/comments?per_page=&page=`` (with a ``Link`` header),
``POST`` to the same path, ``PATCH /repos/{o}/{r}/issues/comments/{id}``, ``GET
/repos/{o}/{r}/commits/{sha}/status`` (the combined status of what ``statuses`` holds for the commit). Checks the bearer token
(401 ``Bad credentials``), answers 403 ``Resource not accessible by integration`` to writes in
read-only mode (a fork's token), and 422 to a body over 65,536 characters, as GitHub does.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 65_536
_LIST = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$")
_ONE = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$")
_STATUS = re.compile(r"^/repos/([^/]+)/([^/]+)/commits/([0-9a-f]+)/status$")


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    authorization: str | None = None


@dataclass
class GitHubState:
    token: str
    repository: str
    read_only: bool = False
    max_per_page: int = 100
    next_link_origin: str | None = None
    """Send ``Link: rel="next"`` to this origin instead of our own (a hostile or broken server)."""
    redirects: dict[str, str] = field(default_factory=dict)
    """Path prefix -> URL prefix: answer 307 with the rewritten ``Location`` (a renamed repository)."""
    echo_authorization: bool = False
    """Answer 400 with the received ``Authorization`` header in the message (a careless proxy)."""
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    statuses: dict[str, dict[str, str]] = field(default_factory=dict)
    """Commit → context → state: what the combined-status endpoint answers."""
    requests: list[Request] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    next_id: int = 1000
    origin: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_comment(self, issue: int, body: str, login: str = "someone") -> dict[str, Any]:
        with self.lock:
            self.next_id += 1
            comment = {
                "id": self.next_id,
                "body": body,
                "user": {"login": login, "type": "User" if login != "github-actions[bot]" else "Bot"},
                "html_url": f"https://github.example/{self.repository}/pull/{issue}#issuecomment-{self.next_id}",
            }
            self.comments.setdefault(issue, []).append(comment)
            return comment

    def writes(self) -> list[Request]:
        return [r for r in self.requests if r.method in ("POST", "PATCH")]


class FakeGitHub:
    """``with FakeGitHub(token, "acme/fleet") as github: github.url ...``"""

    def __init__(self, token: str, repository: str, **options: Any) -> None:
        self.state = GitHubState(token=token, repository=repository, **options)
        state = self.state

        class Handler(_Handler):
            github = state

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        state.origin = self.url
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


class _Handler(BaseHTTPRequestHandler):
    github: GitHubState
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        self.github.log_lines.append(format % args)

    # -- verbs ---------------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    # -- routing -------------------------------------------------------------------------------------------

    def _handle(self, method: str) -> None:
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        state = self.github
        authorization = self.headers.get("Authorization")
        state.requests.append(
            Request(method, url.path, urllib.parse.parse_qs(url.query), body, authorization)
        )
        for prefix, target in state.redirects.items():
            if url.path.startswith(prefix):
                location = target + url.path[len(prefix) :] + (f"?{url.query}" if url.query else "")
                return self._send(307, {"message": "Temporary Redirect"}, {"Location": location})
        if state.echo_authorization:
            return self._send(400, {"message": f"cannot parse header Authorization: {authorization}"})
        if authorization not in (f"Bearer {state.token}", f"token {state.token}"):
            return self._send(
                401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
            )
        status = _STATUS.match(url.path)
        if (
            status is not None
            and method == "GET"
            and f"{status.group(1)}/{status.group(2)}" == state.repository
        ):
            found = state.statuses.get(status.group(3), {})
            items = [{"context": context, "state": value} for context, value in sorted(found.items())]
            return self._send(200, {"sha": status.group(3), "state": "pending", "statuses": items})
        listing, one = _LIST.match(url.path), _ONE.match(url.path)
        match = listing or one
        if match is None or f"{match.group(1)}/{match.group(2)}" != state.repository:
            return self._send(404, {"message": "Not Found"})
        if listing and method == "GET":
            return self._list(int(listing.group(3)), urllib.parse.parse_qs(url.query))
        if method in ("POST", "PATCH"):
            if state.read_only:
                return self._send(403, {"message": "Resource not accessible by integration"})
            text = body.get("body") if isinstance(body, dict) else None
            if not isinstance(text, str):
                return self._send(422, {"message": 'Invalid request.\n\n"body" wasn\'t supplied.'})
            if len(text) > MAX_BODY:
                return self._send(
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [
                            {
                                "resource": "IssueComment",
                                "code": "custom",
                                "field": "body",
                                "message": f"body is too long (maximum is {MAX_BODY} characters)",
                            }
                        ],
                    },
                )
            if listing and method == "POST":
                return self._send(201, state.add_comment(int(listing.group(3)), text, "github-actions[bot]"))
            if one and method == "PATCH":
                return self._update(int(one.group(3)), text)
        return self._send(404, {"message": "Not Found"})

    def _list(self, issue: int, query: dict[str, list[str]]) -> None:
        state = self.github
        per_page = min(int(query.get("per_page", ["30"])[0]), state.max_per_page)
        page = int(query.get("page", ["1"])[0])
        comments = state.comments.get(issue, [])
        chunk = comments[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(comments) // per_page))
        links = []
        base = f"{state.next_link_origin or self._origin()}/repos/{state.repository}/issues/{issue}/comments"
        if page < last:
            links.append(f'<{base}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{base}?per_page={per_page}&page={last}>; rel="last"')
        self._send(200, chunk, {"Link": ", ".join(links)} if links else {})

    def _update(self, comment_id: int, text: str) -> None:
        for comments in self.github.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    comment["body"] = text
                    return self._send(200, comment)
        return self._send(404, {"message": "Not Found"})

    def _origin(self) -> str:
        return self.github.origin

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
