"""All tunable values of the engine, in one place.

``MemoryConfig()`` gives the defaults of SPEC.md; ``MemoryConfig.from_toml(path)`` reads a
TOML file laid out like ``config/default.toml``; environment variables named
``PERSONA_MEMORY__SECTION__FIELD`` (or ``PERSONA_MEMORY__FIELD`` for top-level fields)
override both. ``validate()`` raises :class:`~memory.errors.ConfigError` naming the field.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any

from memory.config_fields import parse_env_value as _parse_env_value
from memory.config_fields import set_field as _set_field
from memory.errors import ConfigError

ENV_PREFIX = "PERSONA_MEMORY__"


class RetrievalMode(StrEnum):
    """How the retriever combines the RAG layers."""

    QUOTA = "quota"
    WEIGHTED = "weighted"
    HYBRID = "hybrid"


class StoreMode(StrEnum):
    """Where the Chroma vector index lives."""

    PERSISTENT = "persistent"
    HTTP = "http"


@dataclass
class ActiveConfig:
    """The verbatim window of the newest interactions."""

    capacity: int = 10


@dataclass
class TemporaryConfig:
    """Overflowed interactions, recalled by meaning and forgotten when insignificant."""

    initial_significance: float = 0.5
    significance_threshold: float = 0.1
    decay_coefficient: float = 0.95


@dataclass
class SummaryConfig:
    """Scheduled summaries and their clean-up."""

    interval_seconds: float = 300.0
    cleanup_interval_seconds: float = 3600.0
    cleanup_ratio: float = 0.01
    decay_coefficient: float = 0.98
    initial_significance: float = 0.5
    model_timeout_seconds: float = 30.0
    model_factory: str = ""
    """``"package.module:callable"`` returning a LangChain chat model, used when the manager gets
    ``summary_model=None``; empty means the extractive summariser."""
    max_summary_chars: int = 600
    concurrency: int = 4


@dataclass
class RetrievalConfig:
    """How a query is answered across layers."""

    mode: RetrievalMode = RetrievalMode.HYBRID
    quotas: dict[str, int] = field(default_factory=lambda: {"temporary": 3, "summary": 2, "static": 2})
    weights: dict[str, float] = field(
        default_factory=lambda: {"static": 1.0, "summary": 0.9, "temporary": 0.8}
    )
    top_k: int = 6
    min_similarity: float = -1.0
    rrf_k: int = 60
    keyword_weight: float = 1.0
    keyword_max_df: float = 0.25
    keyword_tokenizer: str = "jieba"
    candidate_multiplier: int = 4
    catch_up_seconds: float = 0.05
    deep_recall: bool = True
    cold_weight: float = 1.0
    recency_weight: float = 0.25
    importance_weight: float = 0.0
    profile_budget: int = 12


@dataclass
class EmbeddingConfig:
    """Which embedding model and where the engine's state lives."""

    provider: str = "use-multilingual"
    model_name: str = "use-multilingual-v3"
    persist_dir: str = "data/memory_store"
    batch_size: int = 64
    threads: int = 1
    allow_download: bool = False


@dataclass
class StoreConfig:
    """The Chroma vector index: embedded (persistent) or a Chroma server (http)."""

    mode: StoreMode = StoreMode.PERSISTENT
    host: str = "127.0.0.1"
    port: int = 8000
    ssl: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    sqlite_synchronous: str = "NORMAL"
    hnsw_ef_search: int = 200
    hnsw_ef_construction: int = 200
    hnsw_max_neighbors: int = 32
    breaker_failure_threshold: int = 1
    breaker_initial_backoff_seconds: float = 1.0
    breaker_max_backoff_seconds: float = 60.0


