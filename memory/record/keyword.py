"""The keyword side of a retrieval: which query words count, and FTS5's ``bm25()`` ranking over
the keyword index (:mod:`memory.record.fts`, the table and its triggers).

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
from typing import Protocol

from memory.domain.tokens import TRIGRAM, common_words, query_terms, scope_tag, scoped
from memory.domain.types import Layer
from memory.record.fts import FTS_TABLE, VOCAB_TABLE

MAX_QUERY_TERMS = 64
"""A query keeps at most this many words, the rarest in the scope (a pasted page has hundreds)."""
MAX_SCORED = 1000
"""Memories a keyword match scores at most: bm25 costs about a microsecond per matching memory,
so a word in 25,000 of a user's memories made each search 20 ms. The rarest words are kept
within this budget of their document counts; a single word past it scores its newest matches."""
RANKED_FIRST = 4
"""How many times a search's limit of matches :func:`_ranked_first` ranks: reading each match's
row to keep its layer's costs as much as its bm25 (2.2 against 1.0 ms for a common word's
1,000 matches among 100,000 memories)."""
MIN_DOCS_FOR_DF = 20
"""Below this many memories every term is kept: frequencies mean little."""
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
        common_idf: the ``common_word_idf`` setting (:func:`memory.domain.tokens.common_words`).
    """

    def __init__(
        self,
        query: QueryFn,
        tokenizer: str,
        max_ratio: float,
        ranker: Ranker | None = None,
        common_idf: float = 0.0,
    ) -> None:
        self.query = query
        self.ranker: Ranker = ranker or search
        self.tokenizer = tokenizer
        self.common = CommonTerms(query, max_ratio)
        self.common_idf = common_idf

    def terms(self, text: str) -> set[str]:
        """A query's words (untagged), see :func:`query_terms`."""
        return query_terms(text, self.tokenizer, self.common_idf)

    def is_common(self, word: str) -> bool:
        """A word too common in general to decide a match (see ``common_idf``)."""
        return word in common_words(self.common_idf)

    def search(
        self,
        terms: Iterable[str],
        *,
        layer: str,
        scope: str,
        limit: int,
        with_cold: bool = False,
        extra: Iterable[str] = (),
        most: bool = False,
    ) -> list[tuple[str, float]]:
        """``(entry id, bm25 score)`` of one scope's entries in ``layer``, best first.

        Args:
            extra: words matched too, within what the query's own ``terms`` leave of the term and
                match budgets (the bridge's translations, :mod:`memory.retrieval.bridge`).
            most: the layer holds most of the scope's entries (see :func:`search`).
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
            most=most and self.tokenizer != TRIGRAM,  # a trigram's matches span every scope
        )


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
        most: bool = False,
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
    most: bool = False,
) -> list[tuple[str, float]]:
    """``(entry id, bm25 score)`` of entries matching any term, best first.

    FTS5's bm25 is lower-is-better; it is negated here. Equal scores go oldest first, whichever
    way the matches were read. No terms: no match.

    Args:
        with_cold: also rank the layer's forgotten (archived) entries, in the same ranking.
        newest: score only the newest this many matches (FTS5 reads them backwards by rowid).
        most: the layer holds most of the matches (the words are the scope's): rank the matches
            before reading their rows (:func:`_ranked_first`).
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
    if most:
        ranked = _ranked_first(query, expression, (floor_clause, floor), layer, scope, limit, with_cold)
        if ranked is not None:
            return ranked
    layers, layer_params = layer_clause(layer, with_cold)
    params: list[object] = [expression, *layer_params]
    scope_clause = ""
    if scope is not None:
        scope_clause = "AND +e.scope = ?"
        params.append(scope)
    rows = query(
        f"SELECT e.id, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
        f"CROSS JOIN entries e ON e.seq = {FTS_TABLE}.rowid "  # matches first, then their rows
        f"WHERE {FTS_TABLE} MATCH ? {floor_clause} AND {layers} {scope_clause} ORDER BY rank, e.seq LIMIT ?",
        (params[0], *floor, *params[1:], limit),
    )
    return [(str(entry_id), -float(rank)) for entry_id, rank in rows]  # type: ignore[arg-type]


def _ranked_first(
    query: QueryFn,
    expression: str,
    floor: tuple[str, list[object]],
    layer: str,
    scope: str | None,
    limit: int,
    with_cold: bool,
) -> list[tuple[str, float]] | None:
    """The layer's best ``limit`` of the best ``RANKED_FIRST * limit`` matches, ranked before any
    row is read; None when fewer than ``limit`` of those are the layer's and more matches exist
    (the caller then ranks the layer's matches alone)."""
    clause, params = floor
    wide = limit * RANKED_FIRST
    ranked = query(
        f"SELECT rowid, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} "
        f"WHERE {FTS_TABLE} MATCH ? {clause} ORDER BY rank, rowid LIMIT ?",
        (expression, *params, wide),
    )
    if not ranked:
        return []
    layers, layer_params = layer_clause(layer, with_cold)
    scope_clause, scope_params = ("AND +e.scope = ?", [scope]) if scope is not None else ("", [])
    marks = ",".join("?" * len(ranked))
    rows = query(
        f"SELECT e.seq, e.id FROM entries e WHERE e.seq IN ({marks}) AND {layers} {scope_clause}",
        (*(seq for seq, _ in ranked), *layer_params, *scope_params),
    )
    ids = {seq: str(entry_id) for seq, entry_id in rows}
    kept = [(ids[seq], -float(rank)) for seq, rank in ranked if seq in ids][:limit]  # type: ignore[arg-type]
    return None if len(kept) < limit and len(ranked) == wide else kept
