"""Calls with a deadline: a caller waits for a backend call at most a set time.

A call into the vector index can block forever (seen after a disk filled up: Chroma's upsert
never returned). :class:`Deadline` runs each call on one of a few daemon threads and waits for it
with a timeout; a call past its deadline raises :class:`~memory.errors.CallTimeout` to the caller, and its
thread is written off and replaced (up to a limit), so the next call is served by a fresh one.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from memory.errors import CallTimeout

_T = TypeVar("_T")
_Task = tuple["Future[object]", Callable[[], object]]


class Deadline:
    """Runs calls on a small pool of daemon threads, waiting for each at most ``timeout``.

    Args:
        timeout: seconds a caller waits for one call.
        name: the threads' name prefix (shown in thread dumps).
        workers: threads serving calls.
        max_stuck: threads written off at most; past it, a stuck pool makes calls time out.
    """

    def __init__(self, timeout: float, *, name: str, workers: int = 4, max_stuck: int = 8) -> None:
        self.timeout = timeout
        self.name = name
        self.max_stuck = max_stuck
        self.stuck = 0
        """Calls that passed their deadline while running (their threads were written off)."""
        self._tasks: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False
        for _ in range(workers):
            self._spawn()

    def _spawn(self) -> None:
        thread = threading.Thread(target=self._serve, name=f"{self.name}-{len(self._threads)}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _serve(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            future, call = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as exc:  # handed to the caller, who decides
                future.set_exception(exc)
            else:
                future.set_result(result)

    def run(self, call: Callable[[], _T]) -> _T:
        """``call()``'s result, or :class:`~memory.errors.CallTimeout` once ``timeout`` has passed.

        Raises:
            CallTimeout: the call is still running (or was never started) at the deadline.
            RuntimeError: the runner is closed.
        """
        if self._closed:
            raise RuntimeError(f"{self.name}: closed")
        future: Future[object] = Future()
        self._tasks.put((future, call))
        try:
            return future.result(timeout=self.timeout)  # type: ignore[return-value]
        except FutureTimeout:
            if future.cancel():  # never started: every thread is busy or stuck
                raise CallTimeout(f"{self.name}: no thread free for {self.timeout:g} s") from None
            with self._lock:
                self.stuck += 1
                if self.stuck <= self.max_stuck and not self._closed:
                    self._spawn()
            raise CallTimeout(f"{self.name}: call still running after {self.timeout:g} s") from None

    def close(self, wait: float = 5.0) -> None:
        """Stop the threads (a stuck one is left behind: it is a daemon); idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._tasks.put(None)
        for thread in threads:
            thread.join(timeout=wait / max(len(threads), 1))
