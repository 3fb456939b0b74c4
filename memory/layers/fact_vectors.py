"""The embeddings of profile facts: stored with each current fact, filled in the background.

A retrieval ranks a user's facts by their cosine to the query once they no longer all fit the
prompt (:mod:`memory.retrieval.profile_select`). Each fact is embedded once, as ``key: value``
with the memories' full embedder: by the background worker soon after it is set
(:meth:`FactVectors.fill`), or by the first retrieval that needs it. The vectors live in the
``profile`` table (so a restart embeds nothing again) and in a bounded cache in memory. A
retrieval that meets more than :data:`FULL_UP_TO` facts without one (a thousand keys imported a
moment ago) ranks them by the embedder's cheap tier, kept only in memory until the worker has
stored their full vectors.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.domain.types import ProfileFact
from memory.errors import StoreError
from memory.index.embeddings import tiered
from memory.record.profile import ProfileTable

logger = logging.getLogger(__name__)

KEPT_VECTORS = 50_000
"""Fact vectors kept in memory at most (about 250 MB with the default 1,280 dimensions)."""
FULL_UP_TO = 64
"""Facts a retrieval embeds with the full model at most; more get the cheap tier until stored."""
FILL_BATCH = 64


def fact_text(fact: ProfileFact) -> str:
    """What a fact is embedded as."""
    return f"{fact.key.replace('_', ' ')}: {fact.value}"


class FactVectors:
    """Unit-length embeddings of profile facts, by fact id (a fact never changes its text).

    Args:
        table: the profile table the vectors are stored in.
        embeddings: the memories' embedder.
    """

    def __init__(self, table: ProfileTable, embeddings: Embeddings) -> None:
        self.table = table
        self.embeddings = embeddings
        self._full: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cheap: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def of(self, facts: Sequence[ProfileFact]) -> dict[str, np.ndarray]:
        """The vector of every fact: from memory, the record, or embedded now (and stored)."""
        with self._lock:
            missing = [f for f in facts if f.id not in self._full]
        if missing:
            stored = self.table.vectors([f.id for f in missing])
            self._keep({i: np.frombuffer(v, dtype=np.float32) for i, v in stored.items()})
            missing = [f for f in missing if f.id not in stored]
        tiers = tiered(self.embeddings)
        if missing and tiers is not None and len(missing) > FULL_UP_TO:
            with self._lock:
                missing = [f for f in missing if f.id not in self._cheap]
            if missing:  # its cosine with a full query, scaled to stand in for the full one
                cheap = _unit(tiers.embed_cheap([fact_text(f) for f in missing])) * tiers.cheap_scale
                with self._lock:
                    self._cheap.update(zip((f.id for f in missing), cheap, strict=True))
        elif missing:
            self._store(missing)
        with self._lock:
            found: dict[str, np.ndarray] = {}
            for fact in facts:
                if fact.id in self._full:
                    self._full.move_to_end(fact.id)
                    found[fact.id] = self._full[fact.id]
                elif fact.id in self._cheap:
                    found[fact.id] = self._cheap[fact.id]
            while len(self._full) > max(KEPT_VECTORS, len(facts)):
                self._full.popitem(last=False)
        return found

    def fill(self, *, until: Callable[[], bool]) -> int:
        """Embed and store the facts that have no vector yet, a batch at a time, until none is
        left or ``until()`` says to stop; returns how many were stored."""
        done = 0
        while not until():
            batch = self.table.without_vector(FILL_BATCH)
            if not batch:
                break
            stored = self._store(batch, background=True)
            if not stored:  # the record refused the write (read-only, full): try again later
                break
            done += stored
        return done

    def drop(self) -> None:
        """Forget every vector (another embedder made them)."""
        self.table.drop_vectors()
        with self._lock:
            self._full.clear()
            self._cheap.clear()

    def _store(self, facts: Sequence[ProfileFact], *, background: bool = False) -> int:
        texts = [fact_text(f) for f in facts]
        tiers = tiered(self.embeddings) if background else None
        if tiers is not None:  # requests go first
            vectors = _unit(tiers.enrich(texts, [None] * len(texts)))
        else:
            vectors = _unit(self.embeddings.embed_documents(texts))
        by_id = dict(zip((f.id for f in facts), vectors, strict=True))
        self._keep(by_id)
        try:
            self.table.store_vectors({i: v.tobytes() for i, v in by_id.items()})
        except StoreError as exc:  # a read-only or full folder: kept in memory only
            logger.debug("fact vectors not stored: %s", exc)
            return 0
        return len(by_id)

    def _keep(self, vectors: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._full.update(vectors)
            for fact_id in vectors:
                self._cheap.pop(fact_id, None)


def _unit(rows: Sequence[Sequence[float]]) -> np.ndarray:
    matrix = np.asarray(rows, dtype=np.float32)
    unit: np.ndarray = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return unit
