"""Summaries by any LangChain chat model, with a deterministic extractive fallback.

The model may fail, time out, or return nothing useful: then the extractive summary is used and
the failure is logged. Nothing here needs a network unless the model given does.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.domain.formatter import USER_LABELS, render_interaction
from memory.domain.types import Interaction
from memory.errors import ConfigError
from memory.summary.extractive import extract
from memory.summary.prompts import condense_prompt, profile_prompt, summary_prompt

if TYPE_CHECKING:
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import Runnable

logger = logging.getLogger(__name__)

MODEL = "model"
"""How a summary the summary model wrote is marked (its entry's ``source``, and its facts')."""

LABELS = {"zh": (USER_LABELS["zh"], "对话摘要"), "en": (USER_LABELS["en"], "Conversation summary")}


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_facts(answer: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs of a ``{"facts": [{"key", "value"}]}`` answer; junk gives none."""
    found = _JSON_OBJECT.search(answer)
    try:
        payload = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        payload = None
    facts = payload.get("facts") if isinstance(payload, dict) else None
    if not isinstance(facts, list):
        logger.warning("profile extraction returned no usable JSON (%r)", answer[:200])
        return []
    pairs = []
    for fact in facts:
        if isinstance(fact, dict) and isinstance(fact.get("key"), str) and isinstance(fact.get("value"), str):
            key, value = fact["key"].strip().lower().replace(" ", "_"), " ".join(fact["value"].split())
            if key and value:
                pairs.append((key, value))
    return pairs


@dataclass(frozen=True)
class Gate:
    """What the summary model says of one interaction."""

    note: str | None
    importance: float | None = None
    remember: bool = True


def parse_gate(answer: str, max_chars: int) -> Gate | None:
    """A :class:`Gate` from ``{"note", "importance", "remember"}`` JSON, or the plain text as a note."""
    found = _JSON_OBJECT.search(answer)
    try:
        payload = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        payload = None
    if not isinstance(payload, dict):
        return Gate(note=answer[:max_chars])
    note = payload.get("note")
    note = " ".join(note.split())[:max_chars] if isinstance(note, str) and note.strip() else None
    raw = payload.get("importance")
    importance = None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw):
        importance = min(1.0, max(0.0, float(raw)))
    keep = payload.get("remember")
    return Gate(note=note, importance=importance, remember=keep is not False)


def load_model_factory(spec: str) -> Runnable[Any, Any] | None:
    """The chat model built by ``"package.module:callable"`` (``None`` for an empty spec).

    Raises:
        ConfigError: the spec is malformed, cannot be imported, or does not return a Runnable.
    """
    if not spec:
        return None
    from langchain_core.runnables import Runnable

    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ConfigError("summary.model_factory", f"expected 'package.module:callable', got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
        model = factory()
    except Exception as exc:
        raise ConfigError("summary.model_factory", f"{spec!r} failed: {exc}") from exc
    if not isinstance(model, Runnable):
        raise ConfigError(
            "summary.model_factory",
            f"{spec!r} returned {type(model).__name__}, not a LangChain Runnable / chat model",
        )
    return model


def _text_chain(prompt: ChatPromptTemplate, model: Runnable[Any, Any]) -> Runnable[Any, str]:
    """``prompt | model``, its answer as text."""
    from langchain_core.output_parsers import StrOutputParser

    return prompt | model | StrOutputParser()


class Summarizer:
    """Condenses one interaction and summarises many.

    Args:
        model: any LangChain chat model or Runnable returning a message or a string; ``None``
            means extractive summaries only.
        persona: the persona's display name, used in prompts and labels.
        locale: ``"zh"`` or ``"en"``.
        timeout: seconds to wait for the model before falling back.
        max_chars: the longest summary kept.
    """

    def __init__(
        self,
        model: Runnable[Any, Any] | None,
        *,
        persona: str,
        locale: str = "zh",
        timeout: float = 30.0,
        max_chars: int = 600,
    ) -> None:
        self.model = model
        self.persona = persona
        self.locale = locale
        self.timeout = timeout
        self.max_chars = max_chars
        self.fallbacks = 0

    @property
    def uses_model(self) -> bool:
        """Whether a model is configured."""
        return self.model is not None

    async def gate(self, interaction: Interaction) -> Gate | None:
        """The recording gate, "should I remember this?": a one-line note, its importance, and whether it
        is worth keeping at all; ``None`` without a model or a usable answer.

        A model that answers plain text instead of the JSON asked for gives just the note.
        """
        if self.model is None:
            return None
        text = render_interaction(interaction, self.persona, self.locale)
        chain = _text_chain(condense_prompt(self.locale), self.model)
        answer = await self._ask(chain, {"persona": self.persona, "interaction": text}, limit=None)
        return None if answer is None else parse_gate(answer, self.max_chars)

    async def summarize(
        self,
        interactions: Sequence[Interaction],
        *,
        fresh: Sequence[Interaction] | None = None,
        already: Iterable[str] = (),
    ) -> tuple[str, str]:
        """A summary and how it was made (``"model"`` or ``"extractive"``).

        Args:
            interactions: what the model reads (the active window and the new interactions).
            fresh: what is new since the last summary; the extractive fallback keeps only these
                (the window is context, already summarised). ``None``: all of ``interactions``.
            already: lines of the user's earlier summaries, never written again.
        """
        if self.model is not None:
            conversation = "\n".join(render_interaction(i, self.persona, self.locale) for i in interactions)
            chain = _text_chain(summary_prompt(self.locale), self.model)
            answer = await self._ask(chain, {"persona": self.persona, "conversation": conversation})
            if answer is not None:
                return answer, MODEL
        return self.extractive(interactions if fresh is None else fresh, already=already), "extractive"

    async def extract_profile(self, interactions: Sequence[Interaction]) -> list[tuple[str, str]]:
        """``(key, value)`` facts about the user the model finds in the interactions.

        Without a model, or when it fails or answers anything but the JSON asked for: none.
        """
        if self.model is None or not interactions:
            return []
        conversation = "\n".join(render_interaction(i, self.persona, self.locale) for i in interactions)
        chain = _text_chain(profile_prompt(self.locale), self.model)
        answer = await self._ask(chain, {"persona": self.persona, "conversation": conversation}, limit=None)
        return [] if answer is None else parse_facts(answer)

    async def _ask(
        self, chain: Runnable[Any, str], inputs: dict[str, str], *, limit: int | None = -1
    ) -> str | None:
        try:
            answer = await asyncio.wait_for(chain.ainvoke(inputs), timeout=self.timeout)
        except TimeoutError:
            logger.warning("summary model timed out after %.1fs; using extractive summary", self.timeout)
            self.fallbacks += 1
            return None
        except Exception as exc:
            logger.warning("summary model failed (%s: %s); using extractive summary", type(exc).__name__, exc)
            self.fallbacks += 1
            return None
        cleaned = " ".join(str(answer).split()) if isinstance(answer, str) else ""
        if not cleaned or not any(ch.isalnum() for ch in cleaned):
            logger.warning("summary model returned junk (%r); using extractive summary", answer)
            self.fallbacks += 1
            return None
        return cleaned[: self.max_chars if limit == -1 else limit]

    def extractive(self, interactions: Sequence[Interaction], *, already: Iterable[str] = ()) -> str:
        """A deterministic summary: the most important sentences, in time order (see
        :func:`memory.summary.extractive.extract`)."""
        return extract(
            interactions,
            persona=self.persona,
            labels=LABELS.get(self.locale, LABELS["zh"]),
            separator="：" if self.locale == "zh" else ": ",
            max_chars=self.max_chars,
            already=already,
        )
