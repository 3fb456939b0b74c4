"""Shared fixtures: temporary folders, a small persona, the real packaged embedder, fake chat
models (the helpers they use are in :mod:`helpers`)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models.fake_chat_models import FakeListChatModel

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from bench.pg_server import postgres_server
from helpers.store import RECORD, Clock, write_persona
from memory import MemoryConfig, MemoryManager
from memory.index.embeddings import get_embeddings


@pytest.fixture(scope="session")
def embeddings() -> Embeddings:
    """The real default embedder (USE multilingual), loaded once per session."""
    return get_embeddings(MemoryConfig().embedding)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Against Postgres, skip (visibly) what is about the SQLite file or FTS5 or touches no record."""
    if RECORD != "postgres":
        return
    skip = pytest.mark.skip(reason="about the SQLite file or FTS5: covered by the suite's SQLite run")
    again = pytest.mark.skip(reason="opens its own Postgres record: already run by the suite's first run")
    free = pytest.mark.skip(reason="touches no record: already run by the suite's SQLite run")
    for item in items:
        if "sqlite_only" in item.keywords:
            item.add_marker(skip)
        elif "record_free" in item.keywords:
            item.add_marker(free)
        elif "postgres" in item.keywords:
            item.add_marker(again)


@pytest.fixture(scope="session")
def postgres_server_dsn() -> Iterator[str]:
    """One real PostgreSQL server for the session (Debian's binaries, a temp folder, a free
    loopback port), stopped by pid at the end."""
    with postgres_server() as dsn:
        yield dsn


@pytest.fixture
def postgres_dsn(postgres_server_dsn: str) -> str:
    """A new, empty database on the session's server, for one test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"'.encode())
    return postgres_server_dsn.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def config(request: pytest.FixtureRequest, tmp_path: Path, embeddings: Embeddings) -> MemoryConfig:
    """Defaults, with every folder inside the test's temporary directory (and, when the suite
    runs against Postgres, a new database of the session's server)."""
    cfg = MemoryConfig()
    cfg.personas_dir = str(write_persona(tmp_path / "personas"))
    cfg.data_dir = str(tmp_path / "data" / "memory_store")
    cfg.archive_dir = str(tmp_path / "data" / "archive")
    if RECORD == "postgres":
        cfg.store.record = "postgres"  # type: ignore[assignment]
        cfg.store.postgres_dsn = request.getfixturevalue("postgres_dsn")  # type: ignore[assignment]
    return cfg


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_manager(config: MemoryConfig) -> Iterator[Callable[..., MemoryManager]]:
    """Build managers on the test's folders; every one is closed at teardown."""
    made: list[MemoryManager] = []

    def build(cfg: MemoryConfig | None = None, **kwargs: object) -> MemoryManager:
        manager = MemoryManager("karin", cfg or config, **kwargs)  # type: ignore[arg-type]
        made.append(manager)
        return manager

    yield build
    for manager in made:
        manager.close()


@pytest.fixture
def fake_model() -> FakeListChatModel:
    """A fake chat model (the only fake allowed: no LLM is reachable here)."""
    return FakeListChatModel(responses=["用户喜欢民谣，karin答应下次唱给他听。"])
