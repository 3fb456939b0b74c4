"""A search of a scope's waiting collection started before the query's whole vector is known.

The waiting collection holds cheap vectors only (``[USE, 0]`` for the blend). A plain query's
cheap half ranks them as its whole vector does, so their search can run while E5 computes the
rest (on 100,000 waiting vectors, about 3 ms of a retrieval's 24). Once the whole vector is
known, each similarity is scaled to the one the whole vector would have given: the cosine of the
whole vector with the cheap one, the share of its length that lies where cheap vectors do.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import numpy as np

from memory.index.vector import Vector
from memory.index.vectors import StoreHit


class WaitingSearch:
    """The hits of a waiting collection's search, started with a query's cheap vector.

    Args:
        cheap: the vector searched with.
        search: the search (run at most once: on another thread, or here if it has not started).
        started: the search running on another thread, if it was submitted to one.
    """

    def __init__(
        self, cheap: Vector, search: Callable[[], list[StoreHit]], started: Future[list[StoreHit]] | None
    ) -> None:
        self.cheap = cheap
        self._search = search
        self._started = started

    def hits(self, vector: Vector) -> list[StoreHit]:
        """The hits, each scored as its cosine with the whole query ``vector``."""
        started = self._started
        found = self._search() if started is None or started.cancel() else started.result()
        whole, cheap = np.asarray(vector, dtype=np.float64), np.asarray(self.cheap, dtype=np.float64)
        norms = float(np.linalg.norm(whole) * np.linalg.norm(cheap))
        scale = float(whole @ cheap) / norms if norms > 0 else 0.0
        return [StoreHit(hit.id, hit.similarity * scale) for hit in found]
