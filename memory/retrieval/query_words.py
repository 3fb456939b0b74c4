"""The words a query is matched on by the keyword stage: its own, and the bridge's.

A query's own words are jieba's, without stop words and without the words any Chinese text says
often (:func:`memory.domain.tokens.common_words`). The bridge adds the newest turn's words in the
other language (:mod:`memory.retrieval.bridge`), each remembered with the word it translates, so
the inspector can say which matched which.
"""

from __future__ import annotations

import logging
import threading

from memory.config import RetrievalConfig, RetrievalMode
from memory.domain.dialogue import Query
from memory.domain.tokens import JIEBA, common_words
from memory.record.keyword import KeywordIndex
from memory.retrieval.bridge import preload, shared_bridge

logger = logging.getLogger(__name__)

KEYWORD_MAX_CHARS = 2000
"""Characters of a query the keyword stage reads (its end: the newest words). It keeps the
query's rarest 64 words anyway; tokenising all of a 20,000-character query cost 0.3 s, twice."""


class QueryWords:
    """A query's keyword terms and their translations, as one retrieval config has them.

    Reading the bridge's dictionary and the common-word table starts on background threads when
    it is made, so the first query does not wait for them.
    """

    def __init__(self, config: RetrievalConfig, keywords: KeywordIndex) -> None:
        self.config = config
        self.keywords = keywords
        if self._bridging():
            preload()
        if keywords.tokenizer == JIEBA and config.common_word_idf > 0:
            threading.Thread(
                target=common_words, args=(config.common_word_idf,), name="persona-memory-common", daemon=True
            ).start()

    def of(self, query: Query) -> tuple[set[str], dict[str, str]]:
        """``(terms, translated)``: the query's own words, and the bridge's words, each with the
        query word it translates (none outside hybrid mode)."""
        if self.config.mode != RetrievalMode.HYBRID:
            return set(), {}
        terms = self.keywords.terms(query.text[-KEYWORD_MAX_CHARS:])
        return terms, self._bridged(query, terms)

    def _bridging(self) -> bool:
        config = self.config
        return config.bridge and config.mode == RetrievalMode.HYBRID and self.keywords.tokenizer == JIEBA

    def _bridged(self, query: Query, terms: set[str]) -> dict[str, str]:
        """The newest turn's words in the other language (a dialogue's older turns add context
        to the vector; translated, they would add mostly noise)."""
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
