"""Explicit memory: remember (pinned or not), profile facts with a key, newer values superseding."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from helpers.store import budget, fill
from memory import InputTypeError, InvalidInputError, Layer, MemoryConfig


def _forgetful(config: MemoryConfig) -> MemoryConfig:
    config.active.capacity = 1
    config.temporary.decay_coefficient = 0.5
    budget(config, 1, 0, 0)
    return config


def test_a_pinned_memory_never_decays(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    pinned = manager.remember("我对花生过敏，千万别推荐花生酱", user_id="u1")
    fill(manager, ["今天吃了火锅", "今天去了公园", "最后"], user_id="u1")
    for _ in range(20):
        manager.retrieve("今天去哪儿玩了", user_id="u1")
    entry = manager.inspector.entry(pinned)
    assert entry is not None and entry.layer == Layer.TEMPORARY and entry.pinned
    assert manager.inspector.significance(pinned) == 1.0
    _, rag = manager.retrieve("What am I allergic to?", user_id="u1")
    assert "花生" in rag


def test_an_unpinned_memory_starts_significant_and_decays(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    remembered = manager.remember("下周三要去看牙医", user_id="u1", pinned=False)
    fill(manager, ["今天吃了火锅", "最后"], user_id="u1")
    manager.retrieve("火锅好吃吗", user_id="u1")
    assert manager.inspector.significance(remembered) == 0.5  # 1.0 after one untouched tick at 0.5
    for _ in range(3):
        manager.retrieve("火锅好吃吗", user_id="u1")
    assert manager.inspector.entry(remembered).layer == Layer.ARCHIVED  # type: ignore[union-attr]


def test_the_same_text_told_again_refreshes_the_memory_told_before(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    first = manager.remember("下周三要去看牙医", user_id="u1", pinned=False)
    assert manager.remember("下周三要去看牙医", user_id="u1", pinned=False) == first  # one memory
    fill(manager, ["今天吃了火锅", "最后"], user_id="u1")
    for _ in range(4):
        manager.retrieve("火锅好吃吗", user_id="u1")
    assert manager.inspector.entry(first).layer == Layer.ARCHIVED  # type: ignore[union-attr]
    assert manager.remember("下周三要去看牙医", user_id="u1", pinned=True) == first  # back, pinned
    entry = manager.inspector.entry(first)
    assert entry is not None and entry.layer == Layer.TEMPORARY and entry.pinned
    assert manager.inspector.significance(first) == 1.0
    told = [e for layer in (Layer.TEMPORARY, Layer.ARCHIVED) for e in manager.inspector.entries(layer, "u1")]
    assert [e.id for e in told if "牙医" in e.content] == [first]
    assert manager.remember("下周三要去看牙医", user_id="u2") != first  # another user's is their own


def test_a_new_value_for_a_key_supersedes_the_old(make_manager) -> None:
    manager = make_manager()
    manager.remember("上海", user_id="u1", key="home_city")
    manager.remember("Hangzhou (moved in November)", user_id="u1", key="home_city")
    manager.remember("花生", user_id="u1", key="allergy")
    profile = manager.profile("u1")
    assert sorted(profile) == ["allergy", "home_city"]
    assert profile["home_city"].value == "Hangzhou (moved in November)"
    assert profile["home_city"].source == "remember"
    _, rag = manager.retrieve("我住在哪里？", user_id="u1")
    assert "home_city：Hangzhou" in rag and "上海" not in rag and "allergy：花生" in rag


def test_the_same_value_told_twice_keeps_its_since(make_manager) -> None:
    manager = make_manager()
    first = manager.remember("猫毛", user_id="u1", key="allergy")
    assert manager.remember("猫毛", user_id="u1", key="allergy") == first
    assert len(manager.profile("u1")) == 1


def test_profile_facts_reach_every_prompt_within_the_budget(make_manager, config) -> None:
    config.retrieval.profile_budget = 3
    manager = make_manager(config)
    for key, value in [("pet", "柯基可乐"), ("birthday", "5月3日"), ("job", "后端工程师")]:
        manager.remember(value, user_id="u1", key=key)
    result = manager.retrieve_memories("随便聊聊", user_id="u1")
    assert [f.key for f in result.profile] == ["job", "birthday", "pet"]  # all fit: the newest first
    manager.close()
    config.retrieval.profile_budget = 1
    fewer = make_manager(config).retrieve_memories("我的宠物叫什么名字？", user_id="u1")
    assert [f.key for f in fewer.profile] == ["pet"]  # too many: the one the question needs
    assert "柯基" in fewer.rag_text and "后端工程师" not in fewer.rag_text


def test_one_users_profile_is_theirs_alone(make_manager) -> None:
    manager = make_manager()
    manager.remember("花生", user_id="alice", key="allergy")
    assert manager.profile("bob") == {}
    _, rag = manager.retrieve("我对什么过敏", user_id="bob")
    assert "花生" not in rag


def test_remember_refuses_bad_arguments_and_writes_nothing(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="text"):
        manager.remember("   ", user_id="u1")
    with pytest.raises(InvalidInputError, match="key"):
        manager.remember("花生", user_id="u1", key="../etc")
    with pytest.raises(InputTypeError, match="pinned"):
        manager.remember("花生", user_id="u1", pinned="yes")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match="key"):
        manager.remember("花生", user_id="u1", key=3)  # type: ignore[arg-type]
    state = manager.debug_state(user_id="u1")
    assert state["user"]["temporary"] == 0 and manager.profile("u1") == {}


async def test_the_summary_model_extracts_profile_facts(make_manager) -> None:
    answer = (
        '好的：{"facts": [{"key": "home", "value": "杭州"}, {"key": "Pet Name", "value": "Cola"},'
        ' {"key": "../bad", "value": "x"}]}'
    )
    model = FakeListChatModel(responses=["用户搬到了杭州，养了一只叫 Cola 的柯基。", answer])
    manager = make_manager(summary_model=model)
    fill(manager, ["我上个月搬到杭州了", "My corgi is called Cola"], user_id="u1")
    assert await manager.run_summary_now() == 1
    profile = manager.profile("u1")
    assert sorted(profile) == ["home", "pet_name"]  # the model's value replaced the statement's
    assert profile["home"].value == "杭州" and profile["home"].source == "model"
    _, rag = manager.retrieve("我住哪儿？", user_id="u1")
    assert "home：杭州" in rag


async def test_a_junk_profile_answer_extracts_nothing_and_keeps_the_summary(make_manager) -> None:
    manager = make_manager(summary_model=FakeListChatModel(responses=["用户对花生过敏。", "I cannot help"]))
    fill(manager, ["我对花生过敏"], user_id="u1")
    assert await manager.run_summary_now() == 1
    assert manager.profile("u1") == {}


async def test_without_a_model_only_remember_and_plain_statements_write_the_profile(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我对花生过敏", "我住在上海"], user_id="u1")
    await manager.run_summary_now()
    profile = manager.profile("u1")
    assert list(profile) == ["home"]
    assert profile["home"].value == "我住在上海" and profile["home"].source == "said"


def test_a_long_fact_that_does_not_compress_is_kept_and_replaced(make_manager) -> None:
    manager = make_manager()
    chars = [chr(code) for code in range(0x4E00, 0x4E00 + 3000)]  # 9 kB of distinct characters
    long_note = "我的旅行计划：" + "".join(chars[(i * 7919) % 3000] for i in range(3000))
    manager.remember(long_note, user_id="u1", key="travel_plan")
    assert manager.profile("u1")["travel_plan"].value == long_note
    manager.remember("Plans changed: I stay home this summer.", user_id="u1", key="travel_plan")
    assert manager.profile("u1")["travel_plan"].value.startswith("Plans changed")
    assert manager.retrieve_memories("what are my travel plans?", user_id="u1").rag_text
