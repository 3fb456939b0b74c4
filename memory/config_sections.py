"""The sections of :class:`memory.config.MemoryConfig`, as pydantic models with constraints
(strict field types, every assignment validated: :mod:`memory.config_types`)."""

from __future__ import annotations

import warnings
from enum import StrEnum
from typing import Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from memory.config_types import Bool, Float, Int, Section
from memory.domain.types import RAG_LAYERS

LAYER_NAMES = tuple(layer.value for layer in RAG_LAYERS)


class RetrievalMode(StrEnum):
    """How the retriever combines the RAG layers."""

    QUOTA = "quota"
    WEIGHTED = "weighted"
    HYBRID = "hybrid"


class RecordKind(StrEnum):
    """The system of record: an embedded SQLite file, or a PostgreSQL server."""

    SQLITE = "sqlite"
    POSTGRES = "postgres"


class StoreMode(StrEnum):
    """Where the Chroma vector index lives."""

    PERSISTENT = "persistent"
    HTTP = "http"


class ActiveConfig(Section):
    """The verbatim window of the newest interactions."""

    capacity: Int = Field(10, ge=1, description="interactions kept verbatim; the oldest overflows")


class TemporaryConfig(Section):
    """Overflowed interactions, recalled by meaning, demoted to the cold tier when insignificant."""

    initial_significance: Float = Field(0.5, gt=0, le=1, description="significance of an overflowed one")
    significance_threshold: Float = Field(0.1, ge=0, lt=1, description="below this: the cold tier")
    decay_coefficient: Float = Field(0.95, gt=0, le=1, description="per retrieval tick: s * c")
    importance: Bool = Field(True, description="start from the importance estimate, not a flat value")
    slots: Bool = Field(
        True,
        description="a plain statement of home, job, ... sets that profile fact; "
        "a newer one it is unsure of is shown first for a question about it",
    )

    @model_validator(mode="after")
    def _threshold_below_initial(self) -> TemporaryConfig:
        if self.significance_threshold >= self.initial_significance:
            raise ValueError("significance_threshold must be below initial_significance")
        return self


class SummaryConfig(Section):
    """Scheduled summaries and their clean-up."""

    interval_seconds: Float = Field(300.0, gt=0, description="summary job period")
    cleanup_interval_seconds: Float = Field(3600.0, gt=0, description="clean-up job period")
    cleanup_ratio: Float = Field(0.01, ge=0, le=1, description="share of summaries archived (rounded down)")
    decay_coefficient: Float = Field(0.98, gt=0, le=1, description="per retrieval tick")
    initial_significance: Float = Field(0.5, gt=0, le=1, description="significance of a new summary")
    model_timeout_seconds: Float = Field(30.0, gt=0, description="then the extractive summary is used")
    model_factory: str = Field("", description="'package.module:callable' returning a chat model")
    max_summary_chars: Int = Field(600, ge=50, description="longest summary kept")
    concurrency: Int = Field(4, ge=1, description="users summarised at once")


