"""What tests share besides fixtures: a small persona folder, the record the suite runs against,
a settable clock, filling a manager and reading its record as a person checking the disk would."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory import MemoryConfig, MemoryManager

STATIC_MD = """# 背景

我叫karin，是一名十九岁的音乐学院学生，来自杭州。

我最喜欢的音乐是民谣，每天都会弹吉他。

我养了一只叫团子的猫。
"""
STATIC_JSON = [
    "我最喜欢的食物是草莓蛋糕。",
    {"content": "我的吉他老师是陈老师，他很严格。", "tags": ["relationship"]},
]


def write_persona(root: Path, name: str = "karin") -> Path:
    """A small persona folder with .md and .json static memories."""
    folder = root / name / "static_memories"
    folder.mkdir(parents=True, exist_ok=True)
    (root / name / "persona.toml").write_text(
        'name = "karin"\ndescription = "测试用角色"\nlocale = "zh"\n', encoding="utf-8"
    )
    (folder / "background.md").write_text(STATIC_MD, encoding="utf-8")
    (folder / "more.json").write_text(json.dumps(STATIC_JSON, ensure_ascii=False), encoding="utf-8")
    return root


RECORD = os.environ.get("PERSONA_MEMORY_TEST_RECORD", "sqlite")
"""The system of record the suite runs against (``make test`` runs it with each)."""


def config_env(config: MemoryConfig) -> dict[str, str]:
    """The environment that gives a child process (``python -m memory ...``) this test's folders
    and record."""
    env = {
        **os.environ,
        "PERSONA_MEMORY__PERSONAS_DIR": config.personas_dir,
        "PERSONA_MEMORY__DATA_DIR": config.data_dir,
        "PERSONA_MEMORY__ARCHIVE_DIR": config.archive_dir,
    }
    if config.store.record == "postgres":
        env["PERSONA_MEMORY__STORE__RECORD"] = "postgres"
        env["PERSONA_MEMORY__STORE__POSTGRES_DSN"] = config.store.postgres_dsn.get_secret_value()
    return env


class Clock:
    """A settable clock for replays: starts at a fixed moment, advanced by tests."""

    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **kwargs: float) -> datetime:
        self.moment += timedelta(**kwargs)
        return self.moment


def fill(manager: MemoryManager, texts: list[str], *, user_id: str | None = None) -> list[str]:
    """Record one interaction per text; returns their ids."""
    return [
        manager.record_interaction_sync(user_input=t, response="嗯嗯，记住啦～", user_id=user_id)
        for t in texts
    ]


def wait_for_backlog(manager: MemoryManager, *, timeout: float = 30.0) -> None:
    """Wait until the worker has indexed the backlog (after an outage a retrieval may find a
    memory first: it embeds keyword hits still waiting for the index itself)."""
    deadline = time.monotonic() + timeout
    while manager.debug_state()["store"]["pending_index"] and time.monotonic() < deadline:
        time.sleep(0.1)


def files_holding(folders: list[Path], needle: bytes) -> list[Path]:
    """The files under ``folders`` whose bytes hold ``needle`` (what an erase must leave none of)."""
    return [
        path
        for folder in folders
        for path in folder.rglob("*")
        if path.is_file() and needle in path.read_bytes()
    ]


def sql(manager: MemoryManager, query: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Read the manager's SQLite file directly (read-only), as a person checking the disk would;
    a Postgres record through a connection of its own."""
    if manager.config.store.record == "postgres":
        import psycopg

        from memory.record.postgres import to_postgres

        with psycopg.connect(manager.config.store.postgres_dsn.get_secret_value()) as conn:
            conn.execute(f'SET search_path TO "persona_{manager.persona.id}"'.encode())
            return [tuple(r) for r in conn.execute(to_postgres(query), params).fetchall()]
    path = manager.debug_state()["store"]["database"]
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return list(conn.execute(query, params).fetchall())


def sql_count(manager: MemoryManager, query: str, params: tuple[object, ...] = ()) -> int:
    """The single number a ``SELECT COUNT(*)`` query on the manager's file returns."""
    return int(sql(manager, query, params)[0][0])  # type: ignore[call-overload]


def check_user_isolation(manager: MemoryManager) -> None:
    """One user's memories never reach another user or the shared scope (used per store mode)."""
    fill(manager, ["我的银行卡密码提示是小狗的名字", "第二句"], user_id="alice")
    fill(manager, ["我喜欢踢足球", "第二句"], user_id="bob")
    active_b, rag_b = manager.retrieve("银行卡密码", user_id="bob")
    assert "银行卡" not in active_b + rag_b
    _, rag_a = manager.retrieve("银行卡密码", user_id="alice")
    assert "银行卡" in rag_a
    shared_active, shared_rag = manager.retrieve("银行卡密码")
    assert "银行卡" not in shared_active + shared_rag


def budget(config: MemoryConfig, temporary: int, summary: int, static: int) -> None:
    """Memory slots per layer: quota mode's reservations, hybrid mode's caps and slot count alike."""
    layers = {"temporary": temporary, "summary": summary, "static": static}
    config.retrieval.quotas = dict(layers)
    config.retrieval.caps = dict(layers)
    config.retrieval.top_k = max(1, temporary + summary + static)
