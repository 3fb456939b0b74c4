"""The keyword index's table: SQLite FTS5 beside ``entries``, kept in step by triggers.

Text is segmented before FTS5 sees it (:mod:`memory.domain.tokens`): with ``jieba`` (default) into
words joined by spaces for FTS5's ``unicode61`` tokenizer, or with FTS5's own ``trigram``
tokenizer on the raw text. Triggers keep the index in step with the ``entries`` table inside the
same transactions, so the keyword index is never behind. Searching it is :mod:`memory.record.keyword`.
This module owns the ``entries_fts`` table.
"""

from __future__ import annotations

from memory.domain.tokens import JIEBA, TRIGRAM, index_tokens, load_jieba
from memory.domain.types import index_text
from memory.errors import ReadOnlyStoreError
from memory.record.db import Connection, write_meta
from memory.record.sqlite import SqliteConnection

FTS_TABLE = "entries_fts"
VOCAB_TABLE = "entries_fts_vocab"
INDEX_VERSION = 3
"""Version 2 kept forgotten (cold) memories in the keyword index; version 3 tags words by scope."""
_TOKEN_FUNCTION = "persona_memory_tokens"
_TEXT_FUNCTION = "persona_memory_text"


def install(conn: Connection, tokenizer: str) -> bool:
    """Create the FTS5 table and its triggers; returns True when the index must be (re)built.

    Args:
        conn: the entries database connection (the token function is registered on it).
        tokenizer: ``"jieba"`` or ``"trigram"``.
    """
    if not isinstance(conn, SqliteConnection):
        raise TypeError("the FTS5 keyword index needs a SQLite database")
    _register_functions(conn)
    if tokenizer == JIEBA:
        load_jieba()
    row = conn.execute("SELECT value FROM meta WHERE key = 'keyword_tokenizer'").fetchone()
    version = f"{tokenizer}/{INDEX_VERSION}"
    rebuild = row is None or row[0] != version
    if conn.read_only:
        if rebuild:
            raise ReadOnlyStoreError(
                f"the keyword index needs rebuilding for {version} and the record is read-only: "
                "open it once where it can be written"
            )
        return False
    if rebuild:
        conn.execute(f"DROP TABLE IF EXISTS {VOCAB_TABLE}")
        conn.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    conn.script(_schema(tokenizer))
    if rebuild:
        column = _indexed(tokenizer, "")
        conn.execute(f"INSERT INTO {FTS_TABLE}(rowid, tokens) SELECT seq, {column} FROM entries")
        write_meta(conn, "keyword_tokenizer", version)
    return rebuild


def _register_functions(conn: SqliteConnection) -> None:
    """The SQL functions the triggers call: an entry's index text, and its tagged jieba words."""
    conn.raw.create_function(
        _TOKEN_FUNCTION,
        3,
        lambda scope, note, content: index_tokens(scope or "", index_text(note, content or "")),
        deterministic=True,
    )
    conn.raw.create_function(
        _TEXT_FUNCTION, 2, lambda note, content: index_text(note, content or ""), deterministic=True
    )


def _schema(tokenizer: str) -> str:
    """The FTS5 table, its vocabulary view and the triggers that keep it in step with ``entries``."""
    fts_tokenizer = "trigram" if tokenizer == TRIGRAM else "unicode61"
    indexed = _indexed(tokenizer, "new.")
    return f"""
        CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(tokens, tokenize='{fts_tokenizer}');
        CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} USING fts5vocab({FTS_TABLE}, 'row');
        DROP TRIGGER IF EXISTS entries_fts_insert;
        DROP TRIGGER IF EXISTS entries_fts_update;
        DROP TRIGGER IF EXISTS entries_fts_delete;
        DROP TRIGGER IF EXISTS entries_fts_archive;
        CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
            INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (new.seq, {indexed});
        END;
        CREATE TRIGGER entries_fts_update AFTER UPDATE OF note, content, scope ON entries BEGIN
            DELETE FROM {FTS_TABLE} WHERE rowid = old.seq;
            INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (new.seq, {indexed});
        END;
        CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
            DELETE FROM {FTS_TABLE} WHERE rowid = old.seq;
        END;
        """


def _indexed(tokenizer: str, row: str) -> str:
    """The SQL of a row's FTS5 column (``row``: ``"new."`` in a trigger): the entry's index text
    (:func:`memory.domain.types.index_text`), as jieba's tagged words or, for the trigram
    tokenizer, as it is."""
    if tokenizer == TRIGRAM:
        return f"{_TEXT_FUNCTION}({row}note, {row}content)"
    return f"{_TOKEN_FUNCTION}({row}scope, {row}note, {row}content)"


def purge(conn: Connection) -> None:
    """Merge the FTS5 index into one segment, so the words of deleted rows are no longer in it
    (a delete only marks them until segments merge)."""
    conn.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('optimize')")
