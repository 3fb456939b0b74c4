"""MemoryRetriever: answers a query across layers (quota, weighted or hybrid) for prompts.

The retriever reads layers; the two writes a retrieval implies are explicit, bounded steps of
:meth:`MemoryRetriever.retrieve_memories`: an index catch-up before searching (at most
``catch_up_seconds``) and the decay tick after. Failures degrade: the store or the embedder
failing gives empty RAG text and one logged warning per outage, never an exception.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from langchain_core.embeddings import Embeddings

from memory.config import RetrievalConfig, RetrievalMode
from memory.domain import slots
from memory.domain.dialogue import Query, parse_query, query_vector
from memory.domain.formatter import (
    format_active_memories,
    format_profile,
    format_retrieved_memories,
    join_blocks,
)
from memory.domain.tokens import JIEBA, common_words
from memory.domain.twins import async_twin
from memory.domain.types import Layer, MemoryEntry, ProfileFact, RetrievedMemory, scope_of
from memory.domain.validation import check_top_k, check_user_id
from memory.domain.when import window_of
from memory.errors import ReadOnlyStoreError, StoreUnavailableError
from memory.index.vector import Vector
from memory.layers.active import ActiveLayer
from memory.layers.decay_tick import DecayTick
from memory.layers.fact_vectors import FactVectors
from memory.layers.rag import EMBED_MAX_CHARS, RagLayer
from memory.record import keyword
from memory.record.db import Database
from memory.record.profile import ProfileTable
from memory.retrieval import ranking
from memory.retrieval.bridge import preload, shared_bridge
from memory.retrieval.candidates import CandidateSearch
from memory.retrieval.profile_select import ProfileSelector
from memory.retrieval.relevance import Bar, RelevanceFloor
from memory.write.index_sync import IndexSync

logger = logging.getLogger(__name__)
NEAR_MISSES = 3
KEYWORD_MAX_CHARS = 2000
"""Characters of a query the keyword stage reads (its end: the newest words). It keeps the
query's rarest 64 words anyway; tokenising all of a 20,000-character query cost 0.3 s, twice."""
"""Candidates below the cut a retrieval reports (for the inspector)."""
QueryInput = str | Sequence[str]
"""A query: one text, or the recent dialogue as turns, oldest first (the user's newest last)."""


QUERY_THREADS = 8
"""Retrievals whose query vector can be computed at once, each while its own record reads run."""
_threads: ThreadPoolExecutor | None = None
_threads_lock = threading.Lock()


def _query_threads() -> ThreadPoolExecutor:
    """The process's threads that embed queries (one set for every engine, like the models)."""
    global _threads
    with _threads_lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(QUERY_THREADS, thread_name_prefix="persona-memory-query")
        return _threads


@dataclass(frozen=True)
class RetrievalResult:
    """Everything one retrieval produced."""

    active: list[MemoryEntry]
    memories: list[RetrievedMemory]
    active_text: str
    rag_text: str
    degraded: bool = False
    profile: list[ProfileFact] = field(default_factory=list)
    """The user's current profile facts, in the prompt ahead of the memories."""
    near_misses: list[RetrievedMemory] = field(default_factory=list)
    """The best candidates just below the cut (not returned, not boosted), best first."""
    floor: Bar | None = None
    """The relevance floor's bar for this query (None: no floor applied)."""
    keywords: dict[str, str] = field(default_factory=dict)
    """The words the keyword search looked for, each with the query word it stands for: itself,
    or the word the bilingual bridge translated (``{"宠物": "pet"}``)."""


