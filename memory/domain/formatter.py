"""Prompt text for memories, with relative times ("3分钟前" / "3 minutes ago"). Pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from memory.domain.types import PROMPT_ORDER, Interaction, Layer, MemoryEntry, ProfileFact, RetrievedMemory

_UNITS = (
    (365 * 86400, "年", "year"),
    (30 * 86400, "个月", "month"),
    (7 * 86400, "周", "week"),
    (86400, "天", "day"),
    (3600, "小时", "hour"),
    (60, "分钟", "minute"),
)

USER_LABELS = {"zh": "用户", "en": "User"}
"""What the user is called in a rendered exchange."""


def render_interaction(interaction: Interaction, persona: str, locale: str) -> str:
    """The verbatim text of an interaction, as kept in the active layer (``用户：…`` then the
    persona's answer): what recording stores and what the summary model reads."""
    separator = "：" if locale == "zh" else ": "
    user = USER_LABELS.get(locale, USER_LABELS["zh"])
    return f"{user}{separator}{interaction.user_input}\n{persona}{separator}{interaction.response}"


LAYER_TITLES = {
    "zh": {
        Layer.TEMPORARY: "【相关的近期记忆】",
        Layer.SUMMARY: "【相关的总结记忆】",
        Layer.STATIC: "【人设记忆】",
    },
    "en": {
        Layer.TEMPORARY: "[Related recent memories]",
        Layer.SUMMARY: "[Related summaries]",
        Layer.STATIC: "[Persona memories]",
    },
}


def relative_time(moment: datetime, now: datetime, locale: str = "zh") -> str:
    """How long ago ``moment`` was, in Chinese (default) or English."""
    seconds = (now - moment).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 60:
        return "刚刚" if locale == "zh" else "just now"
    for size, zh_unit, en_unit in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            if locale == "zh":
                return f"{count}{zh_unit}{'后' if future else '前'}"
            unit = en_unit if count == 1 else en_unit + "s"
            return f"in {count} {unit}" if future else f"{count} {unit} ago"
    raise AssertionError("unreachable: the smallest unit is one minute")


def format_active_memories(entries: Sequence[MemoryEntry], now: datetime, locale: str = "zh") -> str:
    """The active window, oldest first, one block per interaction with its relative time."""
    return "\n".join(f"[{relative_time(e.created_at, now, locale)}] {e.content}" for e in entries)


def format_retrieved_memories(
    memories: Sequence[RetrievedMemory], now: datetime, locale: str = "zh", *, shown: Iterable[str] = ()
) -> str:
    """Retrieved memories grouped by layer (in :data:`PROMPT_ORDER`), each with its time.

    No line is written twice: a line of a memory that the prompt already holds (``shown``, e.g.
    the active window's lines, or an earlier memory's) is left out, and a memory left with no
    line is skipped.
    """
    titles = LAYER_TITLES.get(locale, LAYER_TITLES["zh"])
    seen = {line.strip() for text in shown for line in text.splitlines()}
    blocks: list[str] = []
    for layer in PROMPT_ORDER:
        lines = []
        for memory in (m for m in memories if m.entry.layer == layer):
            fresh = [line for line in memory.entry.display_text.splitlines() if line.strip() not in seen]
            seen.update(line.strip() for line in fresh)
            fresh = [_marked(line, memory.outdated, locale) for line in fresh]
            if any(line.strip() for line in fresh):
                lines.append(_line(memory, "\n".join(fresh).strip(), now, locale))
        if lines:
            title = titles.get(layer) or (f"【{layer.value}】" if locale == "zh" else f"[{layer.value}]")
            blocks.append("\n".join([title, *lines]))
    return "\n\n".join(blocks)


PROFILE_TITLES = {"zh": "【关于用户的事实】", "en": "[Facts about the user]"}
HISTORY_MARKS = {"zh": "（以前，已不是现在的情况）", "en": "(before; no longer true)"}
"""Put before a superseded memory (:attr:`RetrievedMemory.superseded`) and before a summary's
line quoting an outdated statement (:attr:`RetrievedMemory.outdated`)."""


def format_profile(facts: Sequence[ProfileFact], locale: str = "zh") -> str:
    """The user's current profile facts, one ``key: value`` line each (empty when none)."""
    if not facts:
        return ""
    separator = "：" if locale == "zh" else ": "
    lines = [f"- {fact.key}{separator}{fact.value}" for fact in facts]
    return "\n".join([PROFILE_TITLES.get(locale, PROFILE_TITLES["zh"]), *lines])


def history_mark(locale: str) -> str:
    """The words put before what is shown as history (:data:`HISTORY_MARKS`)."""
    return HISTORY_MARKS.get(locale, HISTORY_MARKS["zh"])


def join_blocks(*blocks: str) -> str:
    """Prompt blocks separated by a blank line; empty blocks left out."""
    return "\n\n".join(block for block in blocks if block)


def marked_text(memory: RetrievedMemory, locale: str = "zh") -> str:
    """A memory's text as the prompt marks it: as history when a newer statement replaced it, and
    each line of a summary quoting an outdated statement."""
    lines = [_marked(line, memory.outdated, locale) for line in memory.entry.display_text.splitlines()]
    return f"{history_mark(locale)} " * memory.superseded + "\n".join(lines)


def _marked(line: str, outdated: Sequence[str], locale: str) -> str:
    """A summary's line, marked as history when it quotes an outdated statement."""
    if any(quote in line for quote in outdated):
        return f"{history_mark(locale)} {line}"
    return line


def _line(memory: RetrievedMemory, text: str, now: datetime, locale: str) -> str:
    if memory.entry.layer == Layer.STATIC:
        return f"- {text}"
    when = relative_time(memory.entry.created_at, now, locale)
    if memory.superseded:
        return f"- [{when}] {history_mark(locale)} {text}"
    return f"- [{when}] {text}"
