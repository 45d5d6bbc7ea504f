"""Go's duration strings (``time.ParseDuration``: ``30s``, ``5m``, ``1h30m``, ``1.5h``), as Kubernetes
objects write them (``metav1.Duration``), read into seconds."""

from __future__ import annotations

import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_go_duration(text: str) -> float:
    """Seconds in ``text``; ``ValueError`` naming Go's grammar when it is not a duration.

    As Go: a sign, then one or more number-unit pairs; ``0`` alone needs no unit."""
    body = text.strip()
    sign = -1.0 if body.startswith("-") else 1.0
    body = body.lstrip("+-")
    if body == "0":
        return 0.0
    total, position = 0.0, 0
    for match in _PART.finditer(body):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if not body or position != len(body):
        raise ValueError(f"{text!r} is not a duration (Go's format: 30s, 5m, 1h30m; units ns us ms s m h)")
    return sign * total


def format_seconds(seconds: float) -> str:
    """A duration as Go prints it for whole seconds (``1h30m0s`` → ``1h30m``, kept short for people)."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{secs}s" if secs else "")
    return text or "0s"
