"""A bound on the bytes of a request's line and headers, so that memory stays flat under huge headers.

The standard library reads up to 100 header lines of 64 KiB each (6.4 MB a request) before it answers; a
few dozen such requests grew the daemon by hundreds of megabytes, which it kept. ``HeaderBudget`` wraps
the connection's reader: the request line and headers share ``limit`` bytes, and a line beyond it raises
``HeadersTooLarge``, an ``http.client.HTTPException`` the handler answers with 431.
"""

from __future__ import annotations

import http.client
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import io


class HeadersTooLarge(http.client.HTTPException):
    pass


class HeaderBudget:
    """A reader whose ``readline`` spends a budget that ``reset`` refills (once per request); ``read``
    (the body, bounded elsewhere) is not counted."""

    def __init__(self, raw: io.BufferedIOBase, limit: int) -> None:
        self._raw = raw
        self._limit = limit
        self._left = limit

    @property
    def spent(self) -> bool:
        """The last line went over the budget."""
        return self._left < 0

    def reset(self) -> None:
        self._left = self._limit

    def readline(self, size: int = -1) -> bytes:
        allowed = self._left + 1 if size < 0 else min(size, self._left + 1)
        line = self._raw.readline(allowed)
        self._left -= len(line)
        if self._left < 0:
            raise HeadersTooLarge(f"the request line and headers exceed {self._limit} bytes")
        return line

    def read(self, size: int = -1) -> bytes:
        return self._raw.read(size)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)
