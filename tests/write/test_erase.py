"""Erasing a user: gone from every file (the bytes on disk), nobody else touched."""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from helpers.paths import HELPERS
from helpers.store import config_env, files_holding, fill
from memory import InvalidInputError, Layer, MemoryConfig
from memory.personas import SAMPLES

MARKER = "qxjvmarker"
"""A word no model, dictionary or other user has: found on disk only where alice's text is."""


async def test_forget_user_leaves_no_byte_of_their_text_and_keeps_everyone_else(
    make_manager, config: MemoryConfig
) -> None:
    config.active.capacity = 2
    config.temporary.decay_coefficient = 0.5  # alice's old memories go cold: archive file lines
    config.retrieval.top_k = 3  # the retrievals below boost 3 of alice's 6 memories; the rest go cold
    manager = make_manager(config)
    fill(manager, [f"我的秘密暗号是{MARKER}{i}号，千万别告诉别人" for i in range(8)], user_id="alice")
    manager.remember(f"alice的暗号是{MARKER}", user_id="alice", key="secret_word")
    fill(manager, ["我家的柯基叫可乐", "我每天早上喝咖啡", "周末去爬山"], user_id="bob")
    for _ in range(6):
        manager.retrieve("今天天气怎么样", user_id="alice")
    await manager.run_summary_now()
    manager.flush()
    folders = [Path(config.data_dir), Path(config.archive_dir)]
    assert manager.inspector.archived(), "the test needs alice's forgotten memories in the archive"
    assert files_holding(folders, MARKER.encode()), "the test needs alice's text on disk first"

    assert manager.forget_user("alice") > 8
    assert files_holding(folders, MARKER.encode()) == []  # even before close
    manager.close()
    assert files_holding(folders, MARKER.encode()) == []

    again = make_manager(config)
    active, rag = again.retrieve("暗号是什么", user_id="alice")
    assert MARKER not in active + rag and again.profile("alice") == {}
    active, rag = again.retrieve("我家的狗叫什么", user_id="bob")
    assert "可乐" in active + rag and "周末去爬山" in active


@pytest.mark.parametrize("flush_first", [True, False])
def test_short_messages_erased_leave_no_fragment_in_any_page(make_manager, config, flush_first: bool) -> None:
    """One-word messages, indexed and searched before the erase: no byte of them stays, even in
    the unused space of the record's live pages (the shipped persona: its memories shape the pages
    as in the report that found fragments)."""
    config.personas_dir = str(SAMPLES)
    manager = make_manager(config)
    user = "uidmarker-7f3a@example.com"  # a user id is personal data: often an e-mail address
    for i in range(30):  # the shape of the report that found fragments ("zebrafish" then a number)
        manager.record_interaction_sync(f"zebrafish{i}", "好的", user_id=user)
        manager.record_interaction_sync(f"普通聊天{i}", "嗯嗯", user_id="bob")
    manager.retrieve("zebrafish", user_id=user)
    if flush_first:
        manager.flush()
    manager.forget_user(user)
    manager.close()
    folders = [Path(config.data_dir), Path(config.archive_dir)]
    assert files_holding(folders, b"zebrafish") == []
    assert files_holding(folders, b"uidmarker") == []  # nor the id (the index knows a keyed hash)


def test_forget_user_needs_a_user(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="user_id"):
        manager.forget_user(None)  # type: ignore[arg-type]


def test_forget_erases_one_memory_and_only_for_its_owner(make_manager, config: MemoryConfig) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    secret, kept, last = fill(
        manager, [f"我的银行卡密码提示是{MARKER}", "我喜欢吃草莓", "今天下雨了"], user_id="alice"
    )
    manager.flush()
    assert manager.forget(secret, user_id="bob") is False  # not bob's to erase
    assert manager.inspector.entry(secret) is not None
    assert manager.forget(secret, user_id="alice") is True
    assert manager.forget(secret, user_id="alice") is False  # already gone
    assert manager.inspector.entry(secret) is None and manager.inspector.interaction(secret) is None
    assert secret not in manager.inspector.indexed_ids(manager.inspector.entry(kept).layer, "alice")
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []
    again = make_manager(config)
    assert "草莓" in again.retrieve("我喜欢吃什么", user_id="alice")[1]
    static = again.inspector.entries(again.inspector.entry(last).layer.STATIC)[0].id
    with pytest.raises(InvalidInputError, match="persona"):
        again.forget(static)


