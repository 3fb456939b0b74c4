"""Time in questions: "上个月", "last week", "in May 2023" read as a window of time, and a question
that names one finds what happened then (real Chroma, the real embedder)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.domain.when import Window, window_of

NOW = datetime(2026, 11, 25, 15, 30, tzinfo=UTC)  # a Wednesday


def _days(start: str, end: str) -> Window:
    first, last = (datetime.fromisoformat(day).replace(tzinfo=UTC) for day in (start, end))
    return Window(first, last)


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("我昨天吃了什么？", _days("2026-11-24", "2026-11-25")),
        ("What did I do yesterday?", _days("2026-11-24", "2026-11-25")),
        ("上周我去哪儿了？", _days("2026-11-16", "2026-11-23")),
        ("Where did I go last week?", _days("2026-11-16", "2026-11-23")),
        ("上周末干嘛了", _days("2026-11-21", "2026-11-23")),
        ("上个月我买了什么？", _days("2026-10-01", "2026-11-01")),
        ("What did I buy last month?", _days("2026-10-01", "2026-11-01")),
        ("去年夏天我们去了哪里？", _days("2025-06-01", "2025-09-01")),
        ("Where did we go last summer?", _days("2026-06-01", "2026-09-01")),
        ("What happened in May 2023?", _days("2023-05-01", "2023-06-01")),
        ("When did Melanie go camping in June?", _days("2026-06-01", "2026-07-01")),
        ("我三天前说了什么", _days("2026-11-22", "2026-11-23")),
        ("What did I say 3 days ago?", _days("2026-11-22", "2026-11-23")),
        ("两个月前的事还记得吗", _days("2026-09-01", "2026-10-01")),
        ("2025年12月我在做什么？", _days("2025-12-01", "2026-01-01")),
        ("去年我去过哪些城市", _days("2025-01-01", "2026-01-01")),
    ],
)
def test_a_time_in_a_question_is_a_window(question: str, window: Window) -> None:
    assert window_of(question, NOW) == window


@pytest.mark.parametrize(
    "text",
    [
        "May I ask you something?",
        "我最喜欢五月天的歌",
        "我对什么过敏？",
        "What's my favourite food?",
        "5月3日是我生日",
        "今天天气怎么样",
    ],
)
def test_no_time_named_no_window(text: str) -> None:
    assert window_of(text, NOW) is None


PAST = ["昨天", "上周", "上个月", "去年", "去年夏天", "三天前", "yesterday", "last week", "last month",
        "last year", "last summer", "2 weeks ago", "in March", "上周末"]  # fmt: skip


@given(st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2090, 12, 31)), st.sampled_from(PAST))
def test_a_past_expression_is_a_window_before_now(now: datetime, expression: str) -> None:
    window = window_of(expression, now.replace(tzinfo=UTC))
    assert window is not None and window.start < window.end <= now.replace(tzinfo=UTC) + timedelta(days=31)
    assert window.start <= now.replace(tzinfo=UTC)


def test_a_question_that_names_last_month_finds_what_happened_then(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config, now=lambda: NOW)
    trips = [("我去了一趟青岛，海边好美", "2026-10-12"), ("我去了一趟厦门，海边也很美", "2026-11-20"),
             ("我去了一趟大连，海风好大", "2026-08-02")]  # fmt: skip
    chat = [(f"今天第{i}次想吃火锅", f"2026-11-{1 + i % 20:02d}") for i in range(40)]
    at = "T10:00:00+00:00"
    records = [{"user_input": text, "response": "哈哈", "timestamp": day + at} for text, day in trips + chat]
    manager.import_interactions(records)
    manager.flush()
    first = manager.retrieve_memories("上个月我去海边玩了，是哪里来着？", top_k=1).memories
    assert first and "青岛" in first[0].entry.content
    first = manager.retrieve_memories("Which seaside city did I visit in August?", top_k=1).memories
    assert first and "大连" in first[0].entry.content


def test_a_time_told_at_another_time_is_found_by_the_time_it_names(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config, now=lambda: datetime(2026, 4, 25, 12, 0, tzinfo=UTC))
    told = [("We went to Kyoto in April, the cherry blossoms were unreal.", "2026-03-05"),
            ("我去了一趟厦门，海边也很美", "2026-03-06")]  # fmt: skip
    april = [(f"今天第{i}次想吃火锅", f"2026-04-{1 + i % 20:02d}") for i in range(30)]
    april += [("The park near my office is so green now", "2026-04-12")]
    at = "T10:00:00+00:00"
    records = [{"user_input": text, "response": "哈哈", "timestamp": day + at} for text, day in told + april]
    manager.import_interactions(records)
    manager.flush(enrich=True)
    first = manager.retrieve_memories("Where did I see the cherry blossoms in April?", top_k=1).memories
    assert first and "Kyoto" in first[0].entry.content
    shown = manager.retrieve_memories("四月份我去海边了吗？", top_k=5).memories
    assert all("厦门" not in m.entry.content for m in shown[:1])  # names no time: April's come first


def test_a_time_told_at_another_time_outranks_a_window_lifted_only_by_its_own_ranking() -> None:
    """A month of small talk made in the window scores higher than the one memory that matches
    the question's words best (the window's ranking lifts each memory made then, and small talk
    a chat keeps recalling stays significant): the statement that names the time still comes."""
    from memory.domain.types import Layer, MemoryEntry, RetrievedMemory
    from memory.retrieval.raised import dated as _dated

    def memory(text: str, day: str, score: float, dense: int, keyword: int | None) -> RetrievedMemory:
        made = datetime.fromisoformat(day).replace(tzinfo=UTC)
        entry = MemoryEntry(id=text, layer=Layer.TEMPORARY, content=f"用户：{text}", created_at=made)
        return RetrievedMemory(entry, score, 0.3, 1.0, dense_rank=dense, keyword_rank=keyword)

    told = memory("Last February we went up to Sapporo for the snow festival.", "2026-03-04", 0.029, 1, 1)
    chat = [memory(f"今天去博物馆看了展览，第{i}次", f"2026-02-{1 + i:02d}", 0.030 - i / 1000, 4 + i, None)
            for i in range(20)]  # fmt: skip
    ranked = _dated([told, *chat], _days("2026-02-01", "2026-03-01"))
    assert told.entry.id in [m.entry.id for m in ranked[:2]]
    assert ranked[0].score > 1.0 and ranked[1].score > 1.0
