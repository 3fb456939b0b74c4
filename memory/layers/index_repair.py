"""Make a layer's vector index match the record at start (:func:`repair`)."""

from __future__ import annotations

from memory.domain.types import IndexState, Layer
from memory.index.scoped import POOL_LIMIT, WAITING_SUFFIX, ScopedStores
from memory.record.entries import EntryTable


def repair(layer: Layer, table: EntryTable, stores: ScopedStores) -> tuple[int, int]:
    """Drop what the record does not hold live from a layer's collections, and mark what they
    lack pending (the indexer embeds it). A collection holding as many vectors as the record
    says it should is taken as in step (its ids are not read: that costs a second a few thousand
    memories at every start).

    Returns:
        (marked pending, removed) counts.
    """
    by_scope = table.ids_by_scope(layer)
    for scope, ids in by_scope.items():  # scopes that outgrew the pool (or an older layout)
        if len(ids) > POOL_LIMIT and stores.pooled(scope):
            stores.promote(scope, sorted(ids))
    live: dict[str, set[str]] = {}
    for scope, ids in by_scope.items():
        live.setdefault(stores.name_of(scope), set()).update(ids)
    held: dict[str, int] = {}
    for scope, count in table.indexed_by_scope(layer).items():
        held[stores.name_of(scope)] = held.get(stores.name_of(scope), 0) + count
    missing: list[str] = []
    removed = 0
    existing = stores.existing_names()
    for name in {n.removesuffix(WAITING_SUFFIX) for n in existing} | set(live):
        waiting = name + WAITING_SUFFIX if name + WAITING_SUFFIX in existing else None
        exists = name in existing
        lacking, dropped = _repair_one(
            stores, name, exists, waiting, live.get(name, set()), held.get(name, 0)
        )
        missing.extend(lacking)
        removed += dropped
    if missing:
        table.set_index_state(layer, sorted(missing), IndexState.PENDING)
    return len(missing), removed


def _repair_one(
    stores: ScopedStores, name: str, exists: bool, waiting: str | None, expected: set[str], held: int
) -> tuple[set[str], int]:
    """Repair one collection and its waiting one: the ids they lack, how many they dropped. An
    id in both keeps its full vector (enrichment was cut before it deleted the cheap one)."""
    store = stores.by_name(name)
    spare = stores.by_name(waiting) if waiting else None
    spare_count = spare.count() if spare is not None else 0
    if exists and store.count() + spare_count == held:
        if waiting and not spare_count:
            stores.drop_waiting(waiting)
        return set(), 0  # as many vectors as the record has indexed: in step (no id read)
    in_store = store.ids() if exists else set()
    in_spare = spare.ids() if spare is not None else set()
    extra = (in_store | in_spare) - expected
    if extra & in_store:
        store.delete(sorted(extra & in_store))
    if spare is not None and waiting:
        stale = (in_spare & extra) | (in_spare & in_store)
        if stale:
            spare.delete(sorted(stale))
        if not in_spare - stale:
            stores.drop_waiting(waiting)
    return expected - in_store - in_spare, len(extra)
