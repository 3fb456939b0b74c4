"""A circuit breaker for the vector store: fail fast during an outage, probe with backoff.

Closed: calls go through. After ``failure_threshold`` consecutive failures it opens: calls are
refused until the backoff has passed, then one probe goes through (half-open). A success closes
it; a failure doubles the backoff up to ``max_backoff``. One warning is logged per outage.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from enum import StrEnum

logger = logging.getLogger(__name__)


class BreakerState(StrEnum):
    """The state shown in ``debug_state()['store']['breaker']``."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Tracks the health of one backend; thread-safe."""

    def __init__(
        self,
        *,
        failure_threshold: int = 1,
        initial_backoff: float = 1.0,
        max_backoff: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failure_threshold = failure_threshold
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._backoff = initial_backoff
        self._opened_at: float | None = None
        self._probing = False
        self.outages = 0
        self.last_error: str | None = None

    @property
    def state(self) -> BreakerState:
        """Closed, open, or half-open (a probe is due or running)."""
        with self._lock:
            if self._opened_at is None:
                return BreakerState.CLOSED
            if self._probing or self._clock() - self._opened_at >= self._backoff:
                return BreakerState.HALF_OPEN
            return BreakerState.OPEN

    def allow(self) -> bool:
        """Whether a call may go to the backend now (at most one probe while open)."""
        with self._lock:
            if self._opened_at is None:
                return True
            if self._probing or self._clock() - self._opened_at < self._backoff:
                return False
            self._probing = True
            return True

    def record_success(self) -> None:
        """A call succeeded: close the breaker (logging the recovery once)."""
        with self._lock:
            if self._opened_at is not None:
                logger.warning("vector store recovered after outage #%d", self.outages)
            self._failures = 0
            self._backoff = self.initial_backoff
            self._opened_at = None
            self._probing = False

    def record_failure(self, error: BaseException) -> None:
        """A call failed: count it, open or keep open the breaker, back off further."""
        with self._lock:
            self.last_error = f"{type(error).__name__}: {error}"
            self._failures += 1
            if self._opened_at is None:
                if self._failures >= self.failure_threshold:
                    self.outages += 1
                    self._opened_at = self._clock()
                    logger.warning(
                        "vector store failing (%s); retrieval returns empty until it recovers",
                        self.last_error,
                    )
                return
            self._backoff = min(self._backoff * 2, self.max_backoff)
            self._opened_at = self._clock()
            self._probing = False

    def snapshot(self) -> dict[str, object]:
        """A JSON-serialisable view for ``debug_state()``."""
        return {
            "state": self.state.value,
            "outages": self.outages,
            "consecutive_failures": self._failures,
            "backoff_seconds": self._backoff,
            "last_error": self.last_error,
        }
