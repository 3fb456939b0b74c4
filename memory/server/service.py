"""The served managers, one per persona, and what each route and tool does with them.

Framework-free: the REST app, the MCP tools and the inspector call these coroutines, which run
the engine's blocking work in worker threads so the event loop keeps serving. Errors are the
engine's own (:mod:`memory.errors`); each surface maps them to its protocol.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langchain_core.runnables import Runnable

from memory.config import MemoryConfig
from memory.domain.types import Layer, utcnow
from memory.domain.validation import check_user_id
from memory.errors import InvalidInputError, PersonaNotFoundError
from memory.manager import MemoryManager
from memory.server import payloads
from memory.server.payloads import Json

COLD_SHOWN = 50
"""Cold memories the inspector lists at most (search narrows them)."""


class MemoryService:
    """Opens one :class:`MemoryManager` per persona; ``async with`` starts and stops their jobs.

    Args:
        personas: the persona folder names to serve (at least one).
        config: the engine configuration, shared by every persona (``server`` is read here).
        summary_model: the chat model of every persona's summaries (``None``: config or extractive).
    """

    def __init__(
        self,
        personas: Sequence[str],
        config: MemoryConfig | None = None,
        summary_model: Runnable[Any, Any] | None = None,
    ) -> None:
        if isinstance(personas, str) or not personas:
            raise InvalidInputError("personas", "give a list of one or more persona names")
        self.config = (config or MemoryConfig()).validate()
        self._managers: dict[str, MemoryManager] = {}
        try:
            for persona in dict.fromkeys(personas):
                self._managers[persona] = MemoryManager(persona, self.config, summary_model)
        except BaseException:
            self.close()
            raise
        self._recent: dict[tuple[str, str], deque[Json]] = {}
        self._recent_lock = threading.Lock()

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> MemoryService:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start every persona's scheduled jobs."""
        for manager in self._managers.values():
            await manager.start()

    async def stop(self) -> None:
        """Stop the jobs, flush derived state and close every file (idempotent)."""
        for manager in self._managers.values():
            await manager.stop()

    def close(self) -> None:
        """Close every manager without a loop (idempotent)."""
        for manager in self._managers.values():
            manager.close()

    @property
    def personas(self) -> list[str]:
        """The personas served, in the order given."""
        return list(self._managers)

    def manager(self, persona: str) -> MemoryManager:
        """The manager of a served persona.

        Raises:
            PersonaNotFoundError: the persona is not served by this process.
        """
        found = self._managers.get(persona)
        if found is None:
            raise PersonaNotFoundError(f"persona {persona!r} is not served here (served: {self.personas})")
        return found

    # -- what a chatbot does ---------------------------------------------------------------------

    async def record(
        self, persona: str, user_input: str, response: str, user_id: str | None, timestamp: datetime | None
    ) -> str:
        """Record an exchange; returns its id once committed."""
        manager = self.manager(persona)
        return await manager.record_interaction(user_input, response, user_id=user_id, timestamp=timestamp)

    async def retrieve(self, persona: str, query: str, user_id: str | None, top_k: int | None) -> Json:
        """Retrieve for a reply: active text, rag text, scored memories and near misses."""
        manager = self.manager(persona)
        user = check_user_id(user_id)
        result = await manager.aretrieve_memories(query, user_id=user, top_k=top_k)
        shown = payloads.retrieval_json(result, manager.config.retrieval, top_k)
        self._keep(persona, user, {"at": utcnow().isoformat(), "query": query, **shown})
        return shown

    async def remember(
        self, persona: str, text: str, user_id: str | None, key: str | None, pinned: bool
    ) -> str:
        """Store a fact on purpose (a profile fact with a ``key``); returns its id."""
        manager = self.manager(persona)
        return await manager.aremember(text, user_id=user_id, key=key, pinned=pinned)

    async def forget(self, persona: str, memory_id: str, user_id: str | None) -> bool:
        """Erase one memory (only that user's when ``user_id`` is given)."""
        manager = self.manager(persona)
        erased = await manager.aforget(memory_id, user_id=user_id)
        if erased:
            self._drop(persona, lambda key, shown: _mentions(shown, memory_id))
        return erased

    async def forget_user(self, persona: str, user_id: str) -> int:
        """Erase everything of a user, from every file and from the recent retrievals."""
        manager = self.manager(persona)
        count = await manager.aforget_user(user_id)
        user = check_user_id(user_id)
        self._drop(persona, lambda key, shown: key == (persona, user))
        return count

    async def restore(self, persona: str, memory_id: str, user_id: str | None) -> bool:
        """Bring a cold memory back (only that user's when ``user_id`` is given)."""
        manager = self.manager(persona)
        return await manager.arestore(memory_id, user_id=user_id)

    async def profile(self, persona: str, user_id: str | None) -> list[Json]:
        """A user's current profile facts."""
        manager = self.manager(persona)
        facts = await manager.aprofile(user_id)
        return [payloads.fact_json(fact) for fact in facts.values()]

    async def state(self, persona: str, user_id: str | None) -> Json:
        """``debug_state()`` of a persona (with one user's detail when given)."""
        manager = self.manager(persona)
        return await manager.adebug_state(user_id=user_id)

    async def view(self, persona: str, user_id: str, cold_query: str = "") -> Json:
        """Everything the inspector shows of one user."""
        manager = self.manager(persona)
        user = check_user_id(user_id)
        if user is None:
            raise InvalidInputError("user_id", "pick a user")

        def run() -> Json:
            inspector = manager.inspector
            tick = inspector.tick(user)
            return {
                "persona": persona,
                "user_id": user,
                "tick": tick,
                "active": [payloads.interaction_json(i) for i in manager.window_interactions(user)],
                "hot": payloads.hot_layers(inspector, user, tick),
                "profile": [payloads.fact_json(f) for f in manager.profile(user).values()],
                "cold": payloads.cold_tier(inspector.entries(Layer.ARCHIVED, user), cold_query, COLD_SHOWN),
            }

        found = await asyncio.to_thread(run)
        found["retrievals"] = self.recent(persona, user)
        return found

    def recent(self, persona: str, user_id: str | None) -> list[Json]:
        """The last retrievals served for a user, newest first (kept in memory only)."""
        with self._recent_lock:
            return list(reversed(self._recent.get((persona, user_id or ""), ())))

    def _keep(self, persona: str, user_id: str | None, shown: Json) -> None:
        size = self.config.server.recent_retrievals
        if size <= 0:
            return
        with self._recent_lock:
            kept = self._recent.setdefault((persona, user_id or ""), deque(maxlen=size))
            kept.append(shown)

    def _drop(self, persona: str, gone: Any) -> None:
        with self._recent_lock:
            for key in list(self._recent):
                if key[0] != persona:
                    continue
                old = self._recent[key]
                self._recent[key] = deque((s for s in old if not gone(key, s)), maxlen=old.maxlen)


def _mentions(shown: Json, memory_id: str) -> bool:
    listed = [*shown.get("memories", []), *shown.get("near_misses", [])]
    return any(m.get("id") == memory_id for m in listed)