@dataclass
class MemoryConfig:
    """The whole engine configuration; sections mirror ``config/default.toml``."""

    active: ActiveConfig = field(default_factory=ActiveConfig)
    temporary: TemporaryConfig = field(default_factory=TemporaryConfig)
    summary: SummaryConfig = field(default_factory=SummaryConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    personas_dir: str = "personas"
    archive_dir: str = "data/archive"
    locale: str = "zh"
    max_text_chars: int = 100_000

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], *, use_env: bool = True) -> MemoryConfig:
        """Load a config from a TOML file, then apply environment overrides.

        Raises:
            ConfigError: the file is missing, is not TOML, or holds an unknown or invalid field.
        """
        file = Path(path)
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(str(file), "file not found") from exc
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(str(file), f"not valid TOML: {exc}") from exc
        config = cls()
        for key, value in data.items():
            _set_field(config, key, value)
        if use_env:
            config.apply_env()
        config.validate()
        return config

    @classmethod
    def from_env(cls) -> MemoryConfig:
        """Defaults with environment overrides applied."""
        config = cls()
        config.apply_env()
        config.validate()
        return config

    def apply_env(self, environ: dict[str, str] | None = None) -> None:
        """Apply ``PERSONA_MEMORY__SECTION__FIELD=value`` overrides (JSON or plain text)."""
        env = os.environ if environ is None else environ
        for name, raw in env.items():
            if not name.startswith(ENV_PREFIX):
                continue
            parts = [p.lower() for p in name[len(ENV_PREFIX) :].split("__")]
            value: Any = _parse_env_value(raw)
            if len(parts) == 1:
                _set_field(self, parts[0], value)
            elif len(parts) == 2:
                _set_field(self, parts[0], {parts[1]: value})
            else:
                raise ConfigError(name, "expected PERSONA_MEMORY__SECTION__FIELD")

    def validate(self) -> MemoryConfig:
        """Check every value; return self. Raises ConfigError naming the first bad field."""
        _check(self.active.capacity >= 1, "active.capacity", "must be at least 1")
        for name, coefficient in (
            ("temporary.decay_coefficient", self.temporary.decay_coefficient),
            ("summary.decay_coefficient", self.summary.decay_coefficient),
        ):
            _check(0.0 < coefficient <= 1.0, name, f"must be in (0, 1], got {coefficient}")
        for name, value in (
            ("temporary.initial_significance", self.temporary.initial_significance),
            ("summary.initial_significance", self.summary.initial_significance),
        ):
            _check(0.0 < value <= 1.0, name, f"must be in (0, 1], got {value}")
        threshold = self.temporary.significance_threshold
        _check(
            0.0 <= threshold < self.temporary.initial_significance,
            "temporary.significance_threshold",
            f"must be in [0, initial_significance), got {threshold}",
        )
        _check(self.summary.interval_seconds > 0, "summary.interval_seconds", "must be > 0")
        _check(
            self.summary.cleanup_interval_seconds > 0,
            "summary.cleanup_interval_seconds",
            "must be > 0",
        )
        _check(0.0 <= self.summary.cleanup_ratio <= 1.0, "summary.cleanup_ratio", "must be in [0, 1]")
        _check(self.summary.model_timeout_seconds > 0, "summary.model_timeout_seconds", "must be > 0")
        _check(self.summary.max_summary_chars >= 50, "summary.max_summary_chars", "must be >= 50")
        self._validate_retrieval()
        _check(bool(self.embedding.provider), "embedding.provider", "must not be empty")
        _check(bool(self.embedding.persist_dir), "embedding.persist_dir", "must not be empty")
        _check(self.embedding.batch_size >= 1, "embedding.batch_size", "must be >= 1")
        _check(self.embedding.threads >= 1, "embedding.threads", "must be >= 1")
        self.store.mode = _enum(StoreMode, self.store.mode, "store.mode")
        _check(0 < self.store.port < 65536, "store.port", "must be a TCP port")
        for name in ("hnsw_ef_search", "hnsw_ef_construction", "hnsw_max_neighbors"):
            _check(getattr(self.store, name) >= 2, f"store.{name}", "must be >= 2")
        _check(
            self.store.sqlite_synchronous.upper() in {"NORMAL", "FULL", "EXTRA"},
            "store.sqlite_synchronous",
            "must be NORMAL, FULL or EXTRA",
        )
        _check(self.locale in {"zh", "en"}, "locale", f"must be 'zh' or 'en', got {self.locale!r}")
        _check(self.max_text_chars >= 1, "max_text_chars", "must be >= 1")
        _check(bool(self.archive_dir), "archive_dir", "must not be empty")
        return self

    def _validate_retrieval(self) -> None:
        retrieval = self.retrieval
        retrieval.mode = _enum(RetrievalMode, retrieval.mode, "retrieval.mode")
        for layer in ("temporary", "summary", "static"):
            quota = retrieval.quotas.get(layer, 0)
            _check(
                isinstance(quota, int) and quota >= 0,
                f"retrieval.quotas.{layer}",
                "must be an integer >= 0",
            )
            weight = retrieval.weights.get(layer, 0.0)
            _check(weight >= 0, f"retrieval.weights.{layer}", "must be >= 0")
        unknown = (set(retrieval.quotas) | set(retrieval.weights)) - {
            "temporary",
            "summary",
            "static",
        }
        _check(not unknown, "retrieval.quotas", f"unknown layers {sorted(unknown)}")
        _check(retrieval.top_k >= 1, "retrieval.top_k", "must be >= 1")
        _check(retrieval.rrf_k >= 1, "retrieval.rrf_k", "must be >= 1")
        _check(retrieval.keyword_weight >= 0, "retrieval.keyword_weight", "must be >= 0")
        _check(0 < retrieval.keyword_max_df <= 1, "retrieval.keyword_max_df", "must be in (0, 1]")
        _check(
            retrieval.keyword_tokenizer in {"jieba", "trigram"},
            "retrieval.keyword_tokenizer",
            "must be 'jieba' or 'trigram'",
        )
        _check(retrieval.candidate_multiplier >= 1, "retrieval.candidate_multiplier", "must be >= 1")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable view of the config."""
        result: dict[str, Any] = json.loads(json.dumps(dataclasses.asdict(self), default=str))
        return result


def _check(condition: bool, field_name: str, message: str) -> None:
    if not condition:
        raise ConfigError(field_name, message)


def _enum(kind: type[Enum], value: object, field_name: str) -> Any:
    try:
        return kind(value)
    except ValueError as exc:
        allowed = ", ".join(repr(m.value) for m in kind)  # type: ignore[attr-defined]
        raise ConfigError(field_name, f"unknown value {value!r}; expected one of {allowed}") from exc