class RetrievalConfig(Section):
    """How a query is answered across layers."""

    mode: RetrievalMode = Field(RetrievalMode.HYBRID, description="hybrid, quota or weighted")
    quotas: dict[str, Int] = Field(
        default_factory=lambda: {"temporary": 3, "summary": 2, "static": 2},
        description="quota mode: memory slots reserved per layer",
    )
    weights: dict[str, Float] = Field(
        default_factory=lambda: {"static": 1.0, "summary": 0.9, "temporary": 0.8},
        description="weighted mode: score factor per layer",
    )
    caps: dict[str, Int] = Field(
        default_factory=lambda: {"summary": 2, "static": 2},
        description="hybrid: most memory slots a layer may take (a layer not named: no cap)",
    )
    top_k: Int = Field(7, ge=1, description="hybrid and weighted modes: memory slots")
    relevance_floor: Bool = Field(True, description="hybrid: an empty slot rather than noise")
    floor_margin: Float = Field(0.0, ge=-1, le=1, description="added to the query's background bar")
    dialogue_turns: Int = Field(8, ge=1, description="turns of a dialogue query read (the newest)")
    keyword_terms: Int = Field(16, ge=1, description="query words the keyword ranking is fully trusted for")
    time_windows: Bool = Field(True, description="hybrid: a time the query names ranks that time's memories")
    bridge: Bool = Field(True, description="hybrid, jieba: query words also matched in the other language")
    min_similarity: Float = Field(-1.0, ge=-1, le=1, description="drop candidates below this cosine")
    fusion: str = Field("score", pattern="^(rrf|score)$", description="hybrid: score or rrf (ranks)")
    rrf_k: Int = Field(60, ge=1, description="reciprocal-rank-fusion constant")
    keyword_weight: Float | None = Field(
        None,
        ge=0,
        description="keyword ranking weight; unset: 0.5 on fully embedded memories (use-e5), else 1",
    )
    keyword_max_df: Float = Field(0.25, gt=0, le=1, description="ignore query words in more memories")
    common_word_idf: Float = Field(
        4.5, ge=0, description="jieba: Chinese words below this general-corpus IDF are no keywords (0: off)"
    )
    keyword_tokenizer: str = Field("jieba", pattern="^(jieba|trigram)$", description="jieba or trigram")
    candidate_multiplier: Int = Field(4, ge=1, description="candidates per ranking = depth * this")
    catch_up_seconds: Float = Field(
        0.0, ge=0, description="index backlog a retrieval stores itself (0: it scores its scope's newest)"
    )
    deep_recall: Bool = Field(True, description="search the cold tier beside the hot one")
    cold_weight: Float = Field(1.0, ge=0, le=1, description="score factor of a cold memory")
    recency_weight: Float = Field(0.25, ge=0, description="bonus of newer candidates (hybrid)")
    importance_weight: Float = Field(0.25, ge=0, description="bonus of important memories (hybrid)")
    profile_budget: Int = Field(12, ge=0, description="profile facts put in a prompt at most")
    profile_chars: Int = Field(800, ge=0, description="characters of profile facts in a prompt at most")

    @field_validator("quotas", "weights", "caps", mode="before")
    @classmethod
    def _over_the_defaults(cls, value: Any, info: ValidationInfo) -> Any:
        """A partial table (``[retrieval.quotas] temporary = 5``) keeps the other layers' defaults."""
        if isinstance(value, dict):
            default = cls.model_fields[str(info.field_name)].get_default(call_default_factory=True)
            return {**default, **value}
        return value

    @model_validator(mode="after")
    def _known_layers(self) -> RetrievalConfig:
        for name, table in (("quotas", self.quotas), ("weights", self.weights), ("caps", self.caps)):
            unknown = sorted(set(table) - set(LAYER_NAMES))
            if unknown:
                raise ValueError(f"{name}: unknown layers {unknown}")
            if any(value < 0 for value in table.values()):
                raise ValueError(f"{name}: values must be >= 0")
        return self


EmbeddingProvider = Literal["use-e5", "use-multilingual", "huggingface"]
"""The embedders: USE + multilingual-E5 (the default), USE alone (the cheap one), or a local
sentence-transformers model (the ``huggingface`` extra)."""


class EmbeddingConfig(Section):
    """Which embedding model."""

    provider: EmbeddingProvider = Field(
        "use-e5", description="use-e5 (default), use-multilingual (cheap) or huggingface"
    )
    model_name: str = Field("use-multilingual-v3", min_length=1, description="huggingface: model or folder")
    batch_size: Int = Field(64, ge=1, description="texts per embedding batch")
    threads: Int = Field(1, ge=1, description="CPU threads of the USE encoder")
    allow_download: Bool = Field(False, description="huggingface: allow hub downloads")
    _owner: Any = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        """Equal settings (the back-reference to the owning config is not compared: it loops)."""
        if not isinstance(other, EmbeddingConfig):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    @property
    def persist_dir(self) -> str:
        """Deprecated: the top-level ``data_dir``."""
        warnings.warn("embedding.persist_dir is deprecated; use data_dir", DeprecationWarning, stacklevel=2)
        return str(self._owner.data_dir) if self._owner is not None else ""

    @persist_dir.setter
    def persist_dir(self, value: str) -> None:
        warnings.warn("embedding.persist_dir is deprecated; use data_dir", DeprecationWarning, stacklevel=2)
        if self._owner is not None:
            self._owner.data_dir = value


