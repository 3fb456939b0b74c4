"""A LangGraph store over the engine's memories: ``BaseStore`` (langgraph-checkpoint).

Namespace ``(prefix, user_id)`` (``("memories", "u42")``) is that user's memory. ``put`` stores a
value ``{"content": str, ...}`` (as LangMem's memory tools write it) as a pinned memory under its
key, kept whole; a second ``put`` to the key replaces its text. ``get`` reads a key (memories
recorded by the chat carry their id as key). ``search`` with a ``query`` is the engine's
retrieval (a decay tick, like any retrieval), without one it lists the user's memories, newest
first. ``delete`` erases from every file (``forget``). Namespaces match whole segments: user
``u1`` never sees ``u10``; a search must name its user. The only module importing langgraph.
"""

from __future__ import annotations

import asyncio
import json
import operator
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memory.domain.types import USER_LAYERS, Layer, MemoryEntry, scope_of
from memory.domain.validation import check_user_id
from memory.engine import Engine
from memory.errors import InputTypeError, InvalidInputError

LISTED = USER_LAYERS
"""The layers a search without a query lists (the cold tier is found by a query)."""
MAX_KEY_CHARS = 256


class StoreMemory(Protocol):
    """What the store needs of a manager."""

    def forget(self, memory_id: str, *, user_id: str | None = None) -> bool: ...


def value_of(entry: MemoryEntry) -> dict[str, Any]:
    """The store value of a memory: as it was put, else its text and layer."""
    if entry.item is not None:
        value: dict[str, Any] = json.loads(entry.item)
        return value
    return {"content": entry.content, "layer": (entry.origin or entry.layer).value}


def matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A namespace against a prefix or suffix condition (``"*"`` matches one segment)."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = (
        namespace[: len(path)]
        if condition.match_type == "prefix"
        else namespace[len(namespace) - len(path) :]
    )
    return all(p in ("*", n) for p, n in zip(path, part, strict=True))


OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "$eq": operator.eq,
    "$ne": operator.ne,
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def check_filter(wanted: Any) -> None:
    """Refuse a filter with an operator :func:`passes` does not know."""
    if isinstance(wanted, dict):
        for key, inner in wanted.items():
            if str(key).startswith("$") and key not in OPERATORS:
                raise InvalidInputError("filter", f"unknown operator {key!r} (use {', '.join(OPERATORS)})")
            check_filter(inner)


def passes(value: Any, wanted: Any) -> bool:
    """A value against a filter value: equality, nested dicts, or ``$eq $ne $gt $gte $lt $lte``."""
    if isinstance(wanted, dict) and any(str(k).startswith("$") for k in wanted):
        try:
            return all(OPERATORS[op](value, arg) for op, arg in wanted.items())
        except TypeError:
            return False
    if isinstance(wanted, dict):
        return isinstance(value, dict) and all(passes(value.get(k), v) for k, v in wanted.items())
    return bool(value == wanted)


class MemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` over one persona's per-user memories (see the module docstring).

    Create it with ``MemoryManager.as_store()``; it lives as long as the manager.
    """

    supports_ttl = False

    def __init__(self, memory: StoreMemory, engine: Engine, *, prefix: str = "memories") -> None:
        if not isinstance(prefix, str) or not prefix or "." in prefix:
            raise InvalidInputError("prefix", "must be a non-empty str without '.'")
        self.memory = memory
        self.engine = engine
        self.prefix = prefix

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run store operations in order (get, search, put, list namespaces)."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise InputTypeError("op", "a GetOp, SearchOp, PutOp or ListNamespacesOp", op)

    def _user(self, namespace: tuple[str, ...]) -> str | None:
        """The user a namespace names; None when it is not of the ``(prefix, user)`` shape."""
        if len(namespace) != 2 or namespace[0] != self.prefix:
            return None
        return check_user_id(namespace[1])

    def _find(self, user: str, key: str) -> MemoryEntry | None:
        entry = self.engine.entries.by_key(scope_of(user), key)
        if entry is None:
            found = self.engine.entries.by_ids(None, [key])
            entry = found[0] if found and found[0].user_id == user else None
        return entry

    def _item(self, namespace: tuple[str, ...], entry: MemoryEntry, score: float | None = None) -> SearchItem:
        stamp = entry.created_at
        return SearchItem(namespace, entry.key or entry.id, value_of(entry), stamp, stamp, score)

    def _get(self, op: GetOp) -> Item | None:
        user = self._user(op.namespace)
        entry = None if user is None else self._find(user, op.key)
        if entry is None:
            return None
        found = self._item(op.namespace, entry)
        return Item(value=found.value, key=found.key, namespace=found.namespace,
                    created_at=found.created_at, updated_at=found.updated_at)  # fmt: skip

    def _put(self, op: PutOp) -> None:
        user = self._user(op.namespace)
        if user is None:
            raise InvalidInputError("namespace", f"must be ({self.prefix!r}, user_id), got {op.namespace!r}")
        if not isinstance(op.key, str) or not op.key.strip() or len(op.key) > MAX_KEY_CHARS:
            raise InvalidInputError("key", f"must be a non-empty str of at most {MAX_KEY_CHARS} characters")
        if op.value is None:
            entry = self._find(user, op.key)
            if entry is not None:
                self.memory.forget(entry.id, user_id=user)
            return
        if not isinstance(op.value, dict) or "content" not in op.value:
            raise InvalidInputError("value", 'must be a dict with "content" (e.g. {"content": "..."})')
        content = op.value["content"]
        try:
            item = json.dumps(op.value, ensure_ascii=False)
            text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError("value", f"must be JSON-serialisable ({exc})") from None
        self.engine.recorder.put_item(user, op.key, text, item)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        if len(prefix) < 2 and (not prefix or prefix[0] == self.prefix):
            raise InvalidInputError(
                "namespace_prefix", f"search one user's memories: ({self.prefix!r}, user_id), got {prefix!r}"
            )
        user = self._user(prefix)
        if user is None:
            return []
        namespace = (self.prefix, user)
        check_filter(op.filter)
        if op.query:
            wanted = None if op.filter else op.offset + op.limit
            retriever = self.engine.retriever  # a store's search ranks; it fills no prompt: no floor
            result = retriever.retrieve_memories(op.query, user_id=user, top_k=wanted, floor=False)
            # in the engine's order; the score is the similarity, in [0, 1] as LangGraph's stores give it
            found = [
                self._item(namespace, m.entry, min(1.0, max(0.0, m.similarity)))
                for m in result.memories
                if m.entry.user_id == user
            ]
        else:
            entries = [e for layer in LISTED for e in self.engine.entries.live(layer, scope_of(user))]
            entries.sort(key=lambda e: e.created_at, reverse=True)
            found = [self._item(namespace, e) for e in entries]
        if op.filter:
            found = [i for i in found if all(passes(i.value.get(k), v) for k, v in op.filter.items())]
        return found[op.offset : op.offset + op.limit]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        entries = self.engine.entries
        scopes = set().union(*(entries.scopes(layer) for layer in (*LISTED, Layer.ARCHIVED)))
        found: list[tuple[str, ...]] = [(self.prefix, scope) for scope in sorted(scopes) if scope]
        conditions = op.match_conditions or ()
        found = [n for n in found if all(matches(c, n) for c in conditions)]
        if op.max_depth is not None:
            found = list(dict.fromkeys(n[: op.max_depth] for n in found))
        return found[op.offset : op.offset + op.limit]
