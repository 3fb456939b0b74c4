"""Memory a model can act on: LangChain tools, and the cognitive loop as a chain.

The tools answer in text a model can use: recalled memories carry their ids (so the model can
forget one), refusals say why. They act for one user: the one fixed at creation, else
``config["configurable"]["user_id"]`` of the call; a tool never reaches another user's memory.

The cognitive loop: before answering, the model judges whether it knows enough. If
it needs to know something about the user it says what (a ``recall_memory`` tool call, or a
``RECALL: <query>`` line from a model without tool calling); the chain recalls it and asks
again, at most ``max_recalls`` times; then the model answers and the exchange is recorded.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool

from memory.domain.formatter import marked_text
from memory.domain.persona import Persona
from memory.domain.types import Interaction
from memory.errors import InvalidInputError, MemoryEngineError
from memory.integrations.chat import ChatMemory
from memory.integrations.runnables import message_text, query_and_user
from memory.integrations.users import UNSET, UserChoice, chosen_user, configured_user

logger = logging.getLogger(__name__)

RECALL = "recall_memory"
_RECALL_LINE = re.compile(r"^\s*(?:RECALL|回忆)\s*[:：]\s*(.+)$", re.MULTILINE)

DESCRIPTIONS = {
    "en": {
        RECALL: "Search your long-term memory of this user: things they told you, their preferences, "
        "plans and past conversations. Describe what you need to know; returns the memories found, "
        "each with its id.",
        "remember": "Save a fact about this user to long-term memory so you never forget it. With a "
        "key (e.g. allergy, home_city) it replaces the fact saved under that key.",
        "forget_memory": "Erase one memory of this user for good, by the id recall_memory gave. Use it "
        "only when the user asks you to forget something.",
    },
    "zh": {
        RECALL: "检索你对这位用户的长期记忆：用户告诉过你的事、喜好、计划和以前的对话。描述你需要知道什么；"
        "返回找到的记忆，每条带 id。",
        "remember": "把关于这位用户的一条事实存入长期记忆，永远不会忘记。带 key（如 allergy、home_city）时，"
        "替换该 key 下原来的事实。",
        "forget_memory": "按 recall_memory 给出的 id 永久删除这位用户的一条记忆。"
        "只在用户要求你忘掉某件事时使用。",
    },
}

REPLIES = {
    "en": {
        "none": "No memory about that.",
        "saved": "Remembered (id {id}).",
        "forgot": "Forgotten: {id}.",
        "unknown": "No memory of this user has the id {id}.",
        "profile": "Known facts:",
        "memories": "Memories:",
        "limit": "You have recalled enough; answer now with what you know.",
        "found": "From memory:",
    },
    "zh": {
        "none": "记忆里没有相关内容。",
        "saved": "已记住（id {id}）。",
        "forgot": "已忘记：{id}。",
        "unknown": "这位用户没有 id 为 {id} 的记忆。",
        "profile": "已知事实：",
        "memories": "记忆：",
        "limit": "回忆已经足够了，请根据已知的信息直接回答。",
        "found": "记忆中找到：",
    },
}

LOOP_SYSTEM = {
    "en": (
        "You are {name}. {description}\nBefore you answer, judge whether you already know what the "
        "answer needs. If you need to remember something about the user (what they told you, their "
        "preferences, their past), {how} Otherwise answer directly, in character."
    ),
    "zh": (
        "你是{name}。{description}\n回答之前先判断：你是否已经知道回答需要的信息？如果需要回忆关于用户的事"
        "（用户说过的话、喜好、经历），{how}否则直接以角色的身份回答。"
    ),
}
HOW = {
    "en": {
        True: "call recall_memory with what you need to know.",
        False: "reply with one line only: RECALL: <what you need to know>.",
    },
    "zh": {
        True: "先调用 recall_memory 并描述你需要知道什么；",
        False: "只输出一行：回忆：<你需要知道什么>；",
    },
}


def recall_text(memory: ChatMemory, query: str, user_id: str | None, locale: str) -> str:
    """The recalled profile facts and memories of ``query`` as lines ``[id] text``."""
    return _recall_lines(memory.retrieve_memories(query, user_id=user_id), locale)


async def arecall_text(memory: ChatMemory, query: str, user_id: str | None, locale: str) -> str:
    """Async :func:`recall_text`."""
    return _recall_lines(await memory.aretrieve_memories(query, user_id=user_id), locale)


def _recall_lines(result: Any, locale: str) -> str:
    words = REPLIES[locale]
    facts = "；".join(f"{fact.key}: {fact.value}" for fact in result.profile)
    lines = [f"{words['profile']} {facts}"] if facts else []
    if result.memories:
        lines.append(words["memories"])
        lines += [f"[{m.entry.id}] {marked_text(m, locale)}" for m in result.memories]
    return "\n".join(lines) or words["none"]


def memory_tools(memory: ChatMemory, user_id: UserChoice, locale: str) -> list[BaseTool]:
    """``recall_memory``, ``remember`` and ``forget_memory`` acting for ``user_id`` (else the
    configured user of each call; naming none is an error, see :func:`chosen_user`)."""
    words, about = REPLIES[locale], DESCRIPTIONS[locale]

    def user_of(config: RunnableConfig) -> str | None:
        return chosen_user(user_id, configured_user(config))  # type: ignore[no-any-return]

    def recall_memory(query: str, config: RunnableConfig) -> str:
        try:
            return recall_text(memory, query, user_of(config), locale)
        except MemoryEngineError as exc:
            return str(exc)

    def remember(fact: str, config: RunnableConfig, key: str | None = None) -> str:
        try:
            return words["saved"].format(id=memory.remember(fact, user_id=user_of(config), key=key))
        except MemoryEngineError as exc:
            return str(exc)

    def forget_memory(memory_id: str, config: RunnableConfig) -> str:
        try:
            erased = memory.forget(memory_id, user_id=user_of(config))  # never another user's
        except MemoryEngineError as exc:
            return str(exc)
        return words["forgot" if erased else "unknown"].format(id=memory_id)

    return [
        StructuredTool.from_function(fn, name=fn.__name__, description=about[fn.__name__])
        for fn in (recall_memory, remember, forget_memory)
    ]


def recall_request(reply: AIMessage) -> tuple[str, str | None] | None:
    """``(query, tool_call_id)`` when the model asks to recall (tool call or text line)."""
    for call in reply.tool_calls:
        if call["name"] == RECALL:
            return str(call["args"].get("query", "")), call.get("id")
    found = _RECALL_LINE.search(str(message_text(reply)))
    return (found.group(1).strip(), None) if found else None


def _asked(reply: BaseMessage) -> tuple[AIMessage, str, str | None] | None:
    """The reply, the query and the tool call id when the reply asks to recall."""
    request = recall_request(reply) if isinstance(reply, AIMessage) else None
    return None if request is None or not isinstance(reply, AIMessage) else (reply, *request)


class _Loop:
    def __init__(
        self,
        memory: ChatMemory,
        model: BaseChatModel,
        persona: Persona,
        locale: str,
        max_recalls: int,
        system_prompt: str | None,
    ) -> None:
        self.memory, self.model, self.locale, self.max_recalls = memory, model, locale, max_recalls
        recall = memory_tools(memory, UNSET, locale)[0]
        try:
            self.thinker: Runnable[Any, BaseMessage] = model.bind_tools([recall])
            tools = True
        except NotImplementedError:  # a model without tool calling: the text protocol
            self.thinker, tools = model, False
        how = HOW[locale][tools]
        self.system = system_prompt or LOOP_SYSTEM[locale].format(
            name=persona.name, description=persona.description, how=how
        )

    def _query(self, payload: Any, config: RunnableConfig) -> tuple[str, str | None]:
        query, user = query_and_user(payload, config)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("input", "must be a non-empty str")
        return query, user

    def _messages(self, query: str, window: list[Interaction]) -> list[BaseMessage]:
        history: list[BaseMessage] = []
        for turn in window:
            history += [HumanMessage(turn.user_input), AIMessage(turn.response)]
        return [SystemMessage(self.system), *history, HumanMessage(query)]

    def _next(self, reply: BaseMessage, messages: list[BaseMessage], rounds: int, user: str | None) -> bool:
        """Add the recall the reply asks for; False when the reply is the answer."""
        asked = _asked(reply)
        if asked is not None:
            self._add(messages, asked, self._found(rounds, asked[1], user))
        return asked is not None

    async def _anext(
        self, reply: BaseMessage, messages: list[BaseMessage], rounds: int, user: str | None
    ) -> bool:
        """Async :meth:`_next`."""
        asked = _asked(reply)
        if asked is not None:
            self._add(messages, asked, await self._afound(rounds, asked[1], user))
        return asked is not None

    def _found(self, rounds: int, query: str, user: str | None) -> str:
        if rounds >= self.max_recalls:
            return REPLIES[self.locale]["limit"]
        try:
            return recall_text(self.memory, query, user, self.locale)
        except MemoryEngineError as exc:
            return str(exc)

    async def _afound(self, rounds: int, query: str, user: str | None) -> str:
        if rounds >= self.max_recalls:
            return REPLIES[self.locale]["limit"]
        try:
            return await arecall_text(self.memory, query, user, self.locale)
        except MemoryEngineError as exc:
            return str(exc)

    def _add(self, messages: list[BaseMessage], asked: tuple[AIMessage, str, str | None], found: str) -> None:
        reply, _, call_id = asked
        messages.append(reply)
        if call_id is not None:
            messages.append(ToolMessage(found, tool_call_id=call_id))
        else:
            messages.append(HumanMessage(f"{REPLIES[self.locale]['found']}\n{found}"))

    def run(self, payload: Any, config: RunnableConfig) -> BaseMessage:
        query, user = self._query(payload, config)
        messages = self._messages(query, self.memory.window_interactions(user))
        reply = self.thinker.invoke(messages, config)
        for rounds in range(self.max_recalls + 1):
            if not self._next(reply, messages, rounds, user):
                break
            model = self.thinker if rounds < self.max_recalls else self.model
            reply = model.invoke(messages, config)
        try:
            self.memory.record_interaction_sync(query, str(message_text(reply)), user_id=user)
        except Exception as exc:  # the answer is served all the same
            logger.warning("the answer was not recorded: %s", exc)
        return reply

    async def arun(self, payload: Any, config: RunnableConfig) -> BaseMessage:
        query, user = self._query(payload, config)
        messages = self._messages(query, await self.memory.awindow_interactions(user))
        reply = await self.thinker.ainvoke(messages, config)
        for rounds in range(self.max_recalls + 1):
            if not await self._anext(reply, messages, rounds, user):
                break
            model = self.thinker if rounds < self.max_recalls else self.model
            reply = await model.ainvoke(messages, config)
        try:
            await self.memory.arecord_interaction(query, str(message_text(reply)), user_id=user)
        except Exception as exc:
            logger.warning("the answer was not recorded: %s", exc)
        return reply


def cognitive_chain(
    memory: ChatMemory,
    model: BaseChatModel,
    persona: Persona,
    locale: str,
    *,
    max_recalls: int = 2,
    system_prompt: str | None = None,
) -> Runnable[Any, BaseMessage]:
    """The cognitive loop as a Runnable (see the module docstring)."""
    if isinstance(max_recalls, bool) or not isinstance(max_recalls, int) or max_recalls < 0:
        raise InvalidInputError("max_recalls", f"must be an int >= 0, got {max_recalls!r}")
    loop = _Loop(memory, model, persona, locale, max_recalls, system_prompt)
    return RunnableLambda(loop.run, afunc=loop.arun, name="cognitive_loop")