def test_forget_takes_the_profile_fact_its_statement_set_and_the_value_before_comes_back(
    make_manager, config: MemoryConfig
) -> None:
    manager = make_manager(config)
    _, moved = fill(
        manager,
        ["我住在北京朝阳区，离公司很近。", f"我搬家了，现在住在苏州金鸡湖边{MARKER}小区"],
        user_id="alice",
    )
    assert MARKER in manager.profile("alice")["home"].value  # the statement set the slot
    assert manager.forget(moved, user_id="alice")
    assert "北京" in manager.profile("alice")["home"].value
    active, rag = manager.retrieve("我现在住在哪里？", user_id="alice")
    assert MARKER not in active + rag and "北京" in rag
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


def test_forget_leaves_the_fact_another_statement_of_the_same_moment_set(make_manager) -> None:
    manager = make_manager()
    moment = datetime(2026, 11, 1, 9, 30, tzinfo=UTC)  # an import's records may share one
    moved = manager.record_interaction_sync(
        "我搬家了，现在住在苏州金鸡湖边", "好呀", user_id="alice", timestamp=moment
    )
    manager.record_interaction_sync(
        "我换工作了，现在在一家咖啡馆当咖啡师", "加油", user_id="alice", timestamp=moment
    )
    assert sorted(manager.profile("alice")) == ["home", "job"]
    assert manager.forget(moved, user_id="alice")
    assert sorted(manager.profile("alice")) == ["job"]


def test_forget_erases_a_keyed_fact_by_the_id_remember_returned(make_manager, config: MemoryConfig) -> None:
    manager = make_manager(config)
    manager.remember("我的钥匙放在书桌抽屉里", user_id="alice", key="keys")
    moved = manager.remember(f"钥匙改放在门口{MARKER}盒子里", user_id="alice", key="keys")
    assert manager.forget(moved, user_id="bob") is False  # not bob's
    assert manager.forget(moved, user_id="alice") is True
    assert manager.forget(moved, user_id="alice") is False  # already gone
    assert manager.profile("alice")["keys"].value == "我的钥匙放在书桌抽屉里"
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


@pytest.mark.parametrize("cold", [False, True])
async def test_forget_takes_its_lines_out_of_the_summaries_that_quote_it(
    make_manager, config: MemoryConfig, cold: bool
) -> None:
    config.active.capacity = 2
    config.summary.cleanup_ratio = 1.0 if cold else 0.0  # the clean-up archives the summary
    manager = make_manager(config)
    said = [f"我的秘密暗号是{MARKER}，别告诉别人", "我最喜欢吃草莓蛋糕", "I went hiking at Fragrant Hills"]
    secret, *_ = fill(manager, said, user_id="alice")
    await manager.run_summary_now()
    await manager.run_cleanup_now()
    layer = Layer.ARCHIVED if cold else Layer.SUMMARY
    (summary,) = manager.inspector.entries(layer, "alice")
    assert MARKER in summary.content and "草莓" in summary.content
    assert manager.forget(secret, user_id="alice")
    manager.flush()
    (summary,) = manager.inspector.entries(layer, "alice")
    assert MARKER not in summary.content and "草莓" in summary.content and "Fragrant" in summary.content
    assert "草莓" in manager.retrieve("我喜欢吃什么蛋糕？", user_id="alice")[1]
    if cold:  # the archive file holds the summary as it is now
        assert [r.content for r in manager.inspector.archived() if r.id == summary.id] == [summary.content]
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


async def test_forget_takes_the_summary_a_model_wrote_of_it_and_the_facts_the_model_drew(
    make_manager, config: MemoryConfig
) -> None:
    facts = f'{{"facts": [{{"key": "secret_word", "value": "暗号{MARKER}"}}]}}'
    notes = ["记下了", "记下了"]  # the recording gate's, one per interaction
    answers = [
        *notes,
        f"用户说了暗号{MARKER}，还最爱草莓蛋糕。",
        facts,
        "用户最爱草莓蛋糕。",
        '{"facts": []}',
    ]
    manager = make_manager(summary_model=FakeListChatModel(responses=answers))
    said = [f"我的秘密暗号是{MARKER}，别告诉别人", "我最喜欢吃草莓蛋糕"]
    secret, _ = fill(manager, said, user_id="alice")
    assert await manager.run_summary_now() == 1
    assert "secret_word" in manager.profile("alice")
    assert manager.forget(secret, user_id="alice")
    assert manager.inspector.entries(Layer.SUMMARY, "alice") == []
    assert "secret_word" not in manager.profile("alice")
    assert manager.debug_state()["buffer_count"] == 1  # the other interaction waits for the next summary
    assert await manager.run_summary_now() == 1
    assert [s.content for s in manager.inspector.entries(Layer.SUMMARY, "alice")] == ["用户最爱草莓蛋糕。"]
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


