"""Erasure: what a user asks to forget is gone from every file, not only out of reach.

The record first (one transaction: the user's interactions, memories of every layer and tier,
summaries, profile facts, decay clock; the keyword index follows by triggers or cascade and is
merged so no deleted word stays in it), then the archive file (rewritten without the user's
records: temp file, fsync, rename), then the vectors, then the SQLite file is scrubbed (freed
pages are zeroed by ``secure_delete``; the WAL is checkpointed and truncated). Vectors hold no
text; if the vector store is down they are removed by the repair at the next start, which
drops every vector the record does not hold.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import UTC, datetime

from memory.domain.importance import said_in
from memory.domain.slots import SAID, values_of
from memory.domain.types import Interaction, Layer, MemoryEntry, scope_of, user_of
from memory.errors import InvalidInputError, StoreUnavailableError
from memory.layers.rag import RagLayer
from memory.layers.summary import SummaryLayer
from memory.record.archive import ArchivedMemory
from memory.record.db import Connection, Database
from memory.record.entries import EntryTable
from memory.record.journal import Journal
from memory.record.profile import ProfileTable
from memory.record.tombstones import Tombstones
from memory.summary.extractive import without_quotes
from memory.summary.summarizer import MODEL
from memory.write.forgotten import Rows, erase_restored
from memory.write.index_sync import IndexSync

logger = logging.getLogger(__name__)
WIDEST_WINDOW = "widest_active_window"
"""The ``meta`` row of :meth:`Eraser._widest`."""


class Eraser:
    """Erases a user's memory from the record, the keyword index, the archive and the vectors.

    Args:
        purge: merges the keyword index after deletions (the record's keyword module's).
        window: the active window's size now (a summary is shown the window beside its buffer).
    """

    def __init__(
        self,
        db: Database,
        table: EntryTable,
        layers: dict[Layer, RagLayer],
        sync: IndexSync,
        purge: Callable[[Connection], None],
        tombstones: Tombstones,
        window: int,
    ) -> None:
        self.tombstones = tombstones
        self.db = db
        self.window = self._widest(window)
        self.table = table
        self.layers = layers
        self.sync = sync
        self.purge = purge

    def _widest(self, window: int) -> int:
        """The widest active window this record was opened with (a summary written then was
        shown that many), ``window`` included; records older than this rule know only today's."""
        kept = int(self.db.get_meta(WIDEST_WINDOW) or 0)
        if window > kept and not self.db.read_only:
            self.db.set_meta(WIDEST_WINDOW, str(window))
        return max(window, kept)

    def forget(self, memory_id: str, user_id: str | None, *, any_user: bool) -> bool:
        """Erase one memory (and the recorded interaction of the same id), or one profile fact
        (an id ``remember(key=...)`` returned); False when there is no such memory or fact, or
        it is not ``user_id``'s (unless ``any_user``).

        An interaction takes with it what was made of its words: the profile facts its statement
        set (:meth:`ProfileTable.erase_set_at`), the summary lines that quote it (a summary left
        with no line goes whole) and every summary a model wrote that read it (of its buffer,
        or shown it in the active window beside the buffer), with the facts the model drew (their
        other interactions go back to the summary buffer: the next summary job reads them again).

        Raises:
            InvalidInputError: a persona (static) memory: it lives in the persona's files.
        """
        found = self.table.by_ids(None, [memory_id])
        if not found:
            return self._forget_fact(memory_id, None if any_user else scope_of(user_id))
        if not any_user and scope_of(found[0].user_id) != scope_of(user_id):
            return False
        entry = found[0]
        home = entry.origin if entry.layer == Layer.ARCHIVED and entry.origin else entry.layer
        if home == Layer.STATIC:
            raise InvalidInputError("memory_id", "a persona memory: edit the persona's files instead")
        scope = scope_of(entry.user_id)
        said = Journal(self.db).by_ids([memory_id])
        by_model = {summary.id: summary for summary in self._model_summaries(memory_id)}
        rewritten = [
            (summary, text)
            for summary, text in (self._summaries_without(scope, said[0]) if said else [])
            if summary.id not in by_model
        ]
        emptied = [summary.id for summary, text in rewritten if not text] + list(by_model)
        with self.db.transaction() as conn:
            EntryTable.erase_ids(conn, [memory_id, *emptied])
            Journal.erase_ids(conn, [memory_id])
            if said:
                values = values_of(said[0].user_input) | values_of(said_in(entry.content))
                ProfileTable.erase_set_at(conn, scope, SAID, said[0].timestamp, values)
            for summary in by_model.values():  # its interactions are summarised again
                Journal.rebuffer(conn, summary.id)
                ProfileTable.erase_set_at(conn, scope, MODEL, summary.created_at)
            current = {summary.id: text for summary, text in rewritten if text}
            for summary_id, text in current.items():
                self.table.set_content(conn, summary_id, text, None)
            # a cold summary's line in the archive file is written again, without the quote
            EntryTable.export_again(conn, [s.id for s, t in rewritten if t and s.layer == Layer.ARCHIVED])
            self.purge(conn)
            touched = {memory_id, *emptied, *current}
            digests = self.tombstones.add_memories(
                conn, sorted({memory_id, *emptied}), datetime.now(UTC), rewritten=sorted(current)
            )
        self.sync.erase_archived(
            lambda record: record.id in touched and current.get(record.id) != record.content
        )
        self._drop_vectors(scope, [(memory_id, home), *((i, Layer.SUMMARY) for i in emptied)])
        self.db.scrub()
        self.tombstones.finish(*digests)
        return True

    def _model_summaries(self, interaction_id: str) -> list[MemoryEntry]:
        """The summaries a model wrote that read an interaction (of its buffer, or shown it in
        the active window beside the buffer: its words may be in them), those still there."""
        read_by = Journal(self.db).read_by(interaction_id, self.window)
        return [summary for summary in self.table.by_ids(None, sorted(read_by)) if summary.source == MODEL]

    def _forget_fact(self, fact_id: str, scope: str | None) -> bool:
        with self.db.transaction() as conn:
            erased = ProfileTable.erase_fact(conn, fact_id, scope)
            digests = self.tombstones.add_memories(conn, [fact_id], datetime.now(UTC)) if erased else []
        if erased:
            self.db.scrub()
            self.tombstones.finish(*digests)
        return erased

    def erase_restored(self, conn: Connection, rows: Rows, forgotten: Collection[str]) -> set[str]:
        """Inside an import's transaction, erase what it restored of the memories and facts
        forgotten here (:func:`memory.write.forgotten.erase_restored`), the keyword index merged;
        returns the ids of the memories erased. The caller scrubs the file once committed."""
        erased = erase_restored(conn, self.table, rows, forgotten, self.window)
        self.purge(conn)
        return erased

    def _summaries_without(self, scope: str, interaction: Interaction) -> list[tuple[MemoryEntry, str]]:
        """The scope's summaries (hot and cold) that quote ``interaction``, each with its text
        without those lines."""
        summaries = self.layers.get(Layer.SUMMARY)
        if not isinstance(summaries, SummaryLayer):
            return []
        kept = (
            (summary, without_quotes(summary.content, interaction))
            for summary in summaries.all_entries(scope)
        )
        return [(summary, text) for summary, text in kept if text != summary.content]

    def _drop_vectors(self, scope: str, erased: list[tuple[str, Layer]]) -> None:
        for entry_id, home in erased:
            rag = self.layers.get(home)
            if rag is None:
                continue
            rag.index.forget_computed([entry_id])
            try:
                rag.stores.delete(scope, [entry_id])
            except StoreUnavailableError as exc:
                logger.warning("the vector of an erased memory stays until the next start: %s", exc)

    def forget_user(self, user_id: str) -> int:
        """Erase everything of one user; returns how many memories (of every layer) went."""
        scope = scope_of(user_id)
        homes = self.table.of_scope(scope)
        with self.db.transaction() as conn:
            erased = EntryTable.erase_scope(conn, scope)
            Journal.erase_scope(conn, scope)
            ProfileTable.erase_scope(conn, scope)
            Database.erase_clock(conn, scope)
            self.purge(conn)
            digest = self.tombstones.add(conn, scope, datetime.now(UTC))  # finished at start if cut
        owner = user_of(scope)
        self.sync.erase_archived(lambda record: record.user_id == owner)
        for layer, rag in self.layers.items():
            ids = [entry_id for entry_id, home in homes if home == layer]
            if ids and not rag.shared:
                try:
                    rag.index.erase_vectors(scope, ids)
                except StoreUnavailableError as exc:
                    logger.warning("vectors of an erased user stay until the next start: %s", exc)
        self.db.scrub()
        self.tombstones.finish(digest)
        return erased

    def finish_unfinished(self) -> int:
        """Finish the erases a crash cut short (at start, after the index repair has dropped the
        vectors the record no longer holds): the archive file loses their users' records and the
        erased memories' (a summary whose quote went keeps its line as it is now), the file is
        scrubbed. Returns how many erases were finished."""
        pending = self.tombstones.unfinished()
        if not pending:
            return 0
        self.sync.erase_archived(lambda record: self._erased_before(record, pending))
        self.db.scrub()
        self.tombstones.finish(*pending)
        logger.warning("finished %d erase(s) a crash had cut short", len(pending))
        return len(pending)

    def _erased_before(self, record: ArchivedMemory, pending: set[str]) -> bool:
        if self.tombstones.digest(scope_of(record.user_id)) in pending:
            return True
        digests = {self.tombstones.memory_digest(record.id), self.tombstones.rewritten_digest(record.id)}
        if not digests & pending:
            return False
        kept = self.table.by_ids(None, [record.id])
        return not kept or kept[0].content != record.content
