"""The PostgreSQL record (``store.record = "postgres"``) against a real server started by the
fixture: the same memory, kept the same way, as with the embedded SQLite file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from helpers.store import check_user_isolation, fill, sql, sql_count
from memory import MemoryConfig, MemoryManager
from memory.errors import ConfigError, StoreError

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_config(config: MemoryConfig, postgres_dsn: str) -> MemoryConfig:
    config.store.record = "postgres"  # type: ignore[assignment]
    config.store.postgres_dsn = postgres_dsn  # type: ignore[assignment]
    return config


def test_what_a_user_told_is_recalled_and_survives_a_restart(make_manager, pg_config) -> None:
    pg_config.active.capacity = 3
    manager = make_manager(pg_config)
    told = ["我对花生过敏，吃了会起疹子", "我养了一只橘猫叫阿黄", "周末去西湖边跑步", "最近在学日语"]
    fill(manager, told, user_id="u1")
    active, rag = manager.retrieve("我对什么过敏？", user_id="u1")
    assert "花生" in rag and "日语" in active
    manager.close()

    reopened = make_manager(pg_config)
    active, rag = reopened.retrieve("我对什么过敏？", user_id="u1")
    assert "花生" in rag and "日语" in active
    assert sql_count(reopened, "SELECT COUNT(*) FROM interactions WHERE scope = ?", ("u1",)) == 4


def test_one_user_never_sees_another_users_memories(make_manager, pg_config) -> None:
    pg_config.active.capacity = 1
    check_user_isolation(make_manager(pg_config))


def test_keywords_rank_a_users_rare_word_first(make_manager, pg_config) -> None:
    """jieba words, scope-tagged, bm25 in SQL: the one memory with the query's rare word wins
    its keyword ranking, and another user's words change nothing."""
    pg_config.active.capacity = 1
    manager = make_manager(pg_config)
    texts = [f"今天和同事聊了第{i}个项目的进度" for i in range(30)]
    texts[7] = "我的吉他老师叫王老师"
    manager.import_interactions({"user_input": t, "response": "好的", "user_id": "alice"} for t in texts)

    def ranks() -> dict[str, int]:
        found = manager.retrieve_memories("我的吉他老师是谁", user_id="alice", top_k=10).memories
        return {m.entry.content: m.keyword_rank for m in found if m.keyword_rank is not None}

    before = ranks()
    assert min(before, key=before.__getitem__).startswith("用户：我的吉他老师叫王老师")
    manager.import_interactions(
        {"user_input": f"Bob 的吉他第{i}课", "response": "ok", "user_id": "bob"} for i in range(50)
    )
    assert ranks() == before


def test_a_note_and_a_forgotten_memory_keep_the_keyword_index_in_step(make_manager, pg_config) -> None:
    pg_config.active.capacity = 1
    manager = make_manager(pg_config)
    fill(manager, ["我在准备钢琴考级", "随便聊聊天气"], user_id="u1")
    rows = sql(manager, "SELECT COUNT(*) FROM entries_kw")
    assert rows[0][0] == sql_count(manager, "SELECT COUNT(*) FROM entries")
    manager.close()
    assert sql_count(manager, "SELECT COUNT(*) FROM entries_fts_vocab WHERE doc < 0") == 0


def test_postgres_without_a_server_is_a_clear_error(config) -> None:
    config.store.record = "postgres"  # type: ignore[assignment]
    config.store.postgres_dsn = ""  # type: ignore[assignment]
    with pytest.raises(ConfigError, match="store.postgres_dsn"):
        MemoryManager("karin", config)
    config.store.postgres_dsn = "postgresql://nobody@127.0.0.1:1/none"  # type: ignore[assignment]
    with pytest.raises(StoreError, match="127.0.0.1:1"):
        MemoryManager("karin", config)


async def test_two_workers_never_run_the_summary_job_at_once(make_manager, pg_config, tmp_path) -> None:
    """Workers sharing a record claim the job with an advisory lock: while one summarises (its
    model is slow), the other's run does nothing, so no interaction is summarised twice."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    pg_config.active.capacity = 2
    slow = FakeListChatModel(responses=["用户在准备钢琴考级，很紧张。"], sleep=1.5)
    first = make_manager(pg_config, summary_model=slow)
    second_config = pg_config.model_copy(deep=True)
    second_config.data_dir = str(tmp_path / "worker2")
    second = make_manager(second_config, summary_model=FakeListChatModel(responses=["另一份总结"]))
    fill(first, ["我在准备钢琴考级", "考级曲目是肖邦", "下周六考试", "有点紧张"], user_id="u1")

    running = asyncio.create_task(first.run_summary_now())
    await asyncio.sleep(0.5)  # the first worker holds the job, waiting for its model
    assert await second.run_summary_now() == 0
    assert await running == 1
    assert await second.run_summary_now() == 0  # nothing left in the buffer
    rows = sql(first, "SELECT content FROM entries WHERE layer = 'summary'")
    assert [r[0] for r in rows] == ["用户在准备钢琴考级，很紧张。"]


def test_workers_opening_a_new_database_at_once_all_start(postgres_dsn) -> None:
    """Workers of a fresh deployment start together: none fails on creating its persona's schema."""
    import threading

    from memory.record.postgres import PostgresDatabase

    failures: list[Exception] = []

    def open_one(schema: str, barrier: threading.Barrier) -> None:
        barrier.wait()
        try:
            PostgresDatabase(postgres_dsn, schema).close()
        except Exception as exc:  # any failure at all is the test's finding
            failures.append(exc)

    for round_ in range(8):  # the race is narrow: one round alone rarely shows it
        barrier = threading.Barrier(4)
        threads = [threading.Thread(target=open_one, args=(f"persona_p{round_}", barrier)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


@pytest.mark.parametrize("vacuum", [False, True])
def test_an_erase_with_vacuum_leaves_the_rows_in_no_table_file(make_manager, pg_config, vacuum: bool) -> None:
    """What the README states: without ``store.postgres_vacuum_on_erase`` the deleted rows may
    stay in the database's files until the server's vacuum; with it, no table or index file of
    the database holds them after the erase (the WAL is the server's, outside this guarantee)."""
    import psycopg

    pg_config.store.postgres_vacuum_on_erase = vacuum
    pg_config.active.capacity = 2
    manager = make_manager(pg_config)
    fill(manager, [f"qxjvmarker{i}号秘密：我的护照号码是{i}{i}{i}{i}" for i in range(8)], user_id="alice")
    fill(manager, ["我家的柯基叫可乐", "今天吃了火锅"], user_id="bob")
    manager.flush()
    manager.forget_user("alice")
    with psycopg.connect(pg_config.store.postgres_dsn.get_secret_value(), autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # what the server holds in memory, on disk
        data = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]  # type: ignore[index]
    holding = [
        p.name
        for p in (data / "base" / str(oid)).iterdir()
        if p.is_file() and b"qxjvmarker" in p.read_bytes()
    ]
    if vacuum:
        assert holding == []
    else:
        print(f"without vacuum, {len(holding)} table file(s) still hold the erased words")
    assert "可乐" in "".join(manager.retrieve("我家的狗叫什么", user_id="bob"))
    assert "qxjvmarker" not in "".join(manager.retrieve("护照号码", user_id="alice"))
