"""ActiveLayer: the newest ``capacity`` interactions of each user scope, verbatim, in order.

First in, first out: appending past capacity hands the oldest entries to ``on_overflow`` inside
the same SQLite transaction, so an interaction is always in exactly one layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memory.domain.types import IndexState, Layer, MemoryEntry, scope_of
from memory.record.db import Connection
from memory.record.entries import EntryTable

OverflowHandler = Callable[[Connection, Sequence[MemoryEntry]], None]


class ActiveLayer:
    """The verbatim window; not searched, injected whole into the prompt."""

    layer = Layer.ACTIVE

    def __init__(self, entries: EntryTable, capacity: int, on_overflow: OverflowHandler) -> None:
        self.table = entries
        self.capacity = capacity
        self.on_overflow = on_overflow

    def append(self, conn: Connection, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
        """Insert entries (in order) and overflow the oldest beyond capacity.

        Returns:
            The entries that overflowed (already handed to ``on_overflow``).
        """
        self.table.insert(conn, entries, IndexState.NOT_SEARCHED)
        overflowed: list[MemoryEntry] = []
        for scope in dict.fromkeys(scope_of(e.user_id) for e in entries):
            overflowed.extend(self.table.beyond_newest(conn, self.layer, scope, self.capacity))
        if overflowed:
            self.on_overflow(conn, overflowed)
        return overflowed

    def entries(self, user_id: str | None = None) -> list[MemoryEntry]:
        """The window of a scope, oldest first."""
        return self.table.live(self.layer, scope_of(user_id))

    def count(self, user_id: str | None = None, *, all_scopes: bool = False) -> int:
        """How many interactions the window holds (one scope, or all)."""
        return self.table.count(self.layer, None if all_scopes else scope_of(user_id))
