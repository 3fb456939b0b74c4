"""Keyword index beside the vectors: SQLite FTS5 with ``bm25()`` ranking, in the entries database.

Chinese has no spaces, so text is segmented before FTS5 sees it: with ``jieba`` (default; its
dictionary ships in the package) into words joined by spaces for FTS5's ``unicode61`` tokenizer,
or with FTS5's own ``trigram`` tokenizer on the raw text. Triggers keep the index in step with the
``entries`` table inside the same transactions, so the keyword index is never behind.
"""

from __future__ import annotations

import logging
import math
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from memory.model import Layer

JIEBA = "jieba"
TRIGRAM = "trigram"
FTS_TABLE = "entries_fts"
VOCAB_TABLE = "entries_fts_vocab"
INDEX_VERSION = 2
"""Version 2 keeps forgotten (cold) memories in the keyword index: deep recall searches them."""
MIN_DOCS_FOR_DF = 20
"""Below this many memories every term is kept: frequencies mean little."""
_TOKEN_FUNCTION = "persona_memory_tokens"

_WORD = re.compile(r"\w", re.UNICODE)
STOPWORDS = frozenset(
    "的 了 是 我 你 他 她 它 们 在 有 和 就 不 也 都 这 那 吗 呢 吧 啊 呀 哦 嗯 么 什么 怎么 哪里 哪 "
    "一个 一下 没有 还 又 很 对 把 被 给 让 跟 要 会 能 说 想 去 过 着 到 从 用 为 与 及 而 之 其 "
    "a an the is are was were be been am do does did to of in on at for and or but with by from "
    "what which who whom where when how why that this these those it its i you he she we they me "
    "my your his her our their user karin 用户".split()
)

QueryFn = Callable[[str, tuple[object, ...]], list[tuple[object, ...]]]

_jieba_lock = threading.Lock()
_jieba_ready = False


def _jieba_cut(text: str, cache_dir: Path | None = None) -> list[str]:
    global _jieba_ready
    import jieba

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                if cache_dir is not None:
                    jieba.dt.tmp_dir = str(cache_dir)
                jieba.initialize()
                _jieba_ready = True
    return list(jieba.cut_for_search(text))


def words(text: str, cache_dir: Path | None = None) -> list[str]:
    """Lower-cased word tokens of ``text`` (jieba segmentation; punctuation dropped)."""
    return [w.lower() for w in (t.strip() for t in _jieba_cut(text, cache_dir)) if w and _WORD.search(w)]


def index_tokens(text: str) -> str:
    """The space-joined tokens stored in the jieba-mode FTS5 column (prepared ones first)."""
    with _prepared_lock:
        ready = _prepared.pop(text, None)
    return ready if ready is not None else " ".join(words(text))


_prepared: dict[str, str] = {}
_prepared_lock = threading.Lock()
PREPARED_LIMIT = 10_000
"""Prepared token strings kept at most (an unused one is dropped once there are more)."""


def indexed_value(note: str | None, content: str) -> str:
    """The text the FTS triggers index for a row: ``coalesce(note, '') || ' ' || content``."""
    return f"{note or ''} {content}"


def prepare(texts: Iterable[str]) -> None:
    """Segment texts now, before a write transaction, so the triggers inside it only look the
    tokens up: one large message then never holds the database lock while jieba reads it."""
    ready = {text: " ".join(words(text)) for text in texts}
    with _prepared_lock:
        if len(_prepared) + len(ready) > PREPARED_LIMIT:
            _prepared.clear()
        _prepared.update(ready)


def query_terms(query: str, tokenizer: str) -> set[str]:
    """The terms a query is matched on: trigrams, or jieba words minus stop words."""
    if tokenizer == TRIGRAM:
        runs = [w for w in re.findall(r"\w+", query.lower()) if len(w) >= 3]
        return {run[i : i + 3] for run in runs for i in range(len(run) - 2)}
    return {w for w in words(query) if w not in STOPWORDS}


