"""The LangChain and LangGraph faces of :class:`memory.manager.MemoryManager`: a chat chain with
memory, a message history, a LangGraph store, memory tools and the cognitive loop.

Each is built by its own module, imported when first asked for (an engine that only records and
retrieves never loads LangChain's runnables: about half a second of every start); this base class
only hands them the open manager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memory.domain.twins import async_twin
from memory.domain.types import Interaction
from memory.domain.validation import check_user_id
from memory.engine import Engine
from memory.errors import InvalidInputError, needs_extra
from memory.integrations.users import UNSET, UserChoice

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import Runnable
    from langchain_core.tools import BaseTool

    from memory.integrations import chat
    from memory.integrations.graph_store import MemoryStore

    class OpenManager(chat.ChatMemory, Protocol):
        """What the LangChain faces need of the manager they are part of."""

        def _check_open(self) -> Engine: ...


class LangChainSurface:
    """LangChain / LangGraph adapters of an open manager (a base of :class:`MemoryManager`)."""

    def window_interactions(self: OpenManager, user_id: str | None) -> list[Interaction]:
        """The interactions of a user's active window, oldest first."""
        engine = self._check_open()
        window = engine.layers.active.entries(check_user_id(user_id))
        return engine.journal.by_ids([entry.id for entry in window])

    awindow_interactions = async_twin(window_interactions)

    def with_memory(
        self: OpenManager,
        chain: Runnable[Any, Any],
        *,
        input_key: str = "input",
        history_key: str = "history",
        output_key: str | None = None,
    ) -> Runnable[Any, Any]:
        """Give a chat chain memory, like ``RunnableWithMessageHistory``.

        Before ``chain`` runs, the user's memory joins its input dict: ``active`` (the recent
        exchanges as text), ``rag`` (profile facts and recalled memories as text) and
        ``history_key`` (the recent exchanges as messages). After it answers, the (input,
        answer) pair is recorded. The user is the input's ``user_id``, else
        ``config["configurable"]["user_id"]``. Works with ``invoke``, ``ainvoke``, ``batch``,
        ``stream`` and ``astream``; a memory failure never breaks the reply.

        Example:
            >>> chat = memory.with_memory(prompt | model)  # doctest: +SKIP
            >>> chat.invoke({"input": "我对什么过敏？"}, {"configurable": {"user_id": "u42"}})
        """
        from memory.integrations import chat

        self._check_open()
        return chat.with_memory(
            self, chain, input_key=input_key, history_key=history_key, output_key=output_key
        )

    def as_chat_history(self: OpenManager, user_id: str) -> chat.MemoryChatHistory:
        """A ``BaseChatMessageHistory`` over the user's active window (added exchanges are
        recorded; ``clear()`` erases the user, see :meth:`forget_user`)."""
        from memory.integrations import chat

        self._check_open()
        user = check_user_id(user_id)
        if user is None:  # clear() erases the user: the shared memory is no one's to erase
            raise InvalidInputError("user_id", "a chat history is one user's: name the user")
        return chat.MemoryChatHistory(self, user)

    def as_tools(self: OpenManager, user_id: UserChoice = UNSET) -> list[BaseTool]:
        """LangChain tools a model can call: ``recall_memory(query)``, ``remember(fact, key)``
        and ``forget_memory(memory_id)``, described in the persona's language. The user is
        ``user_id`` (``None``: the persona's shared memory), else each call's
        ``config["configurable"]["user_id"]``; a call that names none gets the error as text."""
        from memory.integrations import tools

        engine = self._check_open()
        user = user_id if user_id is UNSET else check_user_id(user_id)
        return tools.memory_tools(self, user, engine.config.locale)

    def cognitive_chain(
        self: OpenManager, model: BaseChatModel, *, max_recalls: int = 2, system_prompt: str | None = None
    ) -> Runnable[Any, Any]:
        """The cognitive loop as a chain: the model first judges whether it can answer; if
        it needs to know something it recalls it (a ``recall_memory`` tool call, or a
        ``RECALL: <query>`` line from a model without tools), at most ``max_recalls`` times,
        then answers. Input: a str or ``{"input": str}``; output: the model's answer message."""
        from memory.integrations import tools

        engine = self._check_open()
        return tools.cognitive_chain(
            self,
            model,
            engine.persona,
            engine.config.locale,
            max_recalls=max_recalls,
            system_prompt=system_prompt,
        )

    def as_store(self: OpenManager, *, prefix: str = "memories") -> MemoryStore:
        """A LangGraph ``BaseStore`` over this persona's memories (needs the ``langgraph``
        extra): namespace ``(prefix, user_id)`` is that user's memory; ``put`` remembers,
        ``search`` retrieves, ``delete`` forgets (see :mod:`memory.integrations.graph_store`)."""
        with needs_extra("langgraph", "as_store()"):
            from memory.integrations.graph_store import MemoryStore

        return MemoryStore(self, self._check_open(), prefix=prefix)
