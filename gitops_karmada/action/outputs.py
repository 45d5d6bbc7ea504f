"""GitHub's step formats (pure): outputs as ``$GITHUB_OUTPUT`` heredocs, and workflow commands.

The heredoc form is safe for any value, multi-line JSON included; the delimiter is random and checked
not to occur in the value, so a value can never end the heredoc early and inject another output.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def format_outputs(values: Mapping[str, str], new_delimiter: Callable[[], str] | None = None) -> str:
    """``values`` as ``$GITHUB_OUTPUT`` lines, in the given order."""
    make = new_delimiter or (lambda: f"ghadelimiter_{secrets.token_hex(16)}")
    lines: list[str] = []
    for name, value in values.items():
        if not name or any(c in name for c in "\r\n=<"):
            raise ValueError(f"invalid output name {name!r}")
        delimiter = make()
        while delimiter in value or delimiter in name:
            delimiter = make()
        lines += [f"{name}<<{delimiter}", value, delimiter]
    return "".join(line + "\n" for line in lines)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, message: str, title: str = "") -> str:
    """``::error title=T::message`` with the runner's escaping (a message cannot start another command)."""
    properties = f" title={_escape_property(title)}" if title else ""
    return f"::{kind}{properties}::{_escape_data(message)}"
