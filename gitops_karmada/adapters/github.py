"""A small GitHub REST client for pull-request comments and commit statuses, on urllib.

Reads a commit's combined status (a rollout's commit-status gate). Lists an issue's comments (following
``Link: rel="next"`` pagination), creates and updates one. The base URL is ``GITHUB_API_URL`` (GitHub
Enterprise, or a loopback server in tests). The token is sent only to that origin: a pagination link or a
redirect to another origin is refused (urllib would otherwise forward the ``Authorization`` header). It is
kept out of ``repr`` and scrubbed from every error message, even one where the server echoes it back;
failures are ``GitHubError`` with the status and GitHub's message.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from gitops_karmada import __version__
from gitops_karmada.model.errors import GitHubError

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
PER_PAGE = 100
MAX_PAGES = 100
"""10,000 comments: far more than a pull request has; a bound against a server that never ends."""
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
MAX_REDIRECTS = 5
SCRUBBED = "***"


@dataclass(frozen=True, slots=True)
class IssueComment:
    id: int
    body: str
    author: str = ""
    url: str = ""


@dataclass(frozen=True, slots=True)
class GitHubClient:
    """Talks to one repository through ``api_url`` with ``token`` (a workflow token or a PAT)."""

    api_url: str
    repository: str
    """``owner/name``."""
    token: str = field(repr=False)
    timeout: float = 30.0

    def __post_init__(self) -> None:
        owner, slash, name = self.repository.partition("/")
        if not owner or not slash or not name or "/" in name:
            raise GitHubError(0, f"repository {self.repository!r} is not owner/name")

    # -- comments ----------------------------------------------------------------------------------------

    def list_issue_comments(self, number: int) -> list[IssueComment]:
        """Every comment of issue (or pull request) ``number``, oldest first."""
        url: str | None = self._url(f"issues/{number}/comments", {"per_page": str(PER_PAGE), "page": "1"})
        comments: list[IssueComment] = []
        for _ in range(MAX_PAGES):
            if url is None:
                break
            payload, headers = self._request("GET", url)
            if not isinstance(payload, list):
                raise GitHubError(0, f"unexpected answer listing the comments of #{number}")
            comments.extend(_comment(item) for item in payload)
            url = self._next_page(headers.get("Link", ""))
        return comments

    def create_issue_comment(self, number: int, body: str) -> IssueComment:
        payload, _ = self._request("POST", self._url(f"issues/{number}/comments"), {"body": body})
        return _comment(payload)

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment:
        payload, _ = self._request("PATCH", self._url(f"issues/comments/{comment_id}"), {"body": body})
        return _comment(payload)

    # -- plumbing ----------------------------------------------------------------------------------------

    # -- commit statuses ---------------------------------------------------------------------------------

    def commit_statuses(self, commit: str) -> dict[str, str]:
        """Context → state of the newest status of each context on ``commit`` (the combined status)."""
        body, _ = self._request("GET", self._url(f"commits/{commit}/status", {"per_page": str(PER_PAGE)}))
        statuses = body.get("statuses") if isinstance(body, dict) else None
        if not isinstance(statuses, list):
            raise GitHubError(0, f"the combined status of {commit[:12]} has no list of statuses")
        return {
            str(item["context"]): str(item["state"])
            for item in statuses
            if isinstance(item, dict) and "context" in item and "state" in item
        }

    def _url(self, path: str, query: dict[str, str] | None = None) -> str:
        owner, name = self.repository.split("/")
        base = self.api_url.rstrip("/")
        quoted = f"{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}"
        url = f"{base}/repos/{quoted}/{path}"
        return f"{url}?{urllib.parse.urlencode(query)}" if query else url

    def _next_page(self, link: str) -> str | None:
        match = _NEXT_LINK.search(link)
        if match is None:
            return None
        url = match.group(1)
        # the token goes to the API's own origin only, whatever a Link header says
        if _origin(url) != _origin(self.api_url):
            raise GitHubError(0, f"refusing to follow a pagination link to another origin: {_origin(url)}")
        return url

    def _request(self, method: str, url: str, data: dict[str, Any] | None = None) -> tuple[Any, Any]:
        try:
            return self._send(method, url, data)
        except GitHubError as err:
            raise GitHubError(err.status, _scrub(err.message, self.token)) from None

    def _send(self, method: str, url: str, data: dict[str, Any] | None) -> tuple[Any, Any]:
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise GitHubError(0, f"{url}: only http(s) URLs are supported")
        body = json.dumps(data).encode() if data is not None else None
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", API_VERSION)
        request.add_header("User-Agent", f"gitops-karmada/{__version__}")
        request.add_header("Authorization", f"Bearer {self.token}")
        if body is not None:
            request.add_header("Content-Type", "application/json")
        opener = urllib.request.build_opener(_SameOriginRedirects(_origin(self.api_url)))
        try:
            with opener.open(request, timeout=self.timeout) as response:
                raw = response.read()
                headers = response.headers
        except urllib.error.HTTPError as err:
            raise GitHubError(err.code, _message(err.read(), err.reason)) from None
        except (urllib.error.URLError, TimeoutError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise GitHubError(0, f"{method} {_origin(url)}: {reason}") from None
        try:
            return (json.loads(raw) if raw else None), headers
        except ValueError:
            raise GitHubError(0, f"{method} {url}: the answer is not JSON") from None


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect (a renamed repository) only within the API's origin, where the token belongs."""

    max_redirections = MAX_REDIRECTS

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        target = _origin(urllib.parse.urljoin(req.full_url, newurl))
        if target != self.origin:
            fp.close()  # urllib closes the answer only on the paths it handles itself
            raise GitHubError(code, f"refusing to follow a redirect to another origin: {target}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _scrub(text: str, token: str) -> str:
    """``text`` without the token (a server or proxy may echo the ``Authorization`` header back)."""
    return text.replace(token, SCRUBBED) if token else text


def is_permission_denied(err: GitHubError) -> bool:
    """A read-only token: what a workflow run for a pull request from a fork gets (403)."""
    return err.status == 403


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _comment(item: Any) -> IssueComment:
    if not isinstance(item, dict) or not isinstance(item.get("id"), int):
        raise GitHubError(0, "unexpected comment object in the answer")
    user = item.get("user")
    author = user.get("login", "") if isinstance(user, dict) else ""
    body = item.get("body")
    url = item.get("html_url")
    return IssueComment(
        id=item["id"],
        body=body if isinstance(body, str) else "",
        author=author if isinstance(author, str) else "",
        url=url if isinstance(url, str) else "",
    )


def _message(raw: bytes, fallback: str) -> str:
    """GitHub's ``message`` (plus validation details), or the HTTP reason."""
    try:
        payload = json.loads(raw)
    except ValueError:
        return str(fallback)
    if not isinstance(payload, dict):
        return str(fallback)
    message = str(payload.get("message") or fallback)
    errors = payload.get("errors")
    if isinstance(errors, list):
        details = [str(e.get("message")) for e in errors if isinstance(e, dict) and e.get("message")]
        if details:
            message += ": " + "; ".join(details)
    return message