class _ErasingWhileSummarising(FakeListChatModel):
    """A fake chat model that runs ``meanwhile`` once, as the summary job asks it."""

    meanwhile: Any = None

    def _call(self, *args: Any, **kwargs: Any) -> str:
        if self.meanwhile is not None:
            run, self.meanwhile = self.meanwhile, None
            run()
        return super()._call(*args, **kwargs)


async def test_a_summary_whose_interaction_is_erased_while_the_model_writes_it_is_not_stored(
    make_manager, config: MemoryConfig
) -> None:
    notes = ["记下了", "记下了"]
    model = _ErasingWhileSummarising(responses=[*notes, f"用户说了暗号{MARKER}。", '{"facts": []}'])
    manager = make_manager(summary_model=model)
    secret, _ = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人", "我最喜欢吃草莓蛋糕"], user_id="alice")
    model.meanwhile = lambda: manager.forget(secret, user_id="alice")
    assert await manager.run_summary_now() == 0
    assert manager.inspector.entries(Layer.SUMMARY, "alice") == []
    assert manager.debug_state()["buffer_count"] == 1  # the other interaction waits for the next run
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


async def test_a_summary_that_only_quoted_the_erased_memory_goes_whole(
    make_manager, config: MemoryConfig
) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    secret, _ = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人", "嗯"], user_id="alice")
    await manager.run_summary_now()
    assert any(MARKER in s.content for s in manager.inspector.entries(Layer.SUMMARY, "alice"))
    assert manager.forget(secret, user_id="alice")
    assert all(MARKER not in s.content for s in manager.inspector.entries(Layer.SUMMARY, "alice"))
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


def test_an_erase_cut_short_after_the_record_is_finished_at_the_next_start(
    make_manager, config: MemoryConfig, monkeypatch
) -> None:
    """The process dies after the record's transaction (here: the archive rewrite fails as a kill
    would stop it): the next start finds the tombstone and clears the archive file too."""
    config.active.capacity = 1
    config.temporary.decay_coefficient = 0.5
    config.retrieval.top_k = 1  # the retrievals below boost one memory; the rest go cold
    manager = make_manager(config)
    fill(manager, [f"{MARKER}{i}号秘密" for i in range(6)], user_id="alice")
    fill(manager, ["我家的柯基叫可乐"], user_id="bob")
    for _ in range(6):
        manager.retrieve("今天天气怎么样", user_id="alice")
    manager.flush()
    archive = Path(config.archive_dir)
    assert files_holding([archive], MARKER.encode()), "the test needs alice's records in the archive"

    def killed(*_: object) -> int:
        raise OSError("killed here")

    monkeypatch.setattr(manager._engine.sync, "erase_archived", killed)
    with pytest.raises(OSError):
        manager.forget_user("alice")
    manager.close()
    assert files_holding([archive], MARKER.encode()), "the crash left the archive as it was"

    reopened = make_manager(config)
    assert files_holding([Path(config.data_dir), archive], MARKER.encode()) == []
    assert all(record.user_id != "alice" for record in reopened.inspector.archived())
    assert "可乐" in "".join(reopened.retrieve("我家的狗叫什么", user_id="bob"))


def test_a_forget_cut_short_after_the_record_is_finished_at_the_next_start(
    make_manager, config: MemoryConfig, monkeypatch
) -> None:
    config.active.capacity = 1
    config.temporary.decay_coefficient = 0.5
    config.retrieval.top_k = 1  # the retrievals below boost one memory; the rest go cold
    manager = make_manager(config)
    fill(manager, [f"{MARKER}{i}号秘密" for i in range(6)], user_id="alice")
    for _ in range(6):
        manager.retrieve("今天天气怎么样", user_id="alice")
    manager.flush()
    archive = Path(config.archive_dir)
    cold = manager.inspector.archived()[0]
    word = cold.content.split(MARKER)[1].split("号")[0]
    gone = f"{MARKER}{word}号".encode()
    assert files_holding([archive], gone), "the test needs the memory's record in the archive"

    def killed(*_: object) -> int:
        raise OSError("killed here")

    monkeypatch.setattr(manager._engine.sync, "erase_archived", killed)
    with pytest.raises(OSError):
        manager.forget(cold.id, user_id="alice")
    manager.close()
    assert files_holding([archive], gone), "the crash left the archive as it was"

    reopened = make_manager(config)
    assert files_holding([Path(config.data_dir), archive], gone) == []
    assert len(reopened.inspector.archived()) >= 1  # the other cold memories keep their records


