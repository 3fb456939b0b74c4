"""Summary job (fake model and extractive fallback), clean-up ratio, scheduler lifecycle."""

from __future__ import annotations

import asyncio

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from helpers.store import fill, sql
from memory import Layer
from memory.summary.summarizer import Summarizer


async def test_summary_job_writes_one_summary_from_the_model(make_manager, fake_model) -> None:
    manager = make_manager(summary_model=fake_model)
    fill(manager, ["你喜欢什么歌", "下次唱给我听吧"])
    assert await manager.run_summary_now() == 1
    summaries = manager.inspector.entries(Layer.SUMMARY)
    assert [s.content for s in summaries] == ["用户喜欢民谣，karin答应下次唱给他听。"]
    assert summaries[0].significance == 0.5
    assert summaries[0].source == "model"
    assert manager.debug_state()["buffer_count"] == 0


async def test_summary_without_model_is_extractive_and_deterministic(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我叫林远，是后端工程师。平时写Go。", "I deployed a redis cluster today."])
    await manager.run_summary_now()
    text = manager.inspector.entries(Layer.SUMMARY)[0].content
    assert "我叫林远，是后端工程师。" in text and "I deployed a redis cluster today." in text
    assert "记住啦" not in text  # the persona's chatter is left out
    window = [manager.inspector.interaction(e.id) for e in manager.inspector.entries(Layer.ACTIVE)]
    assert text == Summarizer(None, persona="karin", locale="zh").extractive(window)  # type: ignore[arg-type]


async def test_nothing_to_summarise_writes_no_summary(make_manager) -> None:
    manager = make_manager()
    assert await manager.run_summary_now() == 0
    fill(manager, ["一句话"])
    await manager.run_summary_now()
    assert await manager.run_summary_now() == 0
    assert len(manager.inspector.entries(Layer.SUMMARY)) == 1


async def test_summary_covers_active_window_plus_buffer(make_manager, config) -> None:
    config.active.capacity = 3
    prompts: list[str] = []

    class Recording(FakeListChatModel):
        async def _agenerate(self, messages, *args, **kwargs):  # type: ignore[no-untyped-def]
            prompts.append("\n".join(str(m.content) for m in messages))
            return await super()._agenerate(messages, *args, **kwargs)

    manager = make_manager(config, summary_model=Recording(responses=["总结"]))
    fill(manager, [f"第{i}句" for i in range(5)])
    await manager.run_summary_now()
    fill(manager, ["第5句"])
    prompts.clear()
    await manager.run_summary_now()
    # the window (第3, 第4, 第5): 第5 is also the whole buffer
    summary_prompt = prompts[0]  # then the profile extraction reads the new interactions only
    assert [f"第{i}句" in summary_prompt for i in range(6)] == [False] * 3 + [True] * 3


async def test_failing_model_falls_back_to_extractive_and_keeps_nothing_lost(make_manager) -> None:
    class Broken(FakeListChatModel):
        async def _agenerate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise RuntimeError("model server down")

    manager = make_manager(summary_model=Broken(responses=["x"]))
    fill(manager, ["我对花生过敏"])
    assert await manager.run_summary_now() == 1
    assert "花生过敏" in manager.inspector.entries(Layer.SUMMARY)[0].content
    assert manager.inspector.entries(Layer.SUMMARY)[0].source == "extractive"
    assert manager.debug_state()["summary_fallbacks"] == 2  # the recording's gate, then the summary


async def test_junk_model_output_falls_back(make_manager) -> None:
    manager = make_manager(summary_model=FakeListChatModel(responses=["   ...  "]))
    fill(manager, ["我对花生过敏"])
    await manager.run_summary_now()
    assert "花生过敏" in manager.inspector.entries(Layer.SUMMARY)[0].content


async def test_slow_model_times_out_and_falls_back(make_manager, config) -> None:
    config.summary.model_timeout_seconds = 0.2
    manager = make_manager(config, summary_model=FakeListChatModel(responses=["迟到"], sleep=2))
    fill(manager, ["我对花生过敏"])
    await manager.run_summary_now()
    assert "花生过敏" in manager.inspector.entries(Layer.SUMMARY)[0].content


async def test_cleanup_archives_lowest_fraction_rounded_down(make_manager, config) -> None:
    config.summary.cleanup_ratio = 0.25
    manager = make_manager(config)
    for i in range(7):
        fill(manager, [f"话题{i}：{'猫' * (i + 1)}"])
        await manager.run_summary_now()
    assert len(manager.inspector.entries(Layer.SUMMARY)) == 7
    manager.retrieve("猫猫猫猫猫猫猫")  # one tick: 2 recalled summaries are boosted
    recalled = sql(manager, "SELECT id FROM entries WHERE layer='summary' AND changed_at = 1")
    assert await manager.run_cleanup_now() == 1  # floor(7 * 0.25)
    assert len(manager.inspector.entries(Layer.SUMMARY)) == 6
    archived = manager.inspector.archived()
    assert [a.reason for a in archived] == ["cleanup"]
    assert archived[0].id not in {str(r[0]) for r in recalled}
    assert archived[0].layer == Layer.SUMMARY.value


async def test_default_cleanup_ratio_removes_nothing_below_100_summaries(make_manager) -> None:
    manager = make_manager()
    for i in range(3):
        fill(manager, [f"话题{i}"])
        await manager.run_summary_now()
    assert await manager.run_cleanup_now() == 0


async def test_scheduler_start_and_stop_are_idempotent(make_manager) -> None:
    manager = make_manager()
    await manager.start()
    await manager.start()
    state = manager.debug_state()
    assert state["scheduler_running"] is True
    assert set(state["jobs"]) == {"summary", "cleanup"} and all(state["jobs"].values())
    await manager.stop()
    await manager.stop()


async def test_scheduled_summary_job_runs_on_its_interval(make_manager, config) -> None:
    config.summary.interval_seconds = 0.3
    manager = make_manager(config)
    fill(manager, ["定时总结测试"])
    await manager.start()
    for _ in range(50):
        await asyncio.sleep(0.1)
        if len(manager.inspector.entries(Layer.SUMMARY)):
            break
    assert len(manager.inspector.entries(Layer.SUMMARY)) == 1
    await manager.stop()


def fake_summary_model():  # type: ignore[no-untyped-def]
    """A factory named in config (summary.model_factory)."""
    return FakeListChatModel(responses=["来自配置的模型写的总结"])


async def test_model_named_in_config_is_used_when_none_is_passed(make_manager, config) -> None:
    config.summary.model_factory = "test_summary:fake_summary_model"
    manager = make_manager(config)
    fill(manager, ["你好"])
    await manager.run_summary_now()
    assert manager.inspector.entries(Layer.SUMMARY)[0].content == "来自配置的模型写的总结"


def test_bad_model_factory_is_a_config_error(config) -> None:
    import pytest

    from memory import ConfigError, MemoryManager

    config.summary.model_factory = "no_such_module:make"
    with pytest.raises(ConfigError, match="summary.model_factory"):
        MemoryManager("karin", config)


async def test_extractive_summary_keeps_the_important_sentences_within_budget(make_manager, config) -> None:
    config.summary.max_summary_chars = 50
    manager = make_manager(config)
    fill(manager, ["哈哈哈今天好开心。随便聊聊。我对花生过敏，吃了会起疹子。外面下雨了。"])
    await manager.run_summary_now()
    text = manager.inspector.entries(Layer.SUMMARY)[0].content
    assert "我对花生过敏" in text and len(text) <= 50


async def test_consecutive_summaries_never_repeat_a_line(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我家的猫叫年糕。", "我在杭州上班。"])
    await manager.run_summary_now()
    fill(manager, ["我下周三要去北京出差。"])  # the window still holds the first two
    await manager.run_summary_now()
    first, second = (e.content.splitlines() for e in manager.inspector.entries(Layer.SUMMARY))
    assert first and second and not set(first) & set(second)
    assert any("北京出差" in line for line in second)


async def test_nothing_new_worth_a_line_writes_no_empty_summary(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我家的猫叫年糕。"])
    await manager.run_summary_now()
    fill(manager, ["我家的猫叫年糕。"])  # said again, word for word
    assert await manager.run_summary_now() == 0
    assert len(manager.inspector.entries(Layer.SUMMARY)) == 1 and manager.debug_state()["buffer_count"] == 0
