"""Keyword index beside the vectors: SQLite FTS5 with ``bm25()`` ranking, in the entries database.

Text is segmented before FTS5 sees it (:mod:`memory.tokens`): with ``jieba`` (default) into
words joined by spaces for FTS5's ``unicode61`` tokenizer, or with FTS5's own ``trigram``
tokenizer on the raw text. Triggers keep the index in step with the
``entries`` table inside the same transactions, so the keyword index is never behind.

Statistics per user scope (jieba mode): every indexed word carries a short tag of its row's scope
(``s<digest>word``), and each row also holds the bare tag. A term's document frequency is then
counted in one scope only, and the tag's frequency is the scope's size: user B's words never
change which of user A's query words count, nor their weight (FTS5's bm25 takes the term's
frequency in the scope; only its corpus size and average length stay table-wide). A match also
reads only that scope's postings, so its cost does not grow with the number of users.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from memory.db import Connection
from memory.model import Layer
from memory.sqlite import SqliteConnection
from memory.tokens import JIEBA, TRIGRAM, index_tokens, load_jieba, query_terms, scope_tag, scoped

FTS_TABLE = "entries_fts"
VOCAB_TABLE = "entries_fts_vocab"
INDEX_VERSION = 3
"""Version 2 kept forgotten (cold) memories in the keyword index; version 3 tags words by scope."""
MAX_QUERY_TERMS = 64
"""A query keeps at most this many words, the rarest in the scope (a pasted page has hundreds)."""
MAX_SCORED = 1000
"""Memories a keyword match scores at most: bm25 costs about a microsecond per matching memory,
so a word in 25,000 of a user's memories made each search 20 ms. The rarest words are kept
within this budget of their document counts; a single word past it scores its newest matches."""
MIN_DOCS_FOR_DF = 20
"""Below this many memories every term is kept: frequencies mean little."""
_TOKEN_FUNCTION = "persona_memory_tokens"

QueryFn = Callable[[str, tuple[object, ...]], list[tuple[object, ...]]]


def _match_expression(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression matching any of ``terms`` (each quoted: no FTS5 syntax gets through)."""
    return " OR ".join(sorted('"' + t.replace('"', '""') + '"' for t in terms))


