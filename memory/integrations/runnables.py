"""The LangChain surface of a retrieval: an LCEL Runnable, what it accepts, and a ``BaseRetriever``.

Input, like a chat chain's: a str; a dict with ``query``, ``input`` or ``question`` (and
``user_id``); a message, or a list of messages: the conversation up to its last human message is
the query (a dialogue query, :mod:`memory.domain.dialogue`: the newest turn counts most). The user
comes from the input, else from ``config["configurable"]["user_id"]`` (how LangChain and
LangGraph pass per-call settings), by the rule of every LangChain face
(:mod:`memory.integrations.users`): naming no user is refused, ``None`` is the shared memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from pydantic import Field
from typing_extensions import TypedDict

from memory.domain.types import RetrievedMemory
from memory.domain.validation import check_top_k, check_user_id
from memory.errors import InputTypeError, InvalidInputError
from memory.integrations.users import UNSET, UserChoice, chosen_user, configured_user
from memory.retrieval.result import QueryInput, RetrievalResult
from memory.retrieval.retriever import MemoryRetriever

QUERY_KEYS = ("query", "input", "question")


class MemoryQuery(TypedDict, total=False):
    """A dict input: one of ``query`` / ``input`` / ``question``, and optionally ``user_id``."""

    query: str | list[str]
    input: str | list[str]
    question: str | list[str]
    user_id: str


MemoryInput = str | MemoryQuery | BaseMessage | list[BaseMessage]
"""What the runnable accepts."""


class MemoryOutput(TypedDict):
    """What the runnable returns: the active window and the RAG memories, as prompt text."""

    active: str
    rag: str


def message_text(message: BaseMessage) -> Any:
    """A message's text (the text parts of content blocks, joined)."""
    content = message.content
    if isinstance(content, list):  # content blocks: their text parts
        return " ".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return content


def dialogue_turns(messages: list[BaseMessage]) -> str | list[str]:
    """The query of a message list: the human and AI turns up to the last human message, oldest
    first (one turn: its text). System and tool messages, and empty turns, are left out.

    Raises:
        InvalidInputError: no human message.
    """
    last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
    if last is None:
        raise InvalidInputError("query", "the messages hold no human message")
    texts = [message_text(m) for m in messages[: last + 1] if isinstance(m, HumanMessage | AIMessage)]
    turns = [t for t in texts if isinstance(t, str) and t.strip()]
    return turns if len(turns) > 1 else message_text(messages[last])


def query_and_user(payload: Any, config: RunnableConfig | None) -> tuple[Any, Any]:
    """``(query, user_id)`` of a runnable input (validated later by the retrieval).

    Raises:
        InputTypeError: an input of none of the accepted shapes.
        InvalidInputError: a dict without a query key, messages without a human one, or no user
            named (:mod:`memory.integrations.users`).
    """
    if isinstance(payload, dict):
        key = next((k for k in QUERY_KEYS if k in payload), None)
        if key is None:
            raise InvalidInputError("query", f"a dict input needs one of {', '.join(QUERY_KEYS)}")
        return payload[key], chosen_user(payload.get("user_id", UNSET), configured_user(config))
    if isinstance(payload, BaseMessage):
        return message_text(payload), chosen_user(configured_user(config))
    if isinstance(payload, list) and payload and all(isinstance(m, BaseMessage) for m in payload):
        return dialogue_turns(payload), chosen_user(configured_user(config))
    if isinstance(payload, str):
        return payload, chosen_user(configured_user(config))
    raise InputTypeError("query", "a str, a dict with a query, a message or a list of messages", payload)


def to_document(memory: RetrievedMemory) -> Document:
    """A LangChain Document of a retrieved memory (``source`` ``"memory"``; ``superseded``: what it
    says was replaced by a newer statement, ``outdated``: a summary's lines that were)."""
    entry = memory.entry
    return Document(
        page_content=entry.display_text,
        id=entry.id,
        metadata={
            "source": "memory",
            "id": entry.id,
            "layer": entry.layer.value,
            "significance": memory.significance,
            "timestamp": entry.created_at.isoformat(),
            "score": memory.score,
            "similarity": memory.similarity,
            "user_id": entry.user_id,
            "superseded": memory.superseded,
            "outdated": list(memory.outdated),
        },
    )


SOURCES = ("profile", "active", "memories")
"""What a retriever's Documents may hold: the profile facts shown, the active window, the
recalled memories."""


def to_documents(result: RetrievalResult, include: Sequence[str]) -> list[Document]:
    """A retrieval as Documents, in prompt order: profile facts, the active window, memories."""
    documents: list[Document] = []
    if "profile" in include:
        documents += [
            Document(
                page_content=f"{fact.key}: {fact.value}",
                id=fact.id,
                metadata={"source": "profile", "id": fact.id, "layer": "profile", "key": fact.key,
                          "since": fact.since.isoformat(), "user_id": fact.user_id},
            )
            for fact in result.profile
        ]  # fmt: skip
    if "active" in include:
        documents += [
            Document(
                page_content=entry.display_text,
                id=entry.id,
                metadata={"source": "active", "id": entry.id, "layer": entry.layer.value,
                          "timestamp": entry.created_at.isoformat(), "user_id": entry.user_id},
            )
            for entry in result.active
        ]  # fmt: skip
    if "memories" in include:
        documents += [to_document(m) for m in result.memories]
    return documents


