"""What an import brings back of the memories forgotten here, erased inside the import's own
transaction: no reader, export or crash ever sees it restored.

An export made before a ``forget`` still holds what was forgotten, and what was made of it. The
import finds those ids by their tombstones (:meth:`Tombstones.forgotten`) and, from the file's
rows alone, erases them as :meth:`memory.write.erase.Eraser.forget` did: an interaction with the
profile facts its statement set, its lines in the extractive summaries (a summary left with no
line goes whole) and the summaries a model wrote that read it, with the facts the model drew
(their other interactions go back to the summary buffer); a memory or a fact by its id. Nothing else of the
record is touched: the ids are the file's, and its users hold nothing here yet.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from memory.domain.importance import said_in
from memory.domain.slots import SAID, values_of
from memory.domain.types import Layer
from memory.record.db import Connection, from_epoch
from memory.record.entries import EntryTable
from memory.record.journal import Journal, interaction_of, readers
from memory.record.profile import ProfileTable
from memory.summary.extractive import without_quotes
from memory.summary.summarizer import MODEL

Rows = Mapping[str, Sequence[Mapping[str, Any]]]
"""An export's rows by kind (``interaction``, ``memory``, ``profile``)."""


def _is_summary(row: Mapping[str, Any]) -> bool:
    home = row.get("archived_layer") if row.get("layer") == Layer.ARCHIVED.value else row.get("layer")
    return home == Layer.SUMMARY.value


def erase_restored(
    conn: Connection, table: EntryTable, rows: Rows, forgotten: Collection[str], window: int
) -> set[str]:
    """Erase, inside the importing transaction, the restored rows of ``forgotten`` ids and what
    was made of them (``window``: the active window's size); returns the ids of the memories
    erased (summaries emptied included)."""
    memories = {str(row["id"]): row for row in rows["memory"]}
    summaries = {key: str(row["content"]) for key, row in memories.items() if _is_summary(row)}
    erased = {key for key in forgotten if key in memories}
    said_rows = rows["interaction"]
    for place, row in enumerate(said_rows):
        if str(row["id"]) not in forgotten:
            continue
        interaction, scope = interaction_of(row), str(row["scope"])
        said = memories.get(interaction.id, {}).get("content")
        values = values_of(interaction.user_input) | (values_of(said_in(str(said))) if said else set())
        ProfileTable.erase_set_at(conn, scope, SAID, interaction.timestamp, values)
        later = [r.get("summary_id") for r in said_rows[place:] if r["scope"] == row["scope"]]
        for summary_id in sorted(readers([None if s is None else str(s) for s in later], window)):
            summary = memories.get(summary_id)
            if summary is not None and summary.get("source") == MODEL:  # its interactions go back
                Journal.rebuffer(conn, summary_id)
                ProfileTable.erase_set_at(conn, scope, MODEL, from_epoch(float(summary["created_at"])))
                erased.add(summary_id)
        for key, text in list(summaries.items()):
            if memories[key]["scope"] != scope or key in erased:
                continue
            kept = without_quotes(text, interaction)
            if kept != text:
                summaries[key] = kept
                if not kept:
                    erased.add(key)
                else:
                    table.set_content(conn, key, kept, None)
    Journal.erase_ids(conn, sorted({str(row["id"]) for row in rows["interaction"]} & set(forgotten)))
    EntryTable.erase_ids(conn, sorted(erased))
    for row in rows["profile"]:
        if str(row["id"]) in forgotten:
            ProfileTable.erase_fact(conn, str(row["id"]), str(row["scope"]))
    return erased
