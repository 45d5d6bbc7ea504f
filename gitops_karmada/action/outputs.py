"""GitHub's step formats (pure): outputs as ``$GITHUB_OUTPUT`` heredocs, and workflow commands.

The heredoc form is safe for any value, multi-line JSON included; the delimiter is random and checked
not to occur in the value, so a value can never end the heredoc early and inject another output.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from gitops_karmada.core.views.workflow_commands import workflow_command

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


__all__ = ["format_outputs", "workflow_command"]
