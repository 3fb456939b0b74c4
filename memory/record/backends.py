"""How each system of record keeps its keyword index, chosen once with the database.

SQLite indexes with FTS5: its triggers write the keyword rows, and FTS5's ``bm25()`` ranks.
PostgreSQL has no FTS5: the entry table writes the keyword rows itself and a ``tsvector`` query
ranks with the same bm25. Everything else asks the chosen :class:`KeywordBackend` and never which
database it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from memory.config import MemoryConfig
from memory.config_sections import RecordKind
from memory.domain.tokens import JIEBA
from memory.errors import ConfigError, needs_extra
from memory.record import entries, fts, journal, keyword, pg_keyword, profile, tombstones
from memory.record.db import Connection, Database
from memory.record.sqlite import SqliteDatabase

KeywordRows = Callable[[Connection, Iterable[tuple[str, str, str | None, str]]], None]


@dataclass(frozen=True)
class KeywordBackend:
    """The keyword index of one kind of record."""

    install: Callable[[Connection, str], bool]
    """Creates or migrates the index (``(conn, tokenizer)``); True when it was rebuilt."""
    search: keyword.Ranker
    """Ranks one scope's entries of a layer matching any of the query's terms."""
    purge: Callable[[Connection], None]
    """Merges the index after deletions, so no deleted row's words remain in it."""
    index_rows: KeywordRows | None = None
    """Writes the keyword rows of written entries (``None``: the database's triggers do)."""

    def installer(self, tokenizer: str) -> Callable[[Connection], bool]:
        """:attr:`install` as one step of the record's installers."""
        return lambda conn: self.install(conn, tokenizer)


SQLITE = KeywordBackend(install=fts.install, search=keyword.search, purge=fts.purge)
POSTGRES = KeywordBackend(
    install=pg_keyword.install,
    search=pg_keyword.search,
    purge=pg_keyword.purge,
    index_rows=pg_keyword.index_rows,
)


def open_record(
    config: MemoryConfig, persona_id: str, data_dir: Path, read_only: bool
) -> tuple[Database, KeywordBackend]:
    """The system of record of a persona (a SQLite file in ``data_dir``, or a PostgreSQL schema)
    and its keyword index, every table installed.

    Raises:
        ConfigError: PostgreSQL without a DSN, or with the trigram tokenizer.
    """
    installers = (journal.install, entries.install, profile.install, tombstones.install)
    tokenizer = config.retrieval.keyword_tokenizer
    if config.store.record == RecordKind.POSTGRES:
        dsn = config.store.postgres_dsn.get_secret_value()
        if not dsn:
            raise ConfigError("store.postgres_dsn", "is required when store.record = 'postgres'")
        if tokenizer != JIEBA:
            raise ConfigError("retrieval.keyword_tokenizer", "the Postgres record indexes with jieba only")
        with needs_extra("postgres", "store.record = 'postgres'"):
            from memory.record.postgres import PostgresDatabase

        record = PostgresDatabase(
            dsn,
            f"persona_{persona_id}",
            installers=(*installers, POSTGRES.installer(tokenizer)),
            vacuum_on_erase=config.store.postgres_vacuum_on_erase,
        )
        record.folder, record.read_only = data_dir, read_only  # the index and archive live there
        return record, POSTGRES
    database = SqliteDatabase(
        data_dir / f"{persona_id}.sqlite3",
        synchronous=config.store.sqlite_synchronous,
        installers=(*installers, SQLITE.installer(tokenizer)),
        read_only=read_only,
    )
    return database, SQLITE