class MemoryDocumentRetriever(BaseRetriever):
    """LangChain retriever over a :class:`MemoryRetriever` (one decay tick a call).

    The user is the call's ``user_id``, else the one fixed at creation, else
    ``config["configurable"]["user_id"]`` (:func:`chosen_user`: none of them is an error). ``k`` (a
    call's keyword argument, else ``search_kwargs["k"]``, else ``retrieval.top_k``) is the number
    of recalled memories; ``include`` says which of :data:`SOURCES` the Documents hold
    (``metadata["source"]`` tells them apart).
    """

    memory: Any
    user_id: UserChoice = UNSET
    search_kwargs: dict[str, Any] = Field(default_factory=dict)
    include: tuple[str, ...] = ("profile", "memories")

    def _user(self, config: RunnableConfig | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        user = chosen_user(kwargs.get("user_id", UNSET), self.user_id, configured_user(config))
        return {**kwargs, "user_id": user}

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> list[Document]:
        """Retrieve for the call's ``user_id``, else the fixed user, else the configured one."""
        return super().invoke(input, config, **self._user(config, kwargs))

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`invoke`."""
        return await super().ainvoke(input, config, **self._user(config, kwargs))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, user_id: Any = None, k: Any = None
    ) -> list[Document]:
        top_k = k if k is not None else self.search_kwargs.get("k")
        return to_documents(self.memory.retrieve_memories(query, user_id=user_id, top_k=top_k), self.include)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        user_id: Any = None,
        k: Any = None,
    ) -> list[Document]:
        top_k = k if k is not None else self.search_kwargs.get("k")
        result = await self.memory.aretrieve_memories(query, user_id=user_id, top_k=top_k)
        return to_documents(result, self.include)


class RetrieverFace:
    """The cross-layer retriever as ``MemoryManager.retriever`` shows it: its four retrieval
    methods, and its two LangChain faces."""

    def __init__(self, retriever: MemoryRetriever) -> None:
        self.core = retriever

    def retrieve(self, query: QueryInput, *, user_id: str | None = None) -> tuple[str, str]:
        """``(active_text, rag_text)`` for a prompt (see ``MemoryRetriever.retrieve``)."""
        return self.core.retrieve(query, user_id=user_id)

    def retrieve_memories(
        self, query: QueryInput, *, user_id: str | None = None, top_k: int | None = None
    ) -> RetrievalResult:
        """Everything one retrieval produced (see ``MemoryRetriever.retrieve_memories``)."""
        return self.core.retrieve_memories(query, user_id=user_id, top_k=top_k)

    async def aretrieve(self, query: QueryInput, *, user_id: str | None = None) -> tuple[str, str]:
        """Async :meth:`retrieve`."""
        return await self.core.aretrieve(query, user_id=user_id)

    async def aretrieve_memories(
        self, query: QueryInput, *, user_id: str | None = None, top_k: int | None = None
    ) -> RetrievalResult:
        """Async :meth:`retrieve_memories`."""
        return await self.core.aretrieve_memories(query, user_id=user_id, top_k=top_k)

    def as_runnable(self) -> Runnable[Any, dict[str, str]]:
        """An LCEL Runnable to ``{"active": str, "rag": str}``. Input: a str; a dict with
        ``query``, ``input`` or ``question`` (and ``user_id``); a message, or a list of messages
        (the last human message is the query). The user is the input's ``user_id``, else
        ``config["configurable"]["user_id"]``; naming none is an error, ``None`` is the
        persona's shared memory."""
        core = self.core

        def run(payload: Any, config: RunnableConfig) -> dict[str, str]:
            query, user_id = query_and_user(payload, config)
            active_text, rag_text = core.retrieve(query, user_id=user_id)  # validates both
            return {"active": active_text, "rag": rag_text}

        async def arun(payload: Any, config: RunnableConfig) -> dict[str, str]:
            query, user_id = query_and_user(payload, config)
            active_text, rag_text = await core.aretrieve(query, user_id=user_id)
            return {"active": active_text, "rag": rag_text}

        lambda_ = RunnableLambda(run, afunc=arun, name="persona_memory")
        schema: Any = MemoryInput  # a union: pydantic builds the schema from it
        output: Any = MemoryOutput
        return lambda_.with_types(input_type=schema, output_type=output)

    def as_langchain_retriever(
        self,
        *,
        user_id: UserChoice = UNSET,
        k: int | None = None,
        search_kwargs: dict[str, Any] | None = None,
        include: Sequence[str] = ("profile", "memories"),
    ) -> BaseRetriever:
        """A ``BaseRetriever``: the profile facts and recalled memories as Documents (``include``
        may add ``"active"``, the recent exchanges), each with ``source``, layer, timestamp and,
        for memories, score and similarity. ``k`` or ``search_kwargs={"k": n}`` sets how many
        memories (also per call: ``invoke(query, k=n)``). The user is ``user_id`` (``None``: the
        persona's shared memory), else each call's ``config["configurable"]["user_id"]``."""
        kwargs = dict(search_kwargs or {})
        if set(kwargs) - {"k"}:
            raise InvalidInputError("search_kwargs", f"only 'k' is known, got {sorted(kwargs)}")
        if k is not None:
            kwargs["k"] = k
        if "k" in kwargs:
            kwargs["k"] = check_top_k(kwargs["k"])
        if isinstance(include, str) or not include or set(include) - set(SOURCES):
            raise InvalidInputError("include", f"name some of {', '.join(SOURCES)}, got {include!r}")
        return MemoryDocumentRetriever(
            memory=self.core,
            user_id=user_id if user_id is UNSET else check_user_id(user_id),
            search_kwargs=kwargs,
            include=tuple(include),
        )
