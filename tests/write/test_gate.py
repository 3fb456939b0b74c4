"""The recording gate: with a summary model, recording asks whether and how much an interaction matters."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from memory import Layer
from memory.domain.importance import importance


async def test_the_gate_writes_the_note_and_the_importance(make_manager) -> None:
    answer = '{"note": "用户对花生过敏，吃了会起疹子。", "importance": 0.95, "remember": true}'
    manager = make_manager(summary_model=FakeListChatModel(responses=[answer]))
    interaction_id = await manager.record_interaction("我对花生过敏，吃了会起疹子", "记住啦，前辈～")
    entry = manager.inspector.entry(interaction_id)
    assert entry is not None and entry.note == "用户对花生过敏，吃了会起疹子。"
    assert entry.importance == 0.95
    assert manager.inspector.interaction(interaction_id).note == entry.note  # type: ignore[union-attr]


async def test_noise_is_marked_unimportant(make_manager) -> None:
    answer = 'Sure! {"note": "User said hi.", "importance": 0.4, "remember": false}'
    manager = make_manager(summary_model=FakeListChatModel(responses=[answer]))
    interaction_id = await manager.record_interaction("hi there", "你好呀～")
    assert manager.inspector.entry(interaction_id).importance == 0.0  # type: ignore[union-attr]


async def test_a_plain_text_answer_is_still_a_note(make_manager, fake_model) -> None:
    manager = make_manager(summary_model=fake_model)
    interaction_id = await manager.record_interaction("你喜欢什么歌", "我最喜欢民谣啦")
    entry = manager.inspector.entry(interaction_id)
    assert entry is not None and entry.note == "用户喜欢民谣，karin答应下次唱给他听。"
    assert entry.importance == importance("你喜欢什么歌")  # the rule-based estimate stands


async def test_out_of_range_importance_is_clipped_and_junk_ignored(make_manager) -> None:
    answers = ['{"note": "用户的生日是5月3日", "importance": 7}', '{"note": "", "importance": "high"}']
    manager = make_manager(summary_model=FakeListChatModel(responses=answers))
    first = await manager.record_interaction("我的生日是5月3日", "记下啦")
    second = await manager.record_interaction("嗯嗯", "好哒")
    assert manager.inspector.entry(first).importance == 1.0  # type: ignore[union-attr]
    later = manager.inspector.entry(second)
    assert later is not None and later.importance == importance("嗯嗯") and later.note is None
    assert [e.id for e in manager.inspector.entries(Layer.ACTIVE)] == [first, second]


def test_the_sync_form_runs_the_gate_too(make_manager) -> None:
    answer = '{"note": "用户每天早上六点去游泳。", "importance": 0.8, "remember": true}'
    manager = make_manager(summary_model=FakeListChatModel(responses=[answer]))
    interaction_id = manager.record_interaction_sync("我每天早上六点去游泳", "好自律呀～")
    entry = manager.inspector.entry(interaction_id)
    assert entry is not None and entry.note == "用户每天早上六点去游泳。" and entry.importance == 0.8


async def test_the_sync_form_runs_the_gate_inside_an_event_loop_as_well(make_manager) -> None:
    answer = '{"note": "User plays the ukulele.", "importance": 0.7, "remember": true}'
    manager = make_manager(summary_model=FakeListChatModel(responses=[answer]))
    interaction_id = manager.record_interaction_sync("I play the ukulele", "好厉害～")  # a loop runs here
    assert manager.inspector.entry(interaction_id).note == "User plays the ukulele."  # type: ignore[union-attr]
