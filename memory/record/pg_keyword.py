"""Keyword index on PostgreSQL: the words of the SQLite FTS5 index, ranked by the same bm25.

Each row's scope-tagged jieba words (:mod:`memory.domain.tokens`) are stored as a ``tsvector`` with their
positions (``entries_kw``, GIN-indexed). Postgres cannot run jieba in a trigger, so the entries
table's writes index their rows (:func:`index_rows`); a trigger keeps per-word document counts in
``entries_fts_vocab (term, doc)``, the shape of FTS5's vocabulary table, so choosing a query's
words (:class:`memory.record.keyword.CommonTerms`) is shared code. The ranking is FTS5's bm25 (k1 1.2,
b 0.75) computed in SQL over the matches, with the corpus size and average length of the
user's own scope (FTS5 can only use the table's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from memory.domain.tokens import JIEBA, index_tokens, load_jieba, scope_tag
from memory.domain.types import index_text
from memory.record.db import Connection
from memory.record.fts import VOCAB_TABLE
from memory.record.keyword import QueryFn, layer_clause

K1, B = 1.2, 0.75
MAX_POSITION = 16383
"""Postgres keeps word positions up to this (and 256 per word): term counts are capped there."""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS entries_kw (
    seq BIGINT PRIMARY KEY REFERENCES entries(seq) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    size INTEGER NOT NULL,
    tokens TSVECTOR NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_kw_tokens ON entries_kw USING GIN (tokens);
CREATE TABLE IF NOT EXISTS {VOCAB_TABLE} (
    term TEXT PRIMARY KEY, doc BIGINT NOT NULL DEFAULT 0, length BIGINT NOT NULL DEFAULT 0
);
CREATE OR REPLACE FUNCTION entries_kw_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE {VOCAB_TABLE} v SET doc = v.doc - 1
            FROM unnest(tsvector_to_array(OLD.tokens)) AS t(term) WHERE v.term = t.term;
        UPDATE {VOCAB_TABLE} SET length = length - OLD.size WHERE term = OLD.tag;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO {VOCAB_TABLE}(term, doc) SELECT t, 1 FROM unnest(tsvector_to_array(NEW.tokens)) AS t
            ON CONFLICT (term) DO UPDATE SET doc = {VOCAB_TABLE}.doc + 1;
        UPDATE {VOCAB_TABLE} SET length = length + NEW.size WHERE term = NEW.tag;
    END IF;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER entries_kw_count AFTER INSERT OR UPDATE OR DELETE ON entries_kw
    FOR EACH ROW EXECUTE FUNCTION entries_kw_count();
"""


def install(conn: Connection, tokenizer: str) -> bool:
    """Create the keyword tables; returns False (nothing to rebuild: rows are indexed on write).

    Raises:
        ValueError: a tokenizer other than jieba (trigram is FTS5's own tokenizer).
    """
    if tokenizer != JIEBA:
        raise ValueError(f"the Postgres record indexes keywords with jieba only, not {tokenizer!r}")
    load_jieba()
    conn.script(SCHEMA)
    return False


def purge(conn: Connection) -> None:
    """After deletions: drop the vocabulary rows no memory uses any more (an erased user's own
    words would otherwise stay as terms with a zero count). The server reclaims the space at its
    next vacuum (``store.postgres_vacuum_on_erase``: at once)."""
    conn.execute(f"DELETE FROM {VOCAB_TABLE} WHERE doc <= 0")


def _quoted(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector(tokens: Sequence[str]) -> str:
    """A ``tsvector`` literal of tokens with their positions (no parsing or stemming)."""
    positions: dict[str, list[int]] = {}
    for position, token in enumerate(tokens, start=1):
        positions.setdefault(token, []).append(min(position, MAX_POSITION))
    return " ".join(f"{_quoted(t)}:{','.join(map(str, sorted(set(p))[:256]))}" for t, p in positions.items())


def index_rows(conn: Connection, rows: Iterable[tuple[str, str, str | None, str]]) -> None:
    """Index ``(entry id, scope, note, content)`` rows (replacing what they had)."""
    values = []
    for entry_id, scope, note, content in rows:
        tokens = index_tokens(scope, index_text(note, content)).split()
        values.append((scope_tag(scope), len(tokens), tsvector(tokens), entry_id))
    conn.executemany(
        "INSERT INTO entries_kw(seq, tag, size, tokens) SELECT seq, ?, ?, ?::tsvector FROM entries "
        "WHERE id = ? ON CONFLICT (seq) DO UPDATE SET tag = excluded.tag, size = excluded.size, "
        "tokens = excluded.tokens",
        values,
    )


def search(
    query: QueryFn,
    *,
    terms: Iterable[str],
    layer: str,
    scope: str | None,
    limit: int,
    with_cold: bool = False,
    newest: int | None = None,
    most: bool = False,
) -> list[tuple[str, float]]:
    """``(entry id, bm25 score)`` of one scope's entries matching any term, best first (see
    :func:`memory.record.keyword.search`, whose arguments these are; ``most`` changes nothing
    here: the scope's rows are joined as they are scored)."""
    words = sorted(set(terms))
    if not words or scope is None:
        return []
    tag = scope_tag(scope)
    rows = query(f"SELECT term, doc, length FROM {VOCAB_TABLE} WHERE term = ANY(?)", ([*words, tag],))
    stats = {str(t): (int(d), int(n)) for t, d, n in rows}  # type: ignore[call-overload]
    size, length = stats.get(tag, (0, 0))
    if size == 0:
        return []
    average = max(length / size, 1.0)
    idf = [max(_idf(size, stats.get(w, (0, 0))[0]), 1e-6) for w in words]
    match = " | ".join(_quoted(w) for w in words)
    floor_clause, floor = "", []
    if newest is not None:
        rows = query(
            "SELECT seq FROM entries_kw WHERE tokens @@ ?::tsquery ORDER BY seq DESC LIMIT 1 OFFSET ?",
            (match, newest - 1),
        )
        if rows:
            floor_clause, floor = "AND k.seq >= ?", [rows[0][0]]
    layers, layer_params = layer_clause(layer, with_cold)
    rows = query(
        "WITH q AS (SELECT * FROM unnest(?::text[], ?::float8[]) AS q(term, idf)) "
        "SELECT e.id, sum(q.idf * (cardinality(u.positions) * ?) "
        "  / (cardinality(u.positions) + ? * (1 - ? + ? * k.size / ?))) AS score "
        "FROM entries_kw k JOIN entries e ON e.seq = k.seq "
        "CROSS JOIN LATERAL unnest(k.tokens) AS u(lexeme, positions, weights) "
        "JOIN q ON q.term = u.lexeme "
        f"WHERE k.tokens @@ ?::tsquery {floor_clause} AND {layers} AND e.scope = ? "
        "GROUP BY e.id ORDER BY score DESC, e.id LIMIT ?",
        (words, idf, K1 + 1, K1, B, B, average, match, *floor, *layer_params, scope, limit),
    )
    return [(str(entry_id), float(score)) for entry_id, score in rows]  # type: ignore[arg-type]


def _idf(size: int, docs: int) -> float:
    return math.log((size - docs + 0.5) / (docs + 0.5))
