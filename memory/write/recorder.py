"""Recording interactions: validate, commit to SQLite in one transaction, let the index follow.

Used by :class:`~memory.manager.MemoryManager`; a ``record`` returns once its transaction has
committed (journal row + active entry + any overflow into temporary).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from memory.config import MemoryConfig
from memory.domain import slots, tokens
from memory.domain.formatter import render_interaction
from memory.domain.importance import importance
from memory.domain.twins import run_coroutine
from memory.domain.types import Interaction, Layer, MemoryEntry, scope_of
from memory.domain.validation import check_key, check_timestamp, check_user_id, clean_text
from memory.errors import ImportFileError, InputTypeError, InvalidInputError, MemoryEngineError
from memory.layers.active import ActiveLayer
from memory.layers.temporary import TemporaryLayer
from memory.record.db import Connection, Database
from memory.record.entries import EntryTable
from memory.record.journal import Journal
from memory.record.profile import ProfileTable, statement_fact_id
from memory.record.tombstones import Tombstones
from memory.summary.summarizer import Gate, Summarizer
from memory.write.importer import Admission, ImportReport, describe_error, record_fields, record_id
from memory.write.index_sync import IndexSync

DELIBERATE_INDEX_SECONDS = 0.5
"""Longest ``remember`` and a store's ``put`` wait for their memory's vector (a few tens of ms
with USE + E5), so a search right after finds it by meaning too: a deliberate write is read back."""
REMEMBERED = "remember"
"""The source of what a user or the model asked to remember explicitly."""
STORED = "store"
"""The source of what a LangGraph store ``put`` wrote."""

Record = Mapping[str, Any]
NumberedRecord = tuple[int, Record | str]

Admit = Callable[[Connection, Sequence[Interaction]], Sequence[Interaction]]
"""Which of a batch may be recorded, asked inside its write transaction."""


class Recorder:
    """Turns user calls into committed interactions: it owns the write sequence (validate,
    commit, then the summary model's gate when there is a model)."""

    def __init__(
        self,
        *,
        db: Database,
        journal: Journal,
        active: ActiveLayer,
        temporary: TemporaryLayer,
        profile: ProfileTable,
        sync: IndexSync,
        summarizer: Summarizer,
        config: MemoryConfig,
        persona_name: str,
        now: Callable[[], datetime],
        erased: Tombstones,
    ) -> None:
        self.db = db
        self.erased = erased
        self.journal = journal
        self.active = active
        self.temporary = temporary
        self.profile = profile
        self.sync = sync
        self.summarizer = summarizer
        self.config = config
        self.persona_name = persona_name
        self.now = now

    def record(self, user_input: object, response: object, user_id: object, timestamp: object) -> str:
        """Validate, commit (durable when it returns), then attach the model's gate; the id."""
        interaction = self.build(user_input, response, user_id, timestamp)
        self.commit([interaction])
        if self.summarizer.model is not None:
            gate = run_coroutine(lambda: self.summarizer.gate(interaction))
            if gate is not None:
                self.attach_gate(interaction.id, gate)
        return interaction.id

    async def arecord(self, user_input: object, response: object, user_id: object, timestamp: object) -> str:
        """:meth:`record` with the blocking steps in a worker thread (the loop never waits on
        SQLite); the interaction is committed before the model is asked, so it survives a model
        failure or a crash."""
        interaction = self.build(user_input, response, user_id, timestamp)
        await asyncio.to_thread(self.commit, [interaction])
        gate = await self.summarizer.gate(interaction)
        if gate is not None:
            await asyncio.to_thread(self.attach_gate, interaction.id, gate)
        return interaction.id

    def build(self, user_input: object, response: object, user_id: object, timestamp: object) -> Interaction:
        """Validate arguments into an :class:`Interaction` with a new id (nothing written)."""
        limit = self.config.max_text_chars
        return Interaction(
            id=str(uuid.uuid4()),
            user_input=clean_text("user_input", user_input, limit),
            response=clean_text("response", response, limit),
            timestamp=check_timestamp(timestamp, self.now()),
            user_id=check_user_id(user_id),
        )

    def commit(self, interactions: Sequence[Interaction], admit: Admit | None = None) -> int:
        """Journal and append to active (overflowing to temporary) in one transaction; with
        ``admit``, only the interactions it keeps, asked inside that transaction.

        Returns:
            How many interactions were new (an id already recorded is left as it is).
        """
        entries = {i.id: self._entry_of(i) for i in interactions}
        tokens.prepare_rows(
            self.config.retrieval.keyword_tokenizer, ((e.note, e.content) for e in entries.values())
        )
        said = [(i, slot) for i in interactions if (slot := self._slot(i)) is not None]
        with self.db.transaction() as conn:
            if admit is not None:
                interactions = admit(conn, interactions)
                kept = {i.id for i in interactions}
                said = [(i, slot) for i, slot in said if i.id in kept]
            new = self.journal.append(conn, interactions)
            self.active.append(conn, [entries[i.id] for i in interactions])
            for interaction, slot, fact_id in self._not_forgotten(conn, said):
                self.profile.put(
                    conn, interaction.user_id, slot, slots.value_of(interaction.user_input, slot),
                    since=interaction.timestamp, source=slots.SAID, newer_only=True, fact_id=fact_id,
                )  # fmt: skip
        self.sync.enricher.serving()
        self.sync.notify()
        return new

    def _not_forgotten(
        self, conn: Connection, said: list[tuple[Interaction, str]]
    ) -> list[tuple[Interaction, str, str]]:
        """The statements' facts, each with its id, but those forgotten here (a re-import)."""
        ids = [(interaction, slot, statement_fact_id(interaction.id, slot)) for interaction, slot in said]
        gone = self.erased.forgotten((fact_id for *_, fact_id in ids), conn) if ids else set()
        return [fact for fact in ids if fact[2] not in gone]

    def _slot(self, interaction: Interaction) -> str | None:
        return slots.slot_of(interaction.user_input) if self.config.temporary.slots else None

    def _entry_of(self, interaction: Interaction) -> MemoryEntry:
        return MemoryEntry(
            id=interaction.id,
            layer=Layer.ACTIVE,
            content=render_interaction(interaction, self.persona_name, self.config.locale),
            created_at=interaction.timestamp,
            user_id=interaction.user_id,
            note=interaction.note,
            importance=importance(interaction.user_input) if self.config.temporary.importance else None,
        )

    def attach_gate(self, interaction_id: str, gate: Gate) -> None:
        """Store what the model said of an interaction: its one-line note beside the raw text
        (re-indexed if already searchable) and its importance (noise: 0)."""
        judged = 0.0 if not gate.remember else gate.importance
        if gate.note:
            entries = self.active.table.by_ids(None, [interaction_id])  # re-indexed with the note
            tokens.prepare_rows(
                self.config.retrieval.keyword_tokenizer, ((gate.note, e.content) for e in entries)
            )
        with self.db.transaction() as conn:
            if gate.note:
                self.journal.set_note(conn, interaction_id, gate.note)
                self.active.table.set_note(conn, interaction_id, gate.note)
            if judged is not None:
                EntryTable.set_importance(conn, interaction_id, judged)
        self.sync.notify()

    def _imported(self, record: Record) -> Interaction:
        """A validated record; with a timestamp its id derives from it (re-imports add nothing)."""
        user_input, response, user_id, timestamp = record_fields(record)
        interaction = self.build(user_input, response, user_id, timestamp)
        if timestamp is None:
            return interaction
        i = interaction
        return replace(i, id=record_id(i.user_id, i.timestamp, i.user_input, i.response))

    def remember(self, text: object, *, user_id: object, key: object, pinned: object) -> str:
        """Store an explicit fact: a profile fact when it has a key, else a memory (pinned: never
        decays). The same text told again refreshes the memory told before (same id). Every
        argument is validated before anything is written; returns the memory's id."""
        # spacing is not content: the same fact told with other spaces is the same memory
        lines = clean_text("text", text, self.config.max_text_chars).splitlines()
        value = "\n".join(" ".join(line.split()) for line in lines if line.strip())
        user = check_user_id(user_id)
        fact_key = check_key(key)
        if not isinstance(pinned, bool):
            raise InputTypeError("pinned", "a bool", pinned)
        now = self.now()
        if fact_key is not None:
            with self.db.transaction() as conn:
                return self.profile.put(conn, user, fact_key, value, since=now, source=REMEMBERED).id
        entry = MemoryEntry(
            id=str(uuid.uuid4()),
            layer=Layer.TEMPORARY,
            content=value,
            created_at=now,
            user_id=user,
            source=REMEMBERED,
            pinned=pinned,
        )
        with self.db.transaction() as conn:
            known = self.temporary.refresh(conn, entry)  # told again: no second copy
            if known is None:
                self.temporary.add(conn, entry)
        self.sync.notify()
        self.sync.catch_up(DELIBERATE_INDEX_SECONDS)
        return known or entry.id

    def put_item(self, user_id: str, key: str, text: str, item: str) -> str:
        """Store the memory a store key names, or replace its text (same id, re-indexed); pinned
        like :meth:`remember`. Arguments are validated by the caller; returns the id."""
        text = clean_text("value", text, self.config.max_text_chars)
        tokens.prepare_rows(self.config.retrieval.keyword_tokenizer, [(None, text)])
        entry = MemoryEntry(
            id=str(uuid.uuid4()), layer=Layer.TEMPORARY, content=text, created_at=self.now(),
            user_id=user_id, source=STORED, pinned=True, key=key, item=item,
        )  # fmt: skip
        with self.db.transaction() as conn:
            known = EntryTable.id_of_key(conn, scope_of(user_id), key)
            if known is None:
                self.temporary.add(conn, entry)
            else:
                self.temporary.table.set_content(conn, known, text, item)
        self.sync.notify()
        self.sync.catch_up(DELIBERATE_INDEX_SECONDS)
        return known or entry.id

    def import_records(
        self,
        records: Iterable[Record] | Iterable[NumberedRecord],
        *,
        batch_size: int,
        skip_invalid: bool,
        progress: Callable[[int], object] | None,
        allow_erased: bool = False,
    ) -> ImportReport:
        """Validate every record, then commit and index in batches (see ``import_interactions``):
        a record forgotten here is left out, records of users erased here are refused unless
        ``allow_erased``."""
        self.db.check_writable()
        if isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise InputTypeError("batch_size", "an int", batch_size)
        if batch_size < 1:
            raise InvalidInputError("batch_size", f"must be >= 1, got {batch_size}")
        started = time.perf_counter()
        report = ImportReport()
        valid: list[Interaction] = []
        for number, record in _numbered(records):
            try:
                if isinstance(record, str):
                    raise InvalidInputError("line", record)
                valid.append(self._imported(record))
            except (MemoryEngineError, TypeError, ValueError) as exc:
                report.skipped.append((number, describe_error(exc)))
        if report.skipped and not skip_invalid:
            shown = "; ".join(f"line {n}: {why}" for n, why in report.skipped[:5])
            raise ImportFileError(
                "records",
                f"{len(report.skipped)} bad record(s), nothing imported ({shown}); "
                "fix them or pass skip_invalid=True",
            )
        admit = Admission(self.erased, valid, allow_erased=allow_erased)
        with self.sync.bulk():
            for start in range(0, len(valid), batch_size):
                batch = valid[start : start + batch_size]
                left_out = admit.left_out
                new = self.commit(batch, admit)
                self.sync.flush()
                report.imported += new
                report.already += len(batch) - new - (admit.left_out - left_out)
                if progress is not None:
                    progress(len(batch))
        report.forgotten = admit.left_out
        report.seconds = time.perf_counter() - started
        return report


def _numbered(records: Iterable[Record] | Iterable[NumberedRecord]) -> Iterator[NumberedRecord]:
    for number, record in enumerate(records, start=1):
        if isinstance(record, tuple):
            line, payload = record
            yield int(line), payload
        else:
            yield number, cast(Record, record)
