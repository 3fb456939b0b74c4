"""A record made by an older persona-memory opens and is migrated step by step, keeping every row;
one made by a newer persona-memory is refused and left as it is."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.store import RECORD
from memory import MemoryConfig, MemoryManager
from memory.domain.types import Layer
from memory.errors import StoreError

pytestmark = pytest.mark.skipif(RECORD != "sqlite", reason="a hand-made SQLite file of an older version")

VERSION_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, layer TEXT NOT NULL,
    scope TEXT NOT NULL, content TEXT NOT NULL, note TEXT, created_at REAL NOT NULL,
    significance REAL NOT NULL, changed_at INTEGER NOT NULL DEFAULT 0, forget_at INTEGER,
    indexed INTEGER NOT NULL DEFAULT 0, tags TEXT NOT NULL DEFAULT '[]', source TEXT,
    archived_layer TEXT, archived_reason TEXT, archived_at REAL, exported INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE profile (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, scope TEXT NOT NULL,
    key TEXT NOT NULL, value TEXT NOT NULL, since REAL NOT NULL, source TEXT NOT NULL, valid_until REAL
);
"""
"""The tables as the first version wrote them (no version rows, no pinned, importance, store
keys or fact vectors; an active row marked ``indexed = 1``, which then meant "never")."""


def _old_record(config: MemoryConfig) -> Path:
    folder = Path(config.data_dir)
    folder.mkdir(parents=True)
    path = folder / "karin.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(VERSION_1)
        conn.executemany(
            "INSERT INTO entries(id, layer, scope, content, created_at, significance, indexed) "
            "VALUES (?, ?, 'alice', ?, 1780000000, 1.0, ?)",
            [
                ("t1", "temporary", "用户：我养了一只猫，叫豆豆\n花音：好可爱！", 0),
                ("a1", "active", "用户：I started learning the cello\n花音：Cool!", 1),
            ],
        )
        conn.execute(
            "INSERT INTO profile(id, scope, key, value, since, source) "
            "VALUES ('p1', 'alice', 'home', '杭州', 1780000000, 'said')"
        )
    conn.close()
    return path


def _versions(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT key, value FROM meta WHERE key LIKE 'schema:%'").fetchall()
    conn.close()
    return dict(rows)


def test_an_older_record_is_migrated_and_keeps_every_row(
    config: MemoryConfig, make_manager: Callable[..., MemoryManager]
) -> None:
    path = _old_record(config)
    with make_manager(background=False) as manager:
        kept = manager.inspector.entries(Layer.TEMPORARY, "alice")
        assert [(e.id, e.pinned, e.key) for e in kept] == [("t1", False, None)]
        assert [e.content for e in manager.inspector.entries(Layer.ACTIVE, "alice")] == [
            "用户：I started learning the cello\n花音：Cool!"
        ]
        assert manager.profile("alice")["home"].value == "杭州"
    assert _versions(path) == {
        "schema:entries": "9",
        "schema:journal": "2",
        "schema:profile": "4",
        "schema:tombstones": "1",
    }
    with sqlite3.connect(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
        active = conn.execute("SELECT indexed FROM entries WHERE id = 'a1'").fetchone()[0]
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(entries)")}
        profile_indexes = {row[1] for row in conn.execute("PRAGMA index_list(profile)")}
    conn.close()
    assert {"profile_value", "profile_now"} <= profile_indexes
    assert "entries_unindexed_scope" in indexes and "entries_unindexed" not in indexes
    assert {"entries_scope_time", "entries_leaning"} <= indexes
    assert {"pinned", "importance", "key", "item", "line_vectors", "leans"} <= columns
    assert active != 1  # no longer read as "waiting to be indexed"


def test_a_record_of_a_newer_version_is_refused_and_left_as_it_is(
    config: MemoryConfig, make_manager: Callable[..., MemoryManager]
) -> None:
    path = _old_record(config)
    make_manager(background=False).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '10' WHERE key = 'schema:entries'")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"entries tables are at version 10.*newer"):
        MemoryManager("karin", config, background=False)
    assert path.read_bytes() == before