class MemoryRetriever:
    """Cross-layer retrieval: one function, explicit steps (see :meth:`retrieve_memories`).

    Args:
        db: the database (the scope's decay clock is read once per retrieval).
        active: the active layer (its window is always returned whole).
        layers: the hot searchable layers by :class:`Layer`.
        profile: the users' profile facts, put first in the prompt text (within a budget).
        fact_vectors: their embeddings, to rank them when they do not all fit.
        config: the ``retrieval`` section.
        embeddings: the model that embeds the query (once per retrieval).
        sync: the index sync, asked for a bounded catch-up before searching.
        decay: the decay tick applied after a retrieval that was served.
        locale: language of the prompt text.
        now: the clock used for relative times.
        max_text_chars: the longest query accepted.
    """

    def __init__(
        self,
        db: Database,
        active: ActiveLayer,
        layers: dict[Layer, RagLayer],
        profile: ProfileTable,
        config: RetrievalConfig,
        embeddings: Embeddings,
        *,
        fact_vectors: FactVectors,
        sync: IndexSync,
        decay: DecayTick,
        locale: str,
        now: Callable[[], datetime],
        max_text_chars: int,
        ranker: keyword.Ranker | None = None,
    ) -> None:
        self.db = db
        self.active = active
        self.layers = layers
        self.config = config
        self.embeddings = embeddings
        self.sync = sync
        self.decay = decay
        self.locale = locale
        self.now = now
        self.max_text_chars = max_text_chars
        self.catch_up_seconds = config.catch_up_seconds
        self.profile = profile
        self.keywords = keyword.KeywordIndex(
            db.query, config.keyword_tokenizer, config.keyword_max_df, ranker, config.common_word_idf
        )
        self.search = CandidateSearch(layers, config, self.keywords)
        self.floor = RelevanceFloor(embeddings, config.floor_margin)
        self.facts = ProfileSelector(fact_vectors, config.profile_chars, config.profile_budget)
        if self._bridging():
            preload()
        if config.keyword_tokenizer == JIEBA and config.common_word_idf > 0:  # read once, not by a query
            threading.Thread(
                target=common_words, args=(config.common_word_idf,), name="persona-memory-common", daemon=True
            ).start()
        self._degraded = False

    def retrieve(self, query: QueryInput, *, user_id: str | None = None) -> tuple[str, str]:
        """``(active_text, rag_text)`` for a query; both empty strings on an empty store."""
        result = self.retrieve_memories(query, user_id=user_id)
        return result.active_text, result.rag_text

    aretrieve = async_twin(retrieve)

    def retrieve_memories(
        self,
        query: QueryInput,
        *,
        user_id: str | None = None,
        top_k: int | None = None,
        floor: bool = True,
    ) -> RetrievalResult:
        """The full retrieval: active window, scored memories and their prompt texts.

        Steps: validate -> bounded index catch-up -> active window -> embed the query once (a
        dialogue: its turns in one call, :mod:`memory.domain.dialogue`) -> dense and keyword
        rankings (:mod:`memory.retrieval.candidates`) -> relevance floor -> selection
        (:mod:`memory.retrieval.ranking`) -> prompt text -> decay tick. Store or model failures
        degrade to no RAG memories, never an exception.

        Args:
            query: a text, or the recent dialogue as a list of turns, oldest first.
            floor: apply the relevance floor (when the config has it); a store's search, which
                ranks rather than fills a prompt, leaves it off.

        Raises:
            InputTypeError, InvalidInputError: bad ``query``, ``user_id`` or ``top_k``.
        """
        parsed = parse_query(query, max_chars=self.max_text_chars, max_turns=self.config.dialogue_turns)
        user_id = check_user_id(user_id)
        limit = None if top_k is None else check_top_k(top_k)
        now = self.now()
        # the query's models run (outside the interpreter lock) while the record is read
        embedding = _query_threads().submit(query_vector, parsed, self.embeddings, EMBED_MAX_CHARS)
        self._catch_up()
        active = self._active_window(user_id)
        known = self._profile(user_id)
        vector: Vector | None = None
        keywords: dict[str, str] = {}
        bar: Bar | None = None
        try:
            terms = self._keyword_terms(parsed)
            translated = self._bridged(parsed, terms)
            bridged = set(translated)
            keywords = {**translated, **{term: term for term in terms}}
            tick = self.db.tick_of(scope_of(user_id))
            window = window_of(parsed.latest, now) if self.config.time_windows else None
            hits = self.search.keyword_hits(terms, bridged, user_id, limit)
            vector = embedding.result()  # as memories are embedded
            floored = floor and self.config.relevance_floor and self.config.mode == RetrievalMode.HYBRID
            bar = self.floor.bar(vector) if floored else None
            found = self.search.rank(
                vector, terms, user_id, tick, limit, bar, bridged=bridged, window=window, keyword_hits=hits
            )
        except Exception as exc:
            self._report_degraded(exc)
            memories, misses, degraded = [], [], True
        else:
            self._degraded, degraded = False, False
            memories = ranking.select(
                self.config.mode,
                found,
                quotas=self.config.quotas,
                caps=self.config.caps,
                weights=self.config.weights,
                top_k=self.config.top_k,
                limit=limit,
            )
            misses = ranking.near_misses(
                self.config.mode, found, memories, weights=self.config.weights, count=NEAR_MISSES
            )
        facts = self._shown_facts(known, vector, set(keywords))
        memories = slots.mark_superseded(memories, known, self._replaced(user_id) if known else [])
        result = RetrievalResult(
            active=active,
            memories=memories,
            active_text=format_active_memories(active, now, self.locale),
            rag_text=join_blocks(
                format_profile(facts, self.locale),
                format_retrieved_memories(memories, now, self.locale, shown=[e.content for e in active]),
            ),
            profile=facts,
            degraded=degraded,
            near_misses=misses,
            floor=bar,
            keywords=keywords,
        )
        if not degraded:
            self._tick(user_id, memories)
        return result

    aretrieve_memories = async_twin(retrieve_memories)

    def _catch_up(self) -> None:
        try:
            self.sync.enricher.serving()
            self.sync.catch_up(self.catch_up_seconds)
        except Exception as exc:  # the backlog stays in SQLite; keywords still find it
            logger.debug("index catch-up skipped: %s", exc)

    def _shown_facts(
        self, known: list[ProfileFact], vector: Vector | None, words: set[str]
    ) -> list[ProfileFact]:
        if vector is None:
            return self.facts.fill(known)
        try:
            return self.facts.select(known, vector, words)
        except Exception as exc:  # the embedder failed on the facts: the newest that fit
            logger.warning("profile facts not ranked (%s); showing the newest", exc)
            return self.facts.fill(known)

    def _profile(self, user_id: str | None) -> list[ProfileFact]:
        if self.config.profile_budget <= 0 or self.config.profile_chars <= 0:
            return []
        try:
            return self.profile.current(user_id)
        except Exception as exc:
            logger.warning("profile facts unreadable (%s); retrieving without them", exc)
            return []

    def _replaced(self, user_id: str | None) -> list[ProfileFact]:
        try:
            return self.profile.replaced(user_id, slots.SAID)
        except Exception as exc:
            logger.warning("profile history unreadable (%s); judging statements by their words", exc)
            return []

    def _active_window(self, user_id: str | None) -> list[MemoryEntry]:
        try:
            return self.active.entries(user_id)
        except Exception as exc:
            logger.warning("active layer unreadable (%s); retrieving without it", exc)
            return []

    def _keyword_terms(self, query: Query) -> set[str]:
        if self.config.mode != RetrievalMode.HYBRID:
            return set()
        return self.keywords.terms(query.text[-KEYWORD_MAX_CHARS:])

    def _bridging(self) -> bool:
        config = self.config
        return config.bridge and config.mode == RetrievalMode.HYBRID and self.keywords.tokenizer == JIEBA

    def _bridged(self, query: Query, terms: set[str]) -> dict[str, str]:
        """The newest turn's words in the other language, each with the word it translates (a
        dialogue's older turns add context to the vector; translated, they would add mostly
        noise). ``terms``: the query's own."""
        if not self._bridging():
            return {}
        try:
            newest = query.latest[-KEYWORD_MAX_CHARS:]
            latest = terms if query.latest == query.text else self.keywords.terms(newest)
            found = shared_bridge().expand(latest)
            return {word: source for word, source in found.items() if not self.keywords.is_common(word)}
        except Exception as exc:  # no dictionary: the query's own words still match
            logger.warning("keyword bridge unavailable (%s); matching the query's own words", exc)
            return {}

    def _report_degraded(self, error: Exception) -> None:
        if isinstance(error, StoreUnavailableError):
            logger.debug("retrieval degraded: %s", error)
            return
        if not self._degraded:
            kind = type(error).__name__
            logger.warning("retrieval failed (%s: %s); returning no RAG memories", kind, error)
        self._degraded = True

    def _tick(self, user_id: str | None, memories: list[RetrievedMemory]) -> None:
        try:
            if self.decay.apply(user_id, memories):
                self.sync.notify()  # vectors move between tiers; forgotten entries go to the archive file
        except ReadOnlyStoreError:
            pass  # a memory that cannot be written does not age: reading it changes nothing
        except Exception as exc:
            logger.warning("decay tick failed (%s); the retrieval is still served", exc)
