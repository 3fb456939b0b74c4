"""A scope's collections searched before the retrieval asks for their hits.

A retrieval's query vector takes an E5 pass, and its keyword search runs meanwhile. The scope's
collections are searched without waiting for the retrieval to be done with that:

- its waiting collection holds cheap vectors only (``[USE, 0]`` for the blend). A plain query's
  cheap half ranks them as its whole vector does, so they are searched before the retrieval
  waits for E5: by the retrieval right after its keyword search
  (:meth:`EarlySearch.search_cheap`), or by the reader thread E5's pass ends on, whichever comes
  first. Once the whole vector is known, each similarity is scaled to the one the whole vector
  would have given: the cosine of the whole vector with the cheap one, the share of its length
  that lies where cheap vectors do;
- its own collection is searched on a reader thread as soon as E5's pass ends (then its waiting
  one, if the retrieval has not started that search), while the retrieval may still be reading
  its keyword hits.

On a store of 100,000 memories waiting for enrichment, reopened, a retrieval took 1.22 times a
flat search with the waiting collection searched only by the retrieval, 1.27 with it searched
on a thread at once and the own one after the vector (2 cores: a third thread beside E5 slows
the keyword search about as much as it saves). Handing it to the reader thread once E5's pass
ends, on the core E5 leaves, took 18.8-19.1 ms against 19.5-20.0 (1.24-1.25x against 1.30-1.31x a
flat search, taking turns query by query in one process). A search no thread has started by the
time its hits are asked for runs on the caller's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import numpy as np

from memory.index.exact import best_hits
from memory.index.vector import Vector
from memory.index.vectors import StoreHit

_T = TypeVar("_T")


class QuerySoon(Protocol):
    """A query's vector under way."""

    def __call__(self) -> Vector:
        """The whole vector (waits for it)."""

    def cheap(self) -> Vector | None:
        """The vector a cheap-tier vector is searched with, if the query has one."""

    def when_ready(self, call: Callable[[], None]) -> None:
        """Run ``call`` once the whole vector is computed (at once if it is)."""


class Once(Generic[_T]):
    """A call run once, by whichever comes first: a thread it was handed to, or the caller asking
    for its result (who then does not wait for a thread that has not started it)."""

    def __init__(self, call: Callable[[], _T]) -> None:
        self._call = call
        self._lock = threading.Lock()
        self._claimed = False
        self._done = threading.Event()
        self._result: _T | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        """Run the call, unless it was run or is running."""
        with self._lock:
            if self._claimed:
                return
            self._claimed = True
        try:
            self._result = self._call()
        except BaseException as exc:  # given to the caller of result()
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> _T:
        """The call's result (run here if no thread has started it); its exception, raised."""
        self.run()
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


class EarlySearch:
    """The hits of a scope's collections, searched as soon as each could be.

    Args:
        whole: the search with the whole vector (the scope's own collection; its waiting one too
            when ``waiting`` is None), best first.
        waiting: the search of its waiting collection with the query's ``cheap`` vector, if any.
        depth: the hits kept.
    """

    def __init__(
        self,
        whole: Once[list[StoreHit]],
        waiting: Once[list[StoreHit]] | None,
        cheap: Vector | None,
        depth: int,
    ) -> None:
        self._whole, self._waiting, self._cheap, self._depth = whole, waiting, cheap, depth

    def search_cheap(self) -> None:
        """Search the waiting collection with the cheap vector now, on this thread (if it is to
        be searched and no thread has started it)."""
        if self._waiting is not None:
            self._waiting.run()

    def run(self) -> None:
        """Search what no thread has started yet: the whole vector's collections, then the
        waiting one (on a reader thread once the whole vector is known)."""
        self._whole.run()
        self.search_cheap()

    def hits(self, vector: Vector) -> list[StoreHit]:
        """The best hits, each scored as its cosine with the whole query ``vector``."""
        found = self._whole.result()
        if self._waiting is None or self._cheap is None:
            return found
        whole, cheap = np.asarray(vector, dtype=np.float64), np.asarray(self._cheap, dtype=np.float64)
        norms = float(np.linalg.norm(whole) * np.linalg.norm(cheap))
        scale = float(whole @ cheap) / norms if norms > 0 else 0.0
        scaled = [StoreHit(hit.id, hit.similarity * scale) for hit in self._waiting.result()]
        return best_hits([*found, *scaled], self._depth)
