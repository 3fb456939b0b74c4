"""A chat chain with memory in one line, and the active window as a LangChain message history.

:func:`with_memory` wraps an LCEL chat chain the way ``RunnableWithMessageHistory`` does: before
the chain runs it retrieves for the user and adds the memory to the chain's input; after the
chain answers it records the (input, answer) pair. Sync, async, batch and streaming all pass
through (the pair is recorded once the stream ends, from the aggregated output).

Memory failures never break the reply: a failed retrieval gives empty memory text (the
retriever degrades), a failed record is logged and the answer is still returned. Bad input
(no ``input_key``, a bad ``user_id``) is refused before the chain runs.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models import BaseChatModel
from langchain_core.load import load
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tracers.schemas import Run

from memory.domain.types import Interaction
from memory.domain.validation import check_user_id
from memory.errors import InputTypeError, InvalidInputError, MemoryEngineError
from memory.integrations.runnables import message_text
from memory.integrations.users import UNSET, chosen_user, configured_user

logger = logging.getLogger(__name__)
RECENT_EXCHANGES = 3
"""Exchanges of the active window a retrieval reads before the new input (a dialogue query)."""


class ChatMemory(Protocol):
    """What the chat surface and the tools need of a manager."""

    def retrieve_memories(self, query: str | list[str], *, user_id: str | None = None) -> Any: ...

    async def aretrieve_memories(self, query: str | list[str], *, user_id: str | None = None) -> Any: ...

    def record_interaction_sync(
        self, user_input: str, response: str, *, user_id: str | None = None
    ) -> str: ...

    async def arecord_interaction(
        self, user_input: str, response: str, *, user_id: str | None = None
    ) -> str: ...

    def window_interactions(self, user_id: str | None) -> list[Interaction]: ...

    async def awindow_interactions(self, user_id: str | None) -> list[Interaction]: ...

    def remember(self, text: str, *, user_id: str | None = None, key: str | None = None) -> str: ...

    def forget(self, memory_id: str, *, user_id: str | None = None) -> bool: ...

    def forget_user(self, user_id: str) -> int: ...


def interaction_messages(interactions: Sequence[Interaction]) -> list[BaseMessage]:
    """Each interaction as a human message and the persona's answer, oldest first."""
    messages: list[BaseMessage] = []
    for interaction in interactions:
        messages += [HumanMessage(interaction.user_input), AIMessage(interaction.response)]
    return messages


def _query(window: list[Interaction], text: str) -> str | list[str]:
    """The newest text after the last exchanges of the window (a dialogue query)."""
    recent = [t for i in window[-RECENT_EXCHANGES:] for t in (i.user_input, i.response)]
    return [*recent, text] if recent else text


def _user(inputs: dict[str, Any], config: RunnableConfig | None) -> Any:
    return chosen_user(inputs.get("user_id", UNSET), configured_user(config))


def _answer_text(output: Any, output_key: str | None) -> str:
    if isinstance(output, dict):
        key = output_key or ("output" if "output" in output or len(output) != 1 else next(iter(output)))
        if key not in output:
            raise InvalidInputError(
                "output_key", f"the chain's output has no {key!r} (it has {list(output)})"
            )
        output = output[key]
    if isinstance(output, BaseMessage):
        return str(message_text(output))
    if isinstance(output, str):
        return output
    raise InputTypeError("output", "a str, a message or a dict holding one", output)


def last_human(messages: list[BaseMessage]) -> BaseMessage:
    """The last human message of a list (the new input of a chat turn).

    Raises:
        InvalidInputError: there is none.
    """
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message
    raise InvalidInputError("input", "the messages hold no human message")


def _messages_for(input_key: str, history_key: str) -> Any:
    """What a bare chat model gets: the memory text as a system message, the recent exchanges,
    the new input."""

    def messages(inputs: dict[str, Any]) -> list[BaseMessage]:
        memory = "\n\n".join(text for text in (inputs["rag"],) if text)
        system: list[BaseMessage] = [SystemMessage(memory)] if memory else []
        return [*system, *inputs[history_key], HumanMessage(inputs[input_key])]

    return messages


