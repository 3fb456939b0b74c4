"""Slots the words alone missed, found when an interaction is indexed: its USE vector is at hand
then, and the classifier reads both (:func:`memory.domain.slots.slots_with_vector`). The slot each
statement is likely about, sure or not, is stored then too (:func:`memory.domain.slots.vector_looks`).

A write decides at once from the words; this second look comes when the interaction leaves the
active window for the temporary layer and is embedded anyway (no extra model pass). It only adds
what the first found nothing in, never sets a value older than the slot's current one, nor a
fact forgotten here (a re-index, a restored export).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.domain import slots
from memory.domain.importance import said_in
from memory.domain.types import MemoryEntry
from memory.index.vector import Vector
from memory.record.db import Database
from memory.record.entries import EntryTable
from memory.record.profile import ProfileTable, statement_fact_id
from memory.record.tombstones import Tombstones


class SaidSlots:
    """Called with each batch of interactions indexed and their vectors (USE first)."""

    def __init__(self, db: Database, erased: Tombstones) -> None:
        self.db = db
        self.erased = erased

    def __call__(self, batch: Sequence[MemoryEntry], vectors: Sequence[Vector]) -> None:
        told = [
            (entry, vector, said_in(entry.content))
            for entry, vector in zip(batch, vectors, strict=True)
            if entry.source is None and entry.key is None and not entry.pinned  # an interaction
        ]
        looks = slots.vector_looks([said for *_, said in told], [vector for _, vector, _ in told])
        leans = [(entry.id, slot) for (entry, _, _), (_, slot) in zip(told, looks, strict=True) if slot]
        found = []
        for (entry, vector, said), (maybe, _) in zip(told, looks, strict=True):
            by_words, slot = slots.slots_with_vector(said, vector) if maybe else (None, None)
            if slot is not None and by_words is None:
                found.append((entry, slot, said))
        if not found and not leans:
            return
        with self.db.transaction() as conn:  # asked inside it: an erase comes first or waits
            EntryTable.set_leaning(conn, leans)  # an entry erased meanwhile: no row to update
            alive = EntryTable.existing(conn, [entry.id for entry, _, _ in found])
            gone = self.erased.forgotten((statement_fact_id(e.id, slot) for e, slot, _ in found), conn)
            for entry, slot, said in found:
                if entry.id in alive and statement_fact_id(entry.id, slot) not in gone:
                    ProfileTable.put(
                        conn, entry.user_id, slot, slots.value_of(said, slot), since=entry.created_at,
                        source=slots.SAID, newer_only=True, fact_id=statement_fact_id(entry.id, slot),
                    )  # fmt: skip
