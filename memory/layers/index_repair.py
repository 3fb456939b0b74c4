"""Start-up repair of a layer's vectors: the collections made to match the record.

What the record does not hold live is dropped from the index, what it holds but the index lacks
is marked pending (the caller embeds it again), and a cheap vector stored beside its full one
(a kill between the two writes of :meth:`memory.index.scoped.ScopedStores.settle`) is dropped.
"""

from __future__ import annotations

from memory.domain.types import IndexState, Layer
from memory.index.scoped import CHEAP_SUFFIX, POOL_LIMIT, ScopedStores
from memory.index.vectors import VectorStore
from memory.record.entries import EntryTable


def repair(layer: Layer, table: EntryTable, stores: ScopedStores) -> tuple[int, int]:
    """Make a layer's collections match the record; returns (marked pending, removed).

    The vectors of a scope (those of its own collection and of its collection of cheap vectors
    together, or a pool's) that number what the record says were indexed are taken as in step:
    their ids are not read (that costs a second a few thousand memories at every start)."""
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
    missing: set[str] = set()
    removed = 0
    existing = stores.existing_names()
    for name in {n.removesuffix(CHEAP_SUFFIX) for n in existing} | set(live):
        parts = [stores.by_name(n) for n in (name, name + CHEAP_SUFFIX) if n in existing]
        counts = [store.count() for store in parts]
        if name in existing and sum(counts) == held.get(name, 0):
            _drop_empty(stores, parts[1:], counts[1:])
            continue  # as many vectors as the record has indexed: in step (no id read)
        removed += _reconcile(stores, parts, live.get(name, set()), missing)
    if missing:
        table.set_index_state(layer, sorted(missing), IndexState.PENDING)
    return len(missing), removed


def _reconcile(stores: ScopedStores, parts: list[VectorStore], expected: set[str], missing: set[str]) -> int:
    """Drop the vectors of ``parts`` (a collection, then maybe its collection of cheap vectors)
    that are not ``expected``, and a cheap vector beside its full one; add to ``missing`` the
    expected ids neither holds. Returns how many vectors were dropped."""
    found = [store.ids() for store in parts]
    missing.update(expected - set().union(*found))
    removed = 0
    for i, (store, ids) in enumerate(zip(parts, found, strict=True)):
        extra = ids - expected
        if i:
            extra |= ids & found[0]
        if extra:
            store.delete(sorted(extra))
            removed += len(extra)
        found[i] = ids - extra
    _drop_empty(stores, parts[1:], [len(ids) for ids in found[1:]])
    return removed


def _drop_empty(stores: ScopedStores, cheap: list[VectorStore], counts: list[int]) -> None:
    for store, count in zip(cheap, counts, strict=True):
        if count == 0:
            stores.drop_cheap(store.name)
