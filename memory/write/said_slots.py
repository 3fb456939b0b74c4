"""Slots the words alone missed, found when an interaction is indexed: its USE vector is at hand
then, and the classifier reads both (:func:`memory.domain.slots.slots_with_vector`). The slot each
statement is likely about, sure or not, is stored then too (:func:`memory.domain.slots.vector_looks`).

A write decides at once from the words; this second look comes when the interaction leaves the
active window for the temporary layer and is embedded anyway (no extra model pass). It only adds
what the first found nothing in, never sets a value older than the slot's current one, nor a
fact forgotten here (a re-index, a restored export).

A third look comes when the interaction is enriched (the default blend's E5 pass, in the
background): a statement the second found likely about no slot may be found so by three views
that agree (:meth:`memory.domain.slot_model.SlotModel.agreed`, :data:`AGREED_FLOOR`). It stores
that leaning only; it sets no slot.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.domain import slot_model, slots
from memory.domain.importance import said_in
from memory.domain.sentences import asks_plainly
from memory.domain.types import MemoryEntry
from memory.index.e5 import parts
from memory.index.vector import Vector
from memory.record.db import Database
from memory.record.entries import EntryTable
from memory.record.profile import ProfileTable, statement_fact_id
from memory.record.tombstones import Tombstones

AGREED_FLOOR = 0.6
"""Least combined chance of a slot by the three views for a statement to be stored as likely
about it. Replayed on the four retention scripts one may tune on (5,588 turns): at 0.6 it finds
4 more of their 64 updates likely about their slot, 3 facts and 4 small-talk turns (one line);
at 0.5, 5 updates, 6 facts and 88 small-talk turns (four lines). A small-talk line said once
after an update is raised over it: on the retention bench's held-out half 0.5 showed fewer
updates as current than no third look (81 % against 91 % 200 turns on), 0.6 as many or more."""


def _interactions(
    batch: Sequence[MemoryEntry], vectors: Sequence[Vector]
) -> list[tuple[MemoryEntry, Vector, str]]:
    """The batch's interactions (not imported facts or pinned notes), their vectors and statements."""
    return [
        (entry, vector, said_in(entry.content))
        for entry, vector in zip(batch, vectors, strict=True)
        if entry.source is None and entry.key is None and not entry.pinned
    ]


class SaidSlots:
    """Called with each batch of interactions indexed and their vectors (USE first)."""

    def __init__(self, db: Database, erased: Tombstones) -> None:
        self.db = db
        self.erased = erased

    def __call__(self, batch: Sequence[MemoryEntry], vectors: Sequence[Vector]) -> None:
        told = _interactions(batch, vectors)
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

    def enriched(self, batch: Sequence[MemoryEntry], vectors: Sequence[Vector]) -> None:
        """The third look, with each interaction's full vector (the blend's)."""
        told = _interactions(batch, vectors)
        if not told:
            return
        said = [text.strip() for *_, text in told]
        use, e5 = parts([vector for _, vector, _ in told])
        second = slots.vector_looks(said, list(use))
        third = slot_model.shipped().agreed(said, use, e5, AGREED_FLOOR)
        leans = [
            (entry.id, slot)
            for (entry, _, _), text, (_, seen), slot in zip(told, said, second, third, strict=True)
            if slot is not None and seen is None and not asks_plainly(text)
        ]
        if leans:
            with self.db.transaction() as conn:
                EntryTable.set_leaning(conn, leans)
