"""Push webhooks from GitHub and GitLab: who sent it (a shared secret) and whether it concerns our branch.

GitHub signs the body with HMAC-SHA256 (``X-Hub-Signature-256: sha256=<hex>``); GitLab sends the secret
itself (``X-Gitlab-Token``). Both are compared in constant time. Pure functions: the HTTP handler reads
the request, these decide.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

MAX_BODY_BYTES = 5 * 1024 * 1024
"""Push payloads are a few kilobytes per commit; GitHub caps deliveries at 25 MB. Beyond this: 413."""


class Verdict(enum.Enum):
    TRIGGER = 202
    IGNORED = 200
    UNAUTHORIZED = 401
    BAD_REQUEST = 400


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict
    reason: str


def authentic(headers: Mapping[str, str], body: bytes, secret: bytes) -> bool:
    """Whether the request carries a valid GitHub signature or GitLab token for ``secret``."""
    signature = headers.get("x-hub-signature-256", "")
    if signature:
        expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(signature.encode(), expected.encode())
    token = headers.get("x-gitlab-token", "")
    return bool(token) and hmac.compare_digest(token.encode(), secret)


def decide(headers: Mapping[str, str], body: bytes, secret: bytes, branch_ref: str) -> Decision:
    """What to do with a webhook delivery; ``headers`` keys are lower-case."""
    if not authentic(headers, body, secret):
        return Decision(Verdict.UNAUTHORIZED, "missing or wrong signature")
    event = headers.get("x-github-event") or headers.get("x-gitlab-event", "")
    if event == "ping":
        return Decision(Verdict.IGNORED, "pong")
    if event not in ("push", "Push Hook"):
        return Decision(Verdict.IGNORED, f"event {event or '(none)'!r} ignored")
    try:
        payload = json.loads(body)
    except ValueError:
        return Decision(Verdict.BAD_REQUEST, "the body is not JSON")
    except RecursionError:  # the C decoder's own depth bound: an answer, not a crash
        return Decision(Verdict.BAD_REQUEST, "the body is JSON nested too deeply")
    ref = payload.get("ref") if isinstance(payload, dict) else None
    if ref != branch_ref:
        return Decision(Verdict.IGNORED, f"push to {ref!r}, not {branch_ref!r}")
    return Decision(Verdict.TRIGGER, f"push to {ref}")