def _match_expression(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression matching any of ``terms`` (each quoted: no FTS5 syntax gets through)."""
    return " OR ".join(sorted('"' + t.replace('"', '""') + '"' for t in terms))


class CommonTerms:
    """Drops query terms found in more than ``max_ratio`` of the indexed memories.

    A word every memory shares (the persona's name for the user, say) ranks noise; without it
    the keyword ranking is left to the words that discriminate. The corpus size is refreshed at
    most every ``refresh_seconds``.
    """

    def __init__(self, query: QueryFn, max_ratio: float, refresh_seconds: float = 30.0) -> None:
        self.query = query
        self.max_ratio = max_ratio
        self.refresh_seconds = refresh_seconds
        self._total = 0
        self._checked = -math.inf

    def filter(self, terms: set[str]) -> set[str]:
        """The terms that are not too common."""
        if not terms or self.max_ratio >= 1.0:
            return terms
        now = time.monotonic()
        if now - self._checked > self.refresh_seconds:
            self._total = int(self.query(f"SELECT COUNT(*) FROM {FTS_TABLE}", ())[0][0])  # type: ignore[call-overload]
            self._checked = now
        if self._total < MIN_DOCS_FOR_DF:
            return terms
        ordered = sorted(terms)
        marks = ",".join("?" * len(ordered))
        rows = self.query(f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term IN ({marks})", tuple(ordered))
        limit = self.max_ratio * self._total
        common = {str(term) for term, doc in rows if int(doc) > limit}  # type: ignore[call-overload]
        return terms - common


def install(conn: sqlite3.Connection, tokenizer: str, cache_dir: Path | None = None) -> bool:
    """Create the FTS5 table and its triggers; returns True when the index must be (re)built.

    Args:
        conn: the entries database connection (the token function is registered on it).
        tokenizer: ``"jieba"`` or ``"trigram"``.
        cache_dir: where jieba may write its dictionary cache (the data folder).
    """
    conn.create_function(_TOKEN_FUNCTION, 1, lambda text: index_tokens(text or ""), deterministic=True)
    if cache_dir is not None and tokenizer == JIEBA:
        _jieba_cut("", cache_dir)
    row = conn.execute("SELECT value FROM meta WHERE key = 'keyword_tokenizer'").fetchone()
    version = f"{tokenizer}/{INDEX_VERSION}"
    rebuild = row is None or row[0] != version
    if rebuild:
        conn.execute(f"DROP TABLE IF EXISTS {VOCAB_TABLE}")
        conn.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    fts_tokenizer = "trigram" if tokenizer == TRIGRAM else "unicode61"
    value = "coalesce(new.note, '') || ' ' || new.content"
    indexed = value if tokenizer == TRIGRAM else f"{_TOKEN_FUNCTION}({value})"
    conn.executescript(
        f"""
        CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(tokens, tokenize='{fts_tokenizer}');
        CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} USING fts5vocab({FTS_TABLE}, 'row');
        DROP TRIGGER IF EXISTS entries_fts_insert;
        DROP TRIGGER IF EXISTS entries_fts_update;
        DROP TRIGGER IF EXISTS entries_fts_delete;
        DROP TRIGGER IF EXISTS entries_fts_archive;
        CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
            INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (new.seq, {indexed});
        END;
        CREATE TRIGGER entries_fts_update AFTER UPDATE OF note, content ON entries BEGIN
            DELETE FROM {FTS_TABLE} WHERE rowid = old.seq;
            INSERT INTO {FTS_TABLE}(rowid, tokens) VALUES (new.seq, {indexed});
        END;
        CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
            DELETE FROM {FTS_TABLE} WHERE rowid = old.seq;
        END;
        """
    )
    if rebuild:
        content = "coalesce(note, '') || ' ' || content"
        column = content if tokenizer == TRIGRAM else f"{_TOKEN_FUNCTION}({content})"
        conn.execute(f"INSERT INTO {FTS_TABLE}(rowid, tokens) SELECT seq, {column} FROM entries")
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('keyword_tokenizer', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (version,),
        )
    return rebuild


def search(
    query: QueryFn,
    *,
    terms: Iterable[str],
    layer: str,
    scope: str | None,
    limit: int,
    with_cold: bool = False,
) -> list[tuple[str, float]]:
    """``(entry id, bm25 score)`` of entries matching any term, best first.

    FTS5's bm25 is lower-is-better; it is negated here. No terms: no match.

    Args:
        with_cold: also rank the layer's forgotten (archived) entries, in the same ranking.
    """
    expression = _match_expression(terms)
    if not expression:
        return []
    layer_clause = "+e.layer = ?"
    params: list[object] = [expression, layer]
    if with_cold:
        layer_clause = "(+e.layer = ? OR (+e.layer = ? AND e.archived_layer = ?))"
        params += [Layer.ARCHIVED.value, layer]
    scope_clause = ""
    if scope is not None:
        scope_clause = "AND +e.scope = ?"
        params.append(scope)
    rows = query(
        f"SELECT e.id, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
        f"CROSS JOIN entries e ON e.seq = {FTS_TABLE}.rowid "  # matches first, then their rows
        f"WHERE {FTS_TABLE} MATCH ? AND {layer_clause} {scope_clause} ORDER BY rank LIMIT ?",
        (*params, limit),
    )
    return [(str(entry_id), -float(rank)) for entry_id, rank in rows]  # type: ignore[arg-type]
