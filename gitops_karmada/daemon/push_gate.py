"""At most one push per interval to each remote: a Git host limits how often a repository is pushed to
(GitHub recommends at most 6 pushes a minute).

The worker asks ``wait`` before a run that would push: while the interval since the last push to that remote
runs, the run commits locally and its push is held; the worker wakes when the interval is over and pushes
the branch as it is then, carrying every commit made meanwhile (several runs, one push). ``watch
--push-interval`` sets the interval (default 10 s; 0: every run pushes at once).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

DEFAULT_PUSH_INTERVAL = 10.0
"""Seconds between two pushes to one remote, unless ``watch --push-interval`` says otherwise."""


class PushGate:
    """When each remote may be pushed to next (thread-safe; the clock is monotonic)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, remote: str) -> float:
        """Seconds until a push to ``remote`` may go (0: now)."""
        with self._lock:
            last = self._last.get(remote)
        if last is None or self.interval <= 0:
            return 0.0
        return max(last + self.interval - self._clock(), 0.0)

    def pushed(self, remote: str) -> None:
        """A push to ``remote`` was made now."""
        with self._lock:
            self._last[remote] = self._clock()