class CommonTerms:
    """Drops query terms found in more than ``max_ratio`` of a scope's indexed memories.

    A word every memory shares (the persona's name for the user, say) ranks noise; without it
    the keyword ranking is left to the words that discriminate. Counted per scope in jieba mode
    (one vocabulary lookup: the tagged terms and the scope's own tag); table-wide in trigram mode.
    A scope's size is refreshed at most every ``refresh_seconds``.
    """

    SIZES_KEPT = 4096

    def __init__(self, query: QueryFn, max_ratio: float, refresh_seconds: float = 30.0) -> None:
        self.query = query
        self.max_ratio = max_ratio
        self.refresh_seconds = refresh_seconds
        self._sizes: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._lock = threading.Lock()

    def _size(self, key: str, count: Callable[[], int]) -> int:
        now = time.monotonic()
        with self._lock:
            known = self._sizes.get(key)
            if known is not None and now - known[0] <= self.refresh_seconds:
                self._sizes.move_to_end(key)
                return known[1]
        size = count()
        with self._lock:
            self._sizes[key] = (now, size)
            self._sizes.move_to_end(key)
            while len(self._sizes) > self.SIZES_KEPT:
                self._sizes.popitem(last=False)
        return size

    def _doc_counts(self, terms: list[str]) -> dict[str, int]:
        marks = ",".join("?" * len(terms))
        rows = self.query(f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term IN ({marks})", tuple(terms))
        return {str(term): int(doc) for term, doc in rows}  # type: ignore[call-overload]

    def filter(
        self, terms: list[str], scope: str | None = None, *, spent: tuple[int, int] = (0, 0)
    ) -> tuple[list[str], int]:
        """The terms (as indexed) to match in ``scope`` (``None``: table-wide), with the number
        of matches they may have: words not too common there, rarest first, within
        :data:`MAX_SCORED` matches (always at least the rarest word).

        Args:
            spent: terms and matches already chosen (another list's): only what they leave of
                the budgets is used, and nothing is forced in.
        """
        used, matches = spent
        if not terms or used >= MAX_QUERY_TERMS:
            return [], matches
        if scope is None:
            size = self._size("", lambda: int(self.query(f"SELECT COUNT(*) FROM {FTS_TABLE}", ())[0][0]))  # type: ignore[call-overload]
        else:
            tag = scope_tag(scope)
            size = self._size(tag, lambda: self._doc_counts([tag]).get(tag, 0))
        if size < MIN_DOCS_FOR_DF:
            return terms[: MAX_QUERY_TERMS - used], max(size, matches)
        counts = self._doc_counts(sorted(set(terms)))
        limit = self.max_ratio * size
        kept = [t for t in terms if 0 < counts.get(t, 0) <= limit]  # a word in no memory matches none
        chosen: list[str] = []
        for term in sorted(kept, key=lambda t: (counts[t], t))[: MAX_QUERY_TERMS - used]:
            if (chosen or used) and matches + counts[term] > MAX_SCORED:
                break
            chosen.append(term)
            matches += counts[term]
        return chosen, matches


class KeywordIndex:
    """The keyword side of a retrieval: tags query words with the searched scope, drops the
    scope's common ones, ranks matches with bm25.

    Args:
        query: a read-only query function on the entries database.
        tokenizer: ``"jieba"`` or ``"trigram"`` (as installed).
        max_ratio: the ``keyword_max_df`` setting.
        ranker: the database's ranking (default: FTS5's, :func:`search`).
    """

    def __init__(
        self, query: QueryFn, tokenizer: str, max_ratio: float, ranker: Ranker | None = None
    ) -> None:
        self.query = query
        self.ranker: Ranker = ranker or search
        self.tokenizer = tokenizer
        self.common = CommonTerms(query, max_ratio)

    def terms(self, text: str) -> set[str]:
        """A query's words (untagged), see :func:`query_terms`."""
        return query_terms(text, self.tokenizer)

    def search(
        self,
        terms: Iterable[str],
        *,
        layer: str,
        scope: str,
        limit: int,
        with_cold: bool = False,
        extra: Iterable[str] = (),
    ) -> list[tuple[str, float]]:
        """``(entry id, bm25 score)`` of one scope's entries in ``layer``, best first.

        Args:
            extra: words matched too, within what the query's own ``terms`` leave of the term and
                match budgets (the bridge's translations, :mod:`memory.bridge`).
        """
        if self.tokenizer == TRIGRAM:
            chosen, matches = self.common.filter(sorted(terms))
        else:
            chosen, matches = self.common.filter(scoped(scope, sorted(terms)), scope)
            more = scoped(scope, sorted(set(extra) - set(terms)))
            if more and len(chosen) < MAX_QUERY_TERMS and matches < MAX_SCORED:
                added, matches = self.common.filter(more, scope, spent=(len(chosen), matches))
                chosen = [*chosen, *added]
        return self.ranker(
            self.query,
            terms=chosen,
            layer=layer,
            scope=scope,
            limit=limit,
            with_cold=with_cold,
            newest=MAX_SCORED if matches > MAX_SCORED else None,
        )


def install(conn: Connection, tokenizer: str, cache_dir: Path | None = None) -> bool:
    """Create the FTS5 table and its triggers; returns True when the index must be (re)built.

    Args:
        conn: the entries database connection (the token function is registered on it).
        tokenizer: ``"jieba"`` or ``"trigram"``.
        cache_dir: where jieba may write its dictionary cache (the data folder).
    """
    if not isinstance(conn, SqliteConnection):
        raise TypeError("the FTS5 keyword index needs a SQLite database")
    conn.raw.create_function(
        _TOKEN_FUNCTION, 2, lambda scope, text: index_tokens(scope or "", text or ""), deterministic=True
    )
    if cache_dir is not None and tokenizer == JIEBA:
        load_jieba(cache_dir)
    row = conn.execute("SELECT value FROM meta WHERE key = 'keyword_tokenizer'").fetchone()
    version = f"{tokenizer}/{INDEX_VERSION}"
    rebuild = row is None or row[0] != version
    if rebuild:
        conn.execute(f"DROP TABLE IF EXISTS {VOCAB_TABLE}")
        conn.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    fts_tokenizer = "trigram" if tokenizer == TRIGRAM else "unicode61"
    value = "coalesce(new.note, '') || ' ' || new.content"
    indexed = value if tokenizer == TRIGRAM else f"{_TOKEN_FUNCTION}(new.scope, {value})"
    conn.script(
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
        CREATE TRIGGER entries_fts_update AFTER UPDATE OF note, content, scope ON entries BEGIN
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
        column = content if tokenizer == TRIGRAM else f"{_TOKEN_FUNCTION}(scope, {content})"
        conn.execute(f"INSERT INTO {FTS_TABLE}(rowid, tokens) SELECT seq, {column} FROM entries")
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('keyword_tokenizer', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (version,),
        )
    return rebuild


def purge(conn: Connection) -> None:
    """Merge the FTS5 index into one segment, so the words of deleted rows are no longer in it
    (a delete only marks them until segments merge)."""
    conn.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('optimize')")


def layer_clause(layer: str, with_cold: bool) -> tuple[str, list[object]]:
    """The condition on ``entries e`` for a layer's rows (and its cold ones), with its parameters."""
    if with_cold:
        cold: list[object] = [layer, Layer.ARCHIVED.value, layer]
        return "(+e.layer = ? OR (+e.layer = ? AND e.archived_layer = ?))", cold
    hot: list[object] = [layer]
    return "+e.layer = ?", hot


class Ranker(Protocol):
    """Ranks one scope's entries of a layer matching any of the terms (:func:`search`)."""

    def __call__(
        self,
        query: QueryFn,
        *,
        terms: Iterable[str],
        layer: str,
        scope: str | None,
        limit: int,
        with_cold: bool = False,
        newest: int | None = None,
    ) -> list[tuple[str, float]]: ...


def search(
    query: QueryFn,
    *,
    terms: Iterable[str],
    layer: str,
    scope: str | None,
    limit: int,
    with_cold: bool = False,
    newest: int | None = None,
) -> list[tuple[str, float]]:
    """``(entry id, bm25 score)`` of entries matching any term, best first.

    FTS5's bm25 is lower-is-better; it is negated here. No terms: no match.

    Args:
        with_cold: also rank the layer's forgotten (archived) entries, in the same ranking.
        newest: score only the newest this many matches (FTS5 reads them backwards by rowid).
    """
    expression = _match_expression(terms)
    if not expression:
        return []
    floor_clause = ""
    floor: list[object] = []
    if newest is not None:
        rows = query(
            f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (expression, newest - 1),
        )
        if rows:
            floor_clause, floor = f"AND {FTS_TABLE}.rowid >= ?", [rows[0][0]]
    layers, layer_params = layer_clause(layer, with_cold)
    params: list[object] = [expression, *layer_params]
    scope_clause = ""
    if scope is not None:
        scope_clause = "AND +e.scope = ?"
        params.append(scope)
    rows = query(
        f"SELECT e.id, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
        f"CROSS JOIN entries e ON e.seq = {FTS_TABLE}.rowid "  # matches first, then their rows
        f"WHERE {FTS_TABLE} MATCH ? {floor_clause} AND {layers} {scope_clause} ORDER BY rank LIMIT ?",
        (params[0], *floor, *params[1:], limit),
    )
    return [(str(entry_id), -float(rank)) for entry_id, rank in rows]  # type: ignore[arg-type]