class _Binding:
    """The steps of one ``with_memory`` chain (a class so the listeners can be methods)."""

    def __init__(self, memory: ChatMemory, input_key: str, history_key: str, output_key: str | None) -> None:
        self.memory = memory
        self.input_key = input_key
        self.history_key = history_key
        self.output_key = output_key

    def _parse(self, value: Any, config: RunnableConfig) -> tuple[dict[str, Any], str, Any]:
        if isinstance(value, list) and value and all(isinstance(m, BaseMessage) for m in value):
            value = last_human(value)
        inputs = {self.input_key: value} if isinstance(value, str | BaseMessage) else value
        if not isinstance(inputs, dict):
            raise InputTypeError(
                "input", f"a str, a message, a list of messages or a dict with {self.input_key!r}", value
            )
        if self.input_key not in inputs:
            raise InvalidInputError(
                self.input_key,
                f"the input dict has no {self.input_key!r} key (with_memory(..., input_key=...) names it)",
            )
        text = inputs[self.input_key]
        if isinstance(text, BaseMessage):
            text = message_text(text)
        user = _user(inputs, config)
        if not isinstance(text, str):
            raise InputTypeError(self.input_key, "a str or a message", text)
        check_user_id(user)
        return inputs, text, user

    def _loaded(
        self, inputs: dict[str, Any], text: str, window: list[Interaction], result: Any
    ) -> dict[str, Any]:
        return {
            **inputs,
            self.input_key: text,
            "active": result.active_text,
            "rag": result.rag_text,
            self.history_key: interaction_messages(window),
        }

    def load(self, value: Any, config: RunnableConfig) -> dict[str, Any]:
        inputs, text, user = self._parse(value, config)
        window = self.memory.window_interactions(user)
        result = self.memory.retrieve_memories(_query(window, text), user_id=user)
        return self._loaded(inputs, text, window, result)

    async def aload(self, value: Any, config: RunnableConfig) -> dict[str, Any]:
        inputs, text, user = self._parse(value, config)
        window = await self.memory.awindow_interactions(user)
        result = await self.memory.aretrieve_memories(_query(window, text), user_id=user)
        return self._loaded(inputs, text, window, result)

    def _pair(self, run: Run, config: RunnableConfig) -> tuple[str, str, Any] | None:
        try:
            inputs = run.inputs
            with warnings.catch_warnings():  # langchain-core marks load() beta: not the caller's concern
                warnings.filterwarnings("ignore", message=r".*`load` is in beta")
                outputs = load(run.outputs, allowed_objects="messages")
            return str(inputs[self.input_key]), _answer_text(outputs, self.output_key), _user(inputs, config)
        except (MemoryEngineError, KeyError, TypeError, ValueError) as exc:
            logger.warning("the chain's answer was not recorded: %s", exc)
            return None

    def record(self, run: Run, config: RunnableConfig) -> None:
        pair = self._pair(run, config)
        if pair is not None:
            try:
                self.memory.record_interaction_sync(pair[0], pair[1], user_id=pair[2])
            except Exception as exc:  # the answer is served all the same
                logger.warning("the chain's answer was not recorded: %s", exc)

    async def arecord(self, run: Run, config: RunnableConfig) -> None:
        pair = self._pair(run, config)
        if pair is not None:
            try:
                await self.memory.arecord_interaction(pair[0], pair[1], user_id=pair[2])
            except Exception as exc:
                logger.warning("the chain's answer was not recorded: %s", exc)


def with_memory(
    memory: ChatMemory,
    chain: Runnable[Any, Any],
    *,
    input_key: str = "input",
    history_key: str = "history",
    output_key: str | None = None,
) -> Runnable[Any, Any]:
    """``chain`` with the user's memory in its input and each exchange recorded after it.

    The chain receives its input dict plus ``active`` (the recent exchanges as text), ``rag``
    (profile facts and recalled memories as text) and ``history_key`` (the recent exchanges as
    messages, for a ``MessagesPlaceholder``). A bare chat model gets messages instead: the memory
    text as a system message, the recent exchanges, the new input. The input is a str, a
    message, a list of messages (its last human message is the new input) or a dict holding
    ``input_key``. The user is the input's ``user_id``, else ``config["configurable"]["user_id"]``
    (naming none is an error; ``None`` is the persona's shared memory).
    """
    if not isinstance(chain, Runnable):
        raise InputTypeError("chain", "a LangChain Runnable", chain)
    for name, key in (("input_key", input_key), ("history_key", history_key)):
        if not isinstance(key, str) or not key:
            raise InvalidInputError(name, "must be a non-empty str")
    if isinstance(chain, BaseChatModel):  # a bare model: the memory as a system message, then the talk
        chain = RunnableLambda(_messages_for(input_key, history_key), name="memory_prompt") | chain
    binding = _Binding(memory, input_key, history_key, output_key)
    chain_sync = chain.with_listeners(on_end=binding.record)
    chain_async = chain.with_alisteners(on_end=binding.arecord)

    def pick_sync(_: Any) -> Runnable[Any, Any]:
        return chain_sync

    async def pick_async(_: Any) -> Runnable[Any, Any]:
        return chain_async

    loader = RunnableLambda(binding.load, afunc=binding.aload, name="load_memory")
    return (loader | RunnableLambda(pick_sync, afunc=pick_async, name="call_chain")).with_config(
        run_name="with_memory"
    )


class MemoryChatHistory(BaseChatMessageHistory):
    """A user's active window as a ``BaseChatMessageHistory``.

    ``messages`` are the recent exchanges, oldest first. Added messages are recorded as
    interactions: each AI message with the human messages before it (system and tool messages
    are not recorded; an AI message with no human message before it has nothing to pair with and
    is dropped). ``clear()`` erases everything the engine holds of the user (``forget_user``).
    """

    def __init__(self, memory: ChatMemory, user_id: str) -> None:
        self.memory = memory
        self.user_id = user_id
        self._pending: list[str] = []

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The active window as human and AI messages."""
        return interaction_messages(self.memory.window_interactions(self.user_id))

    async def aget_messages(self) -> list[BaseMessage]:
        """Async :attr:`messages`."""
        return interaction_messages(await self.memory.awindow_interactions(self.user_id))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Record each (human..., AI) exchange of ``messages`` as an interaction."""
        for asked, answered in self._exchanges(messages):
            self.memory.record_interaction_sync(asked, answered, user_id=self.user_id)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async :meth:`add_messages`."""
        for asked, answered in self._exchanges(messages):
            await self.memory.arecord_interaction(asked, answered, user_id=self.user_id)

    def _exchanges(self, messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
        pairs = []
        for message in messages:
            if isinstance(message, HumanMessage):
                self._pending.append(str(message_text(message)))
            elif isinstance(message, AIMessage) and self._pending:
                asked, self._pending = "\n".join(self._pending), []
                pairs.append((asked, str(message_text(message))))
        return pairs

    def clear(self) -> None:
        """Erase the user's memory from every file (see ``MemoryManager.forget_user``)."""
        self._pending = []
        self.memory.forget_user(self.user_id)
