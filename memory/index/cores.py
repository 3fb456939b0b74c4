"""How many cores a thread's model work may take: every core of the process for a caller's bulk
work (an import, a flush), one for the background indexer, which leaves the others to requests."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

_background = threading.local()


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def bulk_cores() -> int:
    """The cores a bulk computation on this thread may take: one in a :func:`background` block."""
    return 1 if getattr(_background, "on", False) else cores()


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Mark this thread's work in the block as background work (one core at most)."""
    _background.on = True
    try:
        yield
    finally:
        _background.on = False
