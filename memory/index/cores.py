"""How many cores a thread's model work may take: every core of the process for a caller's bulk
work (an import, a flush), one for the background indexer, which leaves the others to requests;
and when background model work gives way to requests (:func:`giving_way`)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar

_background = threading.local()
_give_way: ContextVar[Callable[[], bool] | None] = ContextVar("persona_memory_give_way", default=None)


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


@contextlib.contextmanager
def giving_way(to: Callable[[], bool]) -> Iterator[None]:
    """Background model work started on this thread in the block pauses while ``to()`` is true
    (requests are being served): no chunk starts, and one under way stops after its current pass."""
    token = _give_way.set(to)
    try:
        yield
    finally:
        _give_way.reset(token)


def gives_way_to() -> Callable[[], bool] | None:
    """What background model work started on this thread now gives way to (:func:`giving_way`)."""
    return _give_way.get()
