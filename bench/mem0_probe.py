"""mem0 (``mem0ai``) as a comparison point, fully offline, when it is importable.

mem0 runs here only with ``infer=False`` (raw memories, no LLM fact extraction), its Chroma
vector store, telemetry off and a local embedder: the engine's own USE embedder through a small
adapter, so the comparison is about the memory layer, not the model. ``Memory()`` always builds
its LLM client (OpenAI by default) even when nothing calls it, and that client refuses to start
without an API key: a dummy key is set for the process if none is; with ``infer=False`` no LLM
request is ever made. Anything that fails is reported as the row's reason, never raised.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from bench import QUERIES, latency_ms, synthetic_records

USER = "bench-user"
DUMMY_KEY = "sk-offline-not-used"


class _Adapter:
    """mem0's embedder interface (``embed`` / ``embed_batch``) over a LangChain ``Embeddings``."""

    def __init__(self, model: Any, dims: int) -> None:
        self.model = model
        self.config = type("EmbedderConfig", (), {"embedding_dims": dims, "model": "use-multilingual"})()

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        """One vector."""
        return list(self.model.embed_query(text))

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        """Many vectors."""
        return [list(v) for v in self.model.embed_documents(list(texts))]


def _import_mem0(folder: Path, site: Path | None) -> Any:
    if site is not None and str(site) not in sys.path:
        sys.path.append(str(site))  # appended: the project's own packages keep precedence
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(folder / "mem0-home"))  # mem0 writes ~/.mem0 at import
    from mem0 import Memory

    return Memory


def run_mem0(folder: Path, *, quick: bool, site: Path | None = None) -> dict[str, Any]:
    """Time ``Memory.add(infer=False)`` and ``Memory.search`` offline; a reason if impossible.

    Returns ``{"status": "ok" | "unavailable" | "failed", ...}`` with ``add`` and ``search``
    latencies (ms) and the number of memories searched when it ran.
    """
    folder.mkdir(parents=True, exist_ok=True)
    try:
        memory_class = _import_mem0(folder, site)
    except ImportError as exc:
        return {
            "status": "unavailable",
            "reason": (
                f"mem0ai is not installed here ({exc}). mem0ai 2.2.1 does run offline with "
                "infer=False, chroma, a local embedder and a dummy OPENAI_API_KEY; it wants "
                "protobuf<7 (this venv has 7.x), so install it apart: pip install --target DIR "
                "--no-deps mem0ai openai jiter posthog backoff pytz qdrant-client portalocker h2 "
                "hpack hyperframe SQLAlchemy, then pass --mem0-site DIR"
            ),
        }
    except Exception as exc:  # e.g. a dependency clash at import time
        return {"status": "failed", "reason": f"import mem0: {type(exc).__name__}: {exc}"}
    import mem0

    version = str(getattr(mem0, "__version__", "?"))
    from memory.config import EmbeddingConfig
    from memory.index.embeddings import get_embeddings

    model = get_embeddings(EmbeddingConfig())
    dims = len(model.embed_query("维度"))
    key_was_set = "OPENAI_API_KEY" in os.environ
    os.environ.setdefault("OPENAI_API_KEY", DUMMY_KEY)
    config = {
        "vector_store": {
            "provider": "chroma",
            "config": {"collection_name": "bench", "path": str(folder / "chroma")},
        },
        "embedder": {"provider": "openai", "config": {"embedding_dims": dims}},
        "history_db_path": str(folder / "history.db"),
    }
    count = 100 if quick else 1000
    stage = "Memory.from_config"
    try:
        memory = memory_class.from_config(config)
        memory.embedding_model = _Adapter(model, dims)  # the engine's embedder, no download
        stage = "Memory.add(infer=False)"
        adds: list[float] = []
        for record in synthetic_records(count, seed=23, user_id=USER):
            text = f"{record['user_input']}\n{record['response']}"
            started = time.perf_counter()
            memory.add(text, user_id=USER, infer=False)
            adds.append(time.perf_counter() - started)
        stage = "Memory.search"
        searches: list[float] = []
        for query in QUERIES[:3]:
            memory.search(query, filters={"user_id": USER}, top_k=7)  # warm-up
        for _ in range(1 if quick else 2):
            for query in QUERIES:
                started = time.perf_counter()
                memory.search(query, filters={"user_id": USER}, top_k=7)
                searches.append(time.perf_counter() - started)
    except Exception as exc:
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return {
            "status": "failed",
            "version": version,
            "reason": f"{stage}: {type(exc).__name__}: {exc} (at {Path(last.filename).name}:{last.lineno})",
        }
    finally:
        if not key_was_set:
            os.environ.pop("OPENAI_API_KEY", None)
    return {
        "status": "ok",
        "version": version,
        "memories": count,
        "add": latency_ms(adds),
        "search": latency_ms(searches),
        "add_per_s": count / sum(adds) if adds else 0.0,
        "note": (
            "infer=False (no LLM); chroma store; engine's USE embedder via an adapter; "
            "dummy OPENAI_API_KEY only because Memory() builds its unused LLM client"
        ),
    }