@pytest.mark.parametrize("step", ["archive", "rename", "vectors", "scrub", "done"])
def test_sigkill_during_forget_user_then_restart_leaves_nothing(
    make_manager, config: MemoryConfig, step: str
) -> None:
    """A real SIGKILL at each step of an erase after its record transaction: the next start
    finishes it, so no file under the data or archive folder holds alice's words or id."""
    child = subprocess.run(
        [sys.executable, str(HELPERS / "erase_child.py"), step],
        env=config_env(config),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    assert "erasing" in child.stdout and "not killed" not in child.stdout
    folders = [Path(config.data_dir), Path(config.archive_dir)]
    if step in ("archive", "rename"):  # the test reaches the cases it means to
        assert files_holding([Path(config.archive_dir)], MARKER.encode())
    reopened = make_manager(config)
    assert all(record.user_id != "alice" for record in reopened.inspector.archived())
    assert "可乐" in "".join(reopened.retrieve("我家的狗叫什么", user_id="bob"))
    reopened.close()
    assert files_holding(folders, MARKER.encode()) == []
    assert files_holding(folders, b"alice") == []


@pytest.mark.sqlite_only  # the record's bytes are in these folders (Postgres: test_postgres's vacuum test)
def test_a_heavy_user_with_store_items_erased_leaves_no_byte_and_forget_leaves_none_either(
    make_manager, config: MemoryConfig
) -> None:
    """2,000 memories (the user's own vector collection), LangGraph store items, one memory
    forgotten first: after ``forget`` no byte of that memory, after ``forget_user`` no byte of the
    user's words or id, in any file under the data and archive folders."""
    config.embedding.provider = "use-multilingual"  # the fast real embedder: 2,000 memories in seconds
    user = "heavy_user@example-mail"  # LangGraph namespaces refuse periods
    manager = make_manager(config)
    rows = [
        {"user_input": f"{MARKER}第{i}条：今天练了{i}分钟吉他", "response": "加油～", "user_id": user}
        for i in range(2000)
    ]
    manager.import_interactions(rows)
    store = manager.as_store()
    store.put(("memories", user), "m-food", {"content": f"用户最爱吃{MARKER}牌饺子"})
    store.put(("memories", "bob"), "m-dog", {"content": "bob 家的柯基叫可乐"})
    once = manager.remember("我的单词本密码是zqwlonce", user_id=user)
    manager.flush()
    folders = [Path(config.data_dir), Path(config.archive_dir)]
    assert files_holding(folders, b"zqwlonce")
    assert manager.forget(once, user_id=user)
    assert files_holding(folders, b"zqwlonce") == []

    assert manager.forget_user(user) >= 2000
    manager.close()
    assert files_holding(folders, MARKER.encode()) == []
    assert files_holding(folders, user.encode()) == []
    again = make_manager(config)
    assert again.as_store().get(("memories", "bob"), "m-dog") is not None


async def test_forget_gives_back_the_value_before_when_the_model_drew_one_key_twice(
    make_manager, config: MemoryConfig
) -> None:
    facts = f'{{"facts": [{{"key": "pet", "value": "猫"}}, {{"key": "pet", "value": "狗{MARKER}"}}]}}'
    answers = ["记下了", "记下了", f"用户养了猫，后来又养了狗{MARKER}。", facts]
    manager = make_manager(summary_model=FakeListChatModel(responses=answers))
    manager.remember("仓鼠", user_id="alice", key="pet")
    said, _ = fill(manager, [f"我家新来了一只狗，叫{MARKER}", "我最喜欢吃草莓蛋糕"], user_id="alice")
    assert await manager.run_summary_now() == 1
    assert MARKER in manager.profile("alice")["pet"].value
    assert manager.forget(said, user_id="alice")
    assert manager.profile("alice")["pet"].value == "仓鼠"  # not left with no current value
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []


async def test_forget_takes_a_model_summary_that_was_shown_it_in_the_active_window(
    make_manager, config: MemoryConfig
) -> None:
    answers = ["记下了", "记下了", "用户最爱草莓蛋糕。", '{"facts": []}']  # the first summary: A and B
    answers += ["记下了", f"用户的暗号是{MARKER}，最近去爬了香山。", '{"facts": []}']  # A in the window
    manager = make_manager(summary_model=FakeListChatModel(responses=answers))
    secret, _ = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人", "我最喜欢吃草莓蛋糕"], user_id="alice")
    assert await manager.run_summary_now() == 1
    fill(manager, ["I went hiking at Fragrant Hills"], user_id="alice")
    assert await manager.run_summary_now() == 1
    assert any(MARKER in s.content for s in manager.inspector.entries(Layer.SUMMARY, "alice"))
    assert manager.forget(secret, user_id="alice")
    assert manager.inspector.entries(Layer.SUMMARY, "alice") == []
    assert manager.debug_state()["buffer_count"] == 2  # the other two are summarised again
    manager.close()
    assert files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode()) == []
