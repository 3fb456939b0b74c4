"""MemoryRetriever: answers a query across layers (quota, weighted or hybrid) for prompts.

The retriever reads layers; the two writes a retrieval implies are explicit, bounded steps of
:meth:`MemoryRetriever.retrieve_memories`: an optional index catch-up before searching (at most
``catch_up_seconds``; memories not yet in the index are scored without it) and the decay tick
after. Failures degrade: the store or the embedder failing gives empty RAG text and one logged
warning per outage, never an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from langchain_core.embeddings import Embeddings

from memory.config import RetrievalConfig, RetrievalMode
from memory.domain import formatter, slots
from memory.domain.dialogue import Query, parse_query
from memory.domain.twins import async_twin
from memory.domain.types import Layer, MemoryEntry, ProfileFact, RetrievedMemory, scope_of
from memory.domain.validation import check_top_k, check_user_id
from memory.domain.when import window_of
from memory.errors import ReadOnlyStoreError, StoreUnavailableError
from memory.index.embeddings import tiered
from memory.index.vector import Vector
from memory.layers.active import ActiveLayer
from memory.layers.decay_tick import DecayTick
from memory.layers.fact_vectors import FactVectors
from memory.layers.layer_index import EMBED_MAX_CHARS
from memory.layers.rag import RagLayer
from memory.record import keyword
from memory.record.db import Database
from memory.record.profile import ProfileTable
from memory.retrieval import raised, ranking
from memory.retrieval.candidates import CandidateSearch
from memory.retrieval.profile_select import ProfileSelector
from memory.retrieval.query_vector import QueryVector, query_vector_soon
from memory.retrieval.query_words import QueryWords
from memory.retrieval.relevance import Bar, RelevanceFloor
from memory.retrieval.result import QueryInput, RetrievalResult
from memory.write.index_sync import IndexSync

logger = logging.getLogger(__name__)
NEAR_MISSES = 3
"""Candidates below the cut a retrieval reports (for the inspector)."""


@dataclass
class _Searched:
    """What the search part of a retrieval found (empty, ``degraded``, after a failure)."""

    keywords: dict[str, str] = field(default_factory=dict)
    vector: list[float] | None = None
    bar: Bar | None = None
    asked: raised.Asked | None = None
    memories: list[RetrievedMemory] = field(default_factory=list)
    misses: list[RetrievedMemory] = field(default_factory=list)
    degraded: bool = False


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
        related: compares a statement leaning to a slot with the slot's newer value, before it is
            shown as history (:mod:`memory.retrieval.same_topic`); None: its words suffice.
        reads_use: the query's vector begins with USE's, read for the slot it asks about too.
        user_terms: what the persona calls the user ("前辈"): a query naming it speaks of the user.
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
        related: slots.Related | None = None,
        reads_use: bool = False,
        user_terms: Sequence[str] = (),
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
        self.related = related
        self.reads_use = reads_use
        self.keywords = keyword.KeywordIndex(
            db.query, config.keyword_tokenizer, config.keyword_max_df, ranker, config.common_word_idf
        )
        self.search = CandidateSearch(layers, config, self.keywords, two_tiers=tiered(embeddings) is not None)
        self.floor = RelevanceFloor(embeddings, config.floor_margin, user_terms)
        self.facts = ProfileSelector(fact_vectors, config.profile_chars, config.profile_budget)
        self.words = QueryWords(config, self.keywords)
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

        Steps: validate -> bounded index catch-up -> active window -> embed the query once -> dense and
        keyword rankings, the slot asked (:mod:`memory.retrieval.candidates`) -> relevance floor -> one
        candidate per repeated line -> selection (:mod:`memory.retrieval.ranking`) -> prompt text -> decay
        tick. Store or model failures give no RAG memories, never an exception.

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
        embedding = query_vector_soon(parsed, self.embeddings, EMBED_MAX_CHARS)
        self._catch_up()
        active = self._active_window(user_id)
        known = self._profile(user_id)
        shown = [e.content for e in active]
        found = self._search(parsed, embedding, user_id, limit, now, floor, shown, known)
        facts = self._shown_facts(known, found.vector, set(found.keywords))
        current = raised.standing(known, found.memories)
        replaced = self._replaced(user_id, found.memories) if known else []
        asked = found.asked.slot if found.asked is not None else None  # every statement shown may speak of it
        memories = slots.mark_superseded(found.memories, current, replaced, self.related, asked)
        result = RetrievalResult(
            active=active,
            memories=memories,
            active_text=formatter.format_active_memories(active, now, self.locale),
            rag_text=formatter.join_blocks(
                formatter.format_profile(facts, self.locale),
                formatter.format_retrieved_memories(memories, now, self.locale, shown=shown),
            ),
            profile=facts,
            degraded=found.degraded,
            near_misses=found.misses,
            floor=found.bar,
            keywords=found.keywords,
        )
        if not found.degraded:
            self._tick(user_id, memories)
        return result

    def _search(
        self,
        parsed: Query,
        embedding: QueryVector,
        user_id: str | None,
        limit: int | None,
        now: datetime,
        floor: bool,
        shown: list[str],
        known: list[ProfileFact],
    ) -> _Searched:
        """The keyword and dense rankings, the floor and the selection; a failure of the store or
        the model gives no memories (``degraded``), never an exception."""
        searched, config = _Searched(), self.config
        try:
            terms, translated = self.words.of(parsed)
            bridged = set(translated)
            searched.keywords = {**translated, **{term: term for term in terms}}
            tick = self.db.tick_of(scope_of(user_id))
            window = window_of(parsed.latest, now) if config.time_windows else None
            early = self.search.search_soon(embedding, user_id, limit)  # searched meanwhile
            hits = self.search.keyword_hits(terms, bridged, user_id, limit, then=early)
            searched.vector = vector = embedding()  # as memories are embedded
            hybrid = config.mode == RetrievalMode.HYBRID
            asked = raised.asked(parsed.latest, known, vector if self.reads_use else None) if hybrid else None
            searched.asked = asked
            floored = hybrid and floor and config.relevance_floor
            searched.bar = bar = self.floor.bar(vector, parsed.text, asked is not None) if floored else None
            found = self.search.rank(
                vector, terms, user_id, tick, limit, bar, bridged=bridged, window=window, keyword_hits=hits,
                asked=asked, early=early,
            )  # fmt: skip
            found = ranking.distinct(found, shown)
        except Exception as exc:
            self._report_degraded(exc)
            searched.degraded = True
            return searched
        self._degraded = False
        searched.memories = ranking.select(
            config.mode, found, quotas=config.quotas, caps=config.caps, weights=config.weights,
            top_k=config.top_k, limit=limit,
        )  # fmt: skip
        searched.misses = ranking.near_misses(
            config.mode, found, searched.memories, weights=config.weights, count=NEAR_MISSES
        )
        return searched

    aretrieve_memories = async_twin(retrieve_memories)

    def _catch_up(self) -> None:
        try:
            self.sync.enricher.serving()
            if self.catch_up_seconds > 0:
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

    def _replaced(self, user_id: str | None, memories: list[RetrievedMemory]) -> list[ProfileFact]:
        try:
            return self.profile.replaced(user_id, slots.SAID, slots.said_values(memories))
        except Exception as exc:
            logger.warning("profile history unreadable (%s); judging statements by their words", exc)
            return []

    def _active_window(self, user_id: str | None) -> list[MemoryEntry]:
        try:
            return self.active.entries(user_id)
        except Exception as exc:
            logger.warning("active layer unreadable (%s); retrieving without it", exc)
            return []

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
