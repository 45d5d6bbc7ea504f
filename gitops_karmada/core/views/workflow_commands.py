"""GitHub Actions workflow commands (``::error file=F,line=L,title=T::message``), formatted purely.

Used by the Action's steps and by ``validate -o github``. The runner's escaping rules apply, so a message
can never end its command early or start another one.
"""

from __future__ import annotations


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, message: str, title: str = "", *, file: str = "", line: int = 0) -> str:
    """``::error file=F,line=L,title=T::message``; empty properties are left out."""
    properties = [
        f"{name}={_escape_property(value)}"
        for name, value in (("file", file), ("line", str(line) if line > 0 else ""), ("title", title))
        if value
    ]
    return f"::{kind}{' ' + ','.join(properties) if properties else ''}::{_escape_data(message)}"
