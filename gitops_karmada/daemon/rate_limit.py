"""A token bucket: the webhook's requests per second, so that a flood is answered 429 cheaply (before its
body is read or its signature checked) and never keeps the handler threads from other requests."""

from __future__ import annotations

import threading
import time


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; ``take`` spends one if there is one."""

    def __init__(self, rate: float, burst: int) -> None:
        self._rate = rate
        self._burst = float(max(burst, 1))
        self._tokens = self._burst
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
            self._last = now
            if self._tokens < 1.0:
                return False
            self._tokens -= 1.0
            return True
