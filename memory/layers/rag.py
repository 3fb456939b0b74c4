"""What the three searchable layers share: entries in SQLite, vectors in one Chroma collection.

A layer's rows in the ``entries`` table are the truth; its collection is an index of them, kept
in step by :meth:`RagLayer.index_pending` (rows with ``indexed = 0``), by
:meth:`memory.sync.IndexSync.export_archived` (archived rows leave the collection) and by
:meth:`RagLayer.repair` at start.
"""

from __future__ import annotations

import logging
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memory import keyword
from memory.db import ENTRY_COLUMNS, Database, entry_from_row
from memory.layers.base import SHARED_SCOPE, Layer, MemoryEntry, scope_of
from memory.scoped import ScopedStores
from memory.significance import significance_at
from memory.store import VectorStore

logger = logging.getLogger(__name__)

Vector = list[float]


@dataclass(frozen=True)
class Candidate:
    """A live entry found by a layer search, with its similarity and current significance."""

    entry: MemoryEntry
    similarity: float
    significance: float
    fused: float = 0.0
    """Reciprocal-rank-fusion score (hybrid mode only)."""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class RagLayer:
    """Base of the temporary, summary and static layers."""

    layer: Layer = Layer.TEMPORARY
    decay_coefficient: float = 1.0
    shared: bool = False
    """Static memories are shared by every user; other layers are kept per user scope."""

    def __init__(self, db: Database, stores: ScopedStores, now: Callable[[], datetime]) -> None:
        self.db = db
        self.stores = stores
        self.now = now

    @property
    def store(self) -> VectorStore:
        """The collection of the shared scope (the only one of a shared layer)."""
        return self.stores.for_scope(SHARED_SCOPE)

    def count(self, user_id: str | None = None, *, all_scopes: bool = False) -> int:
        """The number of live entries (in one scope, or all)."""
        if all_scopes or self.shared:
            return self.db.count("SELECT COUNT(*) FROM entries WHERE layer = ?", (self.layer.value,))
        else:
            return self.db.count(
                "SELECT COUNT(*) FROM entries WHERE layer = ? AND scope = ?",
                (self.layer.value, scope_of(user_id)),
            )

    def has_entries(self, scope: str) -> bool:
        """Whether the layer holds a live entry in ``scope`` (one indexed lookup)."""
        if self.shared:
            rows = self.db.query("SELECT 1 FROM entries WHERE layer = ? LIMIT 1", (self.layer.value,))
        else:
            rows = self.db.query(
                "SELECT 1 FROM entries WHERE layer = ? AND scope = ? LIMIT 1", (self.layer.value, scope)
            )
        return bool(rows)

    def entries(self, user_id: str | None = None) -> list[MemoryEntry]:
        """Live entries of a scope, oldest first."""
        if self.shared:
            rows = self.db.query(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE layer = ? ORDER BY seq",
                (self.layer.value,),
            )
        else:
            rows = self.db.query(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE layer = ? AND scope = ? ORDER BY seq",
                (self.layer.value, scope_of(user_id)),
            )
        return [entry_from_row(r) for r in rows]

    def current_significance(self, entry: MemoryEntry, tick: int) -> float:
        """The lazily decayed significance of ``entry`` at ``tick``."""
        return significance_at(entry.significance, entry.changed_at, tick, self.decay_coefficient)

    def search(self, vector: Vector, top_k: int, user_id: str | None) -> list[Candidate]:
        """Up to ``top_k`` live entries nearest to ``vector`` in this layer and scope."""
        if top_k <= 0:
            return []
        scope = scope_of(user_id)
        if not self.has_entries(scope):
            return []  # an empty collection still costs a query
        hits = self.stores.for_scope(scope).search(vector, top_k)
        if not hits:
            return []
        by_id = {e.id: e for e in self._live(h.id for h in hits)}
        tick = self.db.tick_of(scope)
        found: list[Candidate] = []
        for hit in hits:
            entry = by_id.get(hit.id)
            if entry is None:
                continue  # archived or not yet committed: SQLite is the truth
            found.append(Candidate(entry, hit.similarity, self.current_significance(entry, tick)))
        return found

    def hybrid_search(
        self,
        vector: Vector,
        expression: str | None,
        top_k: int,
        user_id: str | None,
        *,
        rrf_k: int,
        depth: int,
        keyword_weight: float = 1.0,
    ) -> list[Candidate]:
        """Dense and keyword (FTS5 bm25) rankings fused by reciprocal rank, best ``top_k``.

        Args:
            expression: the FTS5 MATCH expression of the query (None: dense only).
            depth: how many candidates each ranking contributes.
            keyword_weight: weight of the keyword ranking in the fusion (the dense one weighs 1).
        """
        if top_k <= 0:
            return []
        dense = self.search(vector, depth, user_id)
        keyword_ids = self.keyword_ranking(expression, depth, user_id) if expression else []
        fused: dict[str, float] = {}
        for ranking, weight in (([c.entry.id for c in dense], 1.0), (keyword_ids, keyword_weight)):
            for rank, entry_id in enumerate(ranking, start=1):
                fused[entry_id] = fused.get(entry_id, 0.0) + weight / (rrf_k + rank)
        best = sorted(fused, key=lambda i: fused[i], reverse=True)[:top_k]
        by_id = {c.entry.id: c for c in dense}
        missing = [i for i in best if i not in by_id]
        if missing:
            by_id.update({c.entry.id: c for c in self._candidates_for(missing, vector, user_id)})
        return [replace(by_id[i], fused=fused[i]) for i in best if i in by_id]

    def keyword_ranking(self, expression: str, depth: int, user_id: str | None) -> list[str]:
        """Ids ranked by FTS5 bm25 for an FTS5 MATCH expression (empty scopes cost nothing)."""
        scope = scope_of(user_id)
        if not self.has_entries(scope):
            return []
        hits = keyword.search(
            self.db.query,
            expression=expression,
            layer=self.layer.value,
            scope=None if self.shared else scope,
            limit=depth,
        )
        return [entry_id for entry_id, _ in hits]

    def _candidates_for(self, ids: Sequence[str], vector: Vector, user_id: str | None) -> list[Candidate]:
        """Candidates for entries found by keywords only: similarity from their stored vectors."""
        vectors = self.stores.for_scope(scope_of(user_id)).vectors(ids)
        tick = self.db.tick_of(scope_of(user_id))
        found = []
        for entry in self._live(ids):
            stored = vectors.get(entry.id)
            similarity = _cosine(vector, stored) if stored is not None else 0.0
            found.append(Candidate(entry, similarity, self.current_significance(entry, tick)))
        return found

    def _live(self, ids: Iterable[str]) -> list[MemoryEntry]:
        id_list = list(ids)
        if not id_list:
            return []
        marks = ",".join("?" * len(id_list))
        rows = self.db.query(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE +layer = ? AND id IN ({marks})",  # by id, not layer
            (self.layer.value, *id_list),
        )
        return [entry_from_row(r) for r in rows]

    def index_pending(self, limit: int = 2000) -> int:
        """Add live entries not yet in the vector index; returns how many were indexed."""
        total = 0
        while True:
            rows = self.db.query(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE indexed = 0 AND layer = ? ORDER BY seq LIMIT ?",
                (self.layer.value, limit),
            )
            if not rows:
                return total
            entries = [entry_from_row(r) for r in rows]
            by_scope: dict[str, list[MemoryEntry]] = {}
            for entry in entries:
                by_scope.setdefault(scope_of(entry.user_id), []).append(entry)
            for scope, group in by_scope.items():
                self.stores.for_scope(scope).add(
                    [e.id for e in group], [e.index_text for e in group], [self.metadata(e) for e in group]
                )
            with self.db.transaction() as conn:
                conn.executemany(
                    "UPDATE entries SET indexed = 1 WHERE id = ? AND layer = ?",
                    [(e.id, self.layer.value) for e in entries],
                )
            total += len(entries)

    def metadata(self, entry: MemoryEntry) -> dict[str, str | int | float | bool]:
        """The Chroma metadata of an entry: its scope and creation time."""
        return {"scope": scope_of(entry.user_id), "created_at": entry.created_at.timestamp()}

    def mark_unindexed(self, conn: sqlite3.Connection, entry_ids: Sequence[str]) -> None:
        """Flag entries whose indexed text changed so the next sync re-embeds them."""
        conn.executemany(
            "UPDATE entries SET indexed = 0 WHERE id = ? AND layer = ?",
            [(i, self.layer.value) for i in entry_ids],
        )

    def indexed_ids(self) -> set[str]:
        """Ids SQLite says are live in this layer."""
        rows = self.db.query("SELECT id FROM entries WHERE layer = ?", (self.layer.value,))
        return {str(r[0]) for r in rows}

    def live_ids_by_collection(self) -> dict[str, set[str]]:
        """Live ids grouped by the collection that should hold them."""
        rows = self.db.query("SELECT id, scope FROM entries WHERE layer = ?", (self.layer.value,))
        grouped: dict[str, set[str]] = {}
        for entry_id, scope in rows:
            grouped.setdefault(self.stores.name_of(str(scope)), set()).add(str(entry_id))
        return grouped

    def repair(self) -> tuple[int, int]:
        """Make the index match SQLite: add what it lacks, drop what SQLite does not hold live.

        Returns:
            (added, removed) counts.
        """
        live = self.live_ids_by_collection()
        missing: list[str] = []
        removed = 0
        existing = self.stores.existing_names()
        for name in existing | set(live):
            store = self.stores.by_name(name)
            in_store = store.ids() if name in existing else set()
            expected = live.get(name, set())
            missing.extend(expected - in_store)
            extra = sorted(in_store - expected)
            if extra:
                store.delete(extra)
                removed += len(extra)
        if missing:
            with self.db.transaction() as conn:
                self.mark_unindexed(conn, sorted(missing))
        return self.index_pending(), removed

    def drop_all(self) -> None:
        """Delete every collection of this layer (``reindex``)."""
        for name in self.stores.existing_names() | self.stores.cached_names():
            self.stores.by_name(name).drop()