class StoreConfig(Section):
    """The Chroma vector index: embedded (persistent) or a Chroma server (http)."""

    record: RecordKind = Field(RecordKind.SQLITE, description="system of record: sqlite or postgres")
    postgres_dsn: SecretStr = Field(
        SecretStr(""), description="postgres record: libpq URL, e.g. postgresql://bot@db.internal/memory"
    )
    mode: StoreMode = Field(StoreMode.PERSISTENT, description="persistent or http")
    host: str = Field("127.0.0.1", min_length=1, description="http mode: server host")
    port: Int = Field(8000, gt=0, lt=65536, description="http mode: server port")
    ssl: Bool = Field(False, description="http mode: use https")
    headers: dict[str, str] = Field(default_factory=dict, description="http mode: extra headers")
    postgres_vacuum_on_erase: Bool = Field(
        False, description="postgres: VACUUM FULL the persona's tables after an erase (rows out of its files)"
    )
    sqlite_synchronous: str = Field("NORMAL", pattern="(?i)^(normal|full|extra)$", description="SQLite sync")
    hnsw_ef_search: Int = Field(200, ge=2, le=100_000, description="HNSW search breadth")
    hnsw_ef_construction: Int = Field(100, ge=2, description="HNSW build breadth")
    hnsw_max_neighbors: Int = Field(32, ge=2, description="HNSW links per node")
    hnsw_sync_threshold: Int = Field(
        200,
        ge=2,
        description="vector writes between two saves of a new collection's index (what a start replays)",
    )
    call_timeout_seconds: Float = Field(10.0, gt=0, description="longest wait for one vector index call")
    malloc_arena_max: Int = Field(2, ge=0, description="embedded: cap glibc malloc arenas (0: leave as is)")
    scrub_freed_memory: Bool = Field(True, description="glibc overwrites freed memory (no stale text)")
    breaker_failure_threshold: Int = Field(1, ge=1, description="failures before degrading")
    breaker_initial_backoff_seconds: Float = Field(1.0, gt=0, description="first wait before a probe")
    breaker_max_backoff_seconds: Float = Field(60.0, gt=0, description="longest wait between probes")


class ServerConfig(Section):
    """``python -m memory serve``: the REST, MCP and inspector server."""

    host: str = Field("127.0.0.1", min_length=1, description="address to bind (loopback by default)")
    port: Int = Field(8765, gt=0, lt=65536, description="port to bind")
    api_key: SecretStr = Field(SecretStr(""), description="required on every route when set")
    max_body_bytes: Int = Field(1_048_576, ge=1024, description="larger request bodies get 413")
    recent_retrievals: Int = Field(20, ge=0, description="retrievals per user the inspector shows")
    body_timeout_seconds: Float = Field(30.0, gt=0, le=3600, description="a stalled request body: 408")
    allow_open_bind: Bool = Field(False, description="serve beyond loopback with no key (a warning; unsafe)")
    max_connections: Int = Field(200, ge=1, le=100_000, description="open connections at most; then 503")
    max_connections_per_client: Int = Field(
        50, ge=1, le=100_000, description="open connections of one IP address at most; then 503"
    )
    header_timeout_seconds: Float = Field(
        10.0, gt=0, le=3600, description="a request's headers must arrive within this: else closed"
    )
    max_bodies_per_key: Int = Field(
        8, ge=1, le=100_000, description="request bodies one key may be sending at once; then 429"
    )

    @field_validator("api_key")
    @classmethod
    def _key_not_blank(cls, value: SecretStr) -> SecretStr:
        key = value.get_secret_value()
        if key and (not key.strip() or key != key.strip()):
            raise ValueError("must not be blank or start or end with spaces (empty: no key)")
        return value
