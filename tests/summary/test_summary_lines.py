"""A summary is found by a question about one of its sentences, in either language."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from helpers.store import fill, sql_count
from memory import Layer

PASSPORT = "用户的护照放在书房左边的抽屉里。"
SUMMARIES = [
    "用户聊了周末的天气。用户说最近在追一部悬疑剧。用户抱怨早高峰的地铁太挤。"
    f"用户提到楼下新开了一家面包店。{PASSPORT}用户说晚上想吃火锅。",
    "用户聊了猫咪换季掉毛的问题。用户说同事送了他一盆绿萝。用户想周日去公园散步。"
    "用户说最近睡得比较晚。用户觉得新出的手机太贵了。用户打算学做红烧肉。",
    "The user talked about a rainy Monday. The user said the office printer jammed again. "
    "The user wants to repaint the balcony railing. The user found a good podcast about history. "
    "The user complained about a noisy neighbour. The user plans to bake banana bread.",
    "用户聊了最近看的综艺节目。用户说电动车的电池不太耐用。用户想买一把人体工学椅。"
    "用户提到小区在修路。用户说喜欢下雨天听歌。用户觉得外卖越来越贵。",
    "用户下个月要去大阪旅行。用户订好了往返机票。用户在比较几家酒店的价格。"
    "用户说签证材料已经交上去了。用户打算只带一个登机箱。用户想提前换一些日元现金。",
    "The user is planning a trip abroad next spring. The user booked flights with a layover. "
    "The user is comparing travel insurance offers. The user renewed an ID card last year. "
    "The user wants a lighter suitcase. The user asked about airport lounges.",
    "The user chatted about football results. The user said their houseplants need repotting. "
    "The user is thinking about a weekend trip to the coast. The user tried a new ramen place. "
    "The user wants to learn to juggle. The user said the laundry machine is very loud.",
]


async def test_a_question_about_one_sentence_of_a_long_summary_brings_that_summary(
    make_manager, config
) -> None:
    # in English and with no word of the sentence: its meaning has to find it, not a keyword;
    # the travel summaries are closer to the question as a whole
    question = "Where at home do I store my travel documents?"
    config.active.capacity = 2
    manager = make_manager(config, summary_model=FakeListChatModel(responses=SUMMARIES))
    for round_ in range(len(SUMMARIES)):
        fill(manager, [f"第{round_}轮的第一句", f"第{round_}轮的第二句"])
        assert await manager.run_summary_now() == 1
    manager.flush(enrich=True)

    found = manager.retrieve_memories(question).memories
    assert any(PASSPORT in m.entry.content for m in found if m.entry.layer == Layer.SUMMARY)


@pytest.mark.parametrize("provider", ["use-e5", "use-multilingual"])  # enriched later, or at once
async def test_a_summary_s_sentence_vectors_go_with_its_user(make_manager, config, provider) -> None:
    config.embedding.provider = provider
    config.active.capacity = 2
    manager = make_manager(config, summary_model=FakeListChatModel(responses=SUMMARIES))
    fill(manager, ["今天的第一句", "今天的第二句"], user_id="alice")
    await manager.run_summary_now()
    manager.flush(enrich=True)
    assert sql_count(manager, "SELECT COUNT(*) FROM entries WHERE line_vectors IS NOT NULL") == 1

    manager.forget_user("alice")
    assert sql_count(manager, "SELECT COUNT(*) FROM entries WHERE line_vectors IS NOT NULL") == 0


@pytest.mark.sqlite_only
async def test_summaries_of_an_older_record_get_sentence_vectors(make_manager, config) -> None:
    config.active.capacity = 2
    with make_manager(config, summary_model=FakeListChatModel(responses=SUMMARIES)) as manager:
        fill(manager, ["今天的第一句", "今天的第二句"])
        await manager.run_summary_now()
        manager.flush(enrich=True)
    path = Path(config.data_dir) / "karin.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:  # as a version without them left it
        conn.execute("UPDATE entries SET line_vectors = NULL")
        conn.execute("DELETE FROM meta WHERE key = 'index_line_vectors'")

    with make_manager(config) as manager:
        manager.flush(enrich=True)
        assert sql_count(manager, "SELECT COUNT(*) FROM entries WHERE line_vectors IS NOT NULL") == 1


@pytest.mark.sqlite_only
async def test_sentence_vectors_an_earlier_rule_made_are_made_again(make_manager, config) -> None:
    """A record whose summaries got a vector for every sentence, their questions too, gets them
    again under today's rule, once."""
    summary = "用户：What sport do you do at weekends?\n用户：今天地铁好挤。\n用户：晚饭吃了面条。"
    config.active.capacity = 2
    with make_manager(config, summary_model=FakeListChatModel(responses=[summary])) as manager:
        fill(manager, ["今天的第一句", "今天的第二句"])
        await manager.run_summary_now()
        manager.flush(enrich=True)
    path = Path(config.data_dir) / "karin.sqlite3"
    query = "SELECT length(line_vectors) FROM entries WHERE line_vectors IS NOT NULL"
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:  # a third row, as the earlier rule made
        (made,) = conn.execute(query).fetchone()
        conn.execute(
            "UPDATE entries SET line_vectors = line_vectors || substr(line_vectors, 1, ?)", (made // 2,)
        )
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'index_line_vectors'")

    with make_manager(config) as manager:
        manager.flush(enrich=True)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute(query).fetchone() == (made,)


async def test_a_question_the_user_asked_does_not_make_a_summary_an_answer(make_manager, config) -> None:
    """A summary's line that asks ("What sport do you do at weekends?") tells nothing about the
    user: the summary that says what the user does comes first (the question asked in Chinese,
    the summary's question in English: its meaning, not a keyword, matches it)."""
    told = (
        "用户：上个月搬了新家。\n用户：周末我一般去攀岩，已经玩了两年。\n"
        "用户：最近在追一部悬疑剧。\n用户：同事送了我一盆绿萝。"
    )
    asked = (
        "用户：What sport do you do at weekends?\n用户：今天地铁好挤。\n用户：晚饭吃了面条。\n"
        "用户：楼下新开了一家面包店。\n用户：最近睡得比较晚。"
    )
    config.active.capacity = 2
    config.retrieval.caps = {"summary": 1, "static": 0}
    for round_, summary in enumerate([told, asked]):  # a model that always writes this summary
        with make_manager(config, summary_model=FakeListChatModel(responses=[summary])) as manager:
            fill(manager, [f"第{round_}轮的第一句", f"第{round_}轮的第二句"])
            assert await manager.run_summary_now() == 1
            manager.flush(enrich=True)

    with make_manager(config) as manager:
        found = manager.retrieve_memories("我周末有什么运动爱好？").memories
    summaries = [m.entry.content for m in found if m.entry.layer == Layer.SUMMARY]
    assert summaries and "攀岩" in summaries[0], summaries
