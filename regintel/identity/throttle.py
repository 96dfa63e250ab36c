"""Failed sign-ins per client address: one address guessing passwords across many accounts is slowed down too.

The per-account lock (accounts.py) stops guessing one account's password; this stops one client spraying a
common password over many logins. A sliding window in memory (one Streamlit process serves the app; a restart
forgets it, the per-account counters in SQL stay). A success does not clear the window: one valid account must
not buy an attacker fresh guesses at the others. Clients behind one proxy share an address, so the default limit
is generous and 0 turns the throttle off.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from typing import Callable

from regintel.errors import AuthError

MAX_CLIENTS = 10_000  # the window of the least recently failing clients is forgotten first


class ClientThrottle:
    def __init__(self, max_failures: int = 20, window_seconds: float = 900.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures, self.window, self.clock = max_failures, window_seconds, clock
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        stamps = self._failures.get(client, deque())
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        return stamps

    def check(self, client: str | None) -> None:
        """AuthError when ``client`` failed too often within the window (None: no address known, not throttled)."""
        if not client or self.max_failures <= 0:
            return
        with self._lock:
            now = self.clock()
            stamps = self._recent(client, now)
            if len(stamps) >= self.max_failures:
                wait = math.ceil(stamps[0] + self.window - now)
                raise AuthError(f"Too many failed sign-ins from your address: try again in {wait} seconds.")

    def failed(self, client: str | None) -> None:
        if not client or self.max_failures <= 0:
            return
        with self._lock:
            now = self.clock()
            stamps = self._recent(client, now)
            stamps.append(now)
            self._failures[client] = stamps
            self._failures.move_to_end(client)
            while len(self._failures) > MAX_CLIENTS:
                self._failures.popitem(last=False)
