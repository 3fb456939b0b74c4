"""The performance benchmark: record, retrieve, bulk import, footprint, baseline, embedders.

Every figure is measured in the same run on this machine; ``python -m bench`` prints
them as one table. Data lives in a temporary folder removed at the end (``--keep`` keeps it).
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from bench import (
    QUERIES,
    folder_bytes,
    latency_ms,
    paired_latency,
    repo_root,
    synthetic_records,
    synthetic_texts,
)
from memory.config import MemoryConfig
from memory.manager import MemoryManager
from memory.personas import SAMPLES

USER = "bench-user"
RECORD_SAMPLES = 150
DEFAULT_DECAY_RETRIEVES = 30
err = Console(stderr=True)


PROVIDER: str | None = None
"""The embedding provider every bench config uses (``--provider``; default: the engine's)."""


def make_config(folder: Path, *, capacity: int = 10, decay: float | None = None) -> MemoryConfig:
    """A default config whose state lives in ``folder``; ``decay`` overrides the temporary one."""
    config = MemoryConfig()
    if PROVIDER is not None:
        config.embedding.provider = PROVIDER  # type: ignore[assignment]
    config.personas_dir = str(SAMPLES)
    config.data_dir = str(folder / "store")
    config.archive_dir = str(folder / "archive")
    config.active.capacity = capacity
    if decay is not None:
        config.temporary.decay_coefficient = decay
    return config


def _record_phase(folder: Path, capacity: int, prefill: int) -> dict[str, float]:
    manager = MemoryManager("karin", make_config(folder, capacity=capacity))
    try:
        texts = synthetic_records(prefill + 5 + RECORD_SAMPLES, seed=11, user_id=USER)
        durations: list[float] = []
        for index, record in enumerate(texts):
            started = time.perf_counter()
            manager.record_interaction_sync(record["user_input"], record["response"], user_id=USER)
            if index >= prefill + 5:  # the active window is full (if it is to be) and warm
                durations.append(time.perf_counter() - started)
        state = manager.debug_state()
        result = latency_ms(durations)
        result["active_count"] = float(state["active_count"])
        result["temporary_count"] = float(state["temporary_count"])
        return result
    finally:
        manager.close()


def bench_record(work: Path) -> dict[str, dict[str, float]]:
    """``record_interaction_sync`` latency with active not overflowing, then overflowing."""
    calm = _record_phase(work / "record-calm", capacity=RECORD_SAMPLES + 50, prefill=0)
    full = _record_phase(work / "record-overflow", capacity=10, prefill=10)
    return {"not_overflowing": calm, "overflowing": full}


def retrieve_latency(manager: MemoryManager, repeats: int) -> dict[str, float]:
    """Retrieval p50/p95 over ``repeats`` passes of the benchmark queries for the bench user."""
    for query in QUERIES[:3]:
        manager.retrieve(query, user_id=USER)  # warm-up
    durations: list[float] = []
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            manager.retrieve(query, user_id=USER)
            durations.append(time.perf_counter() - started)
    return latency_ms(durations)


ENRICH_UP_TO = 10_000
"""Largest store whose enrichment the bench waits for (E5 stores about 45 memories/s on 2
cores: 100,000 would take over half an hour); larger ones are timed on their cheap vectors."""
E5_SAMPLE = 500


def _import(manager: MemoryManager, size: int) -> dict[str, float]:
    """Import until searchable (``import_interactions`` flushes the cheap tier), then, up to
    :data:`ENRICH_UP_TO`, until enriched (``flush(enrich=True)``)."""
    marks = {"done": 0, "next": max(size // 10, 1)}

    def progress(batch: int) -> None:
        marks["done"] += batch
        if size >= 10_000 and marks["done"] >= marks["next"]:
            err.log(f"  imported {marks['done']:,}/{size:,}")
            marks["next"] += max(size // 10, 1)

    batch = 2000 if size >= 10_000 else 500
    started = time.perf_counter()
    report = manager.import_interactions(
        synthetic_records(size, user_id=USER), batch_size=batch, progress=progress
    )
    manager.flush()
    searchable = time.perf_counter() - started
    result = {"imported": float(report.imported), "seconds": searchable, "rate": report.imported / searchable}
    unenriched = manager.debug_state()["store"]["pending_enrichment"]
    if size <= ENRICH_UP_TO and unenriched:
        started = time.perf_counter()
        manager.flush(enrich=True)
        result["enrich_seconds"] = time.perf_counter() - started
        result["enriched"] = float(unenriched)
        result["enrich_rate"] = unenriched / result["enrich_seconds"]
    return result


def _embedder_rates(manager: MemoryManager) -> dict[str, float]:
    """Texts/s of the engine's embedders alone on what the import embedded (index texts of the
    stored interactions, one batched call each): the cheap tier (the limit of an import until
    searchable) and E5 (the limit of enrichment), when the embedder has two tiers."""
    from memory.domain.types import Layer
    from memory.index.embeddings import tiered
    from memory.layers.layer_index import EMBED_MAX_CHARS

    entries = manager.inspector.entries(Layer.TEMPORARY, USER)[:2000]
    texts = [e.index_text[:EMBED_MAX_CHARS] for e in entries]
    embeddings = manager._engine.embeddings
    tiers = tiered(embeddings)
    started = time.perf_counter()
    if tiers is None:
        embeddings.embed_documents(texts)
    else:
        tiers.embed_cheap(texts)
    rates = {"cheap_rate": len(texts) / (time.perf_counter() - started)}
    if tiers is not None:
        sample = texts[:E5_SAMPLE]
        pool = embeddings._e5  # type: ignore[attr-defined]
        started = time.perf_counter()
        pool.encode(sample, as_query=False)
        rates["e5_rate"] = len(sample) / (time.perf_counter() - started)
    return rates


def bench_size(work: Path, size: int, repeats: int) -> dict[str, Any]:
    """Import ``size`` interactions, then time retrieval in the engine and in the flat baseline."""
    from bench.flat import FlatBaseline, engine_hnsw, raw_query_latency

    folder = work / f"size-{size}"
    config = make_config(folder, decay=1.0)
    manager = MemoryManager("karin", config)
    baseline: FlatBaseline | None = None
    try:
        err.log(f"size {size:,}: importing")
        imported = _import(manager, size)
        state = manager.debug_state()
        imported.update(_embedder_rates(manager))
        imported["enriched_before_retrieval"] = float(not state["store"]["pending_enrichment"])
        parts = manager._engine  # the bench reads the engine's own collections to copy them
        backend = parts.backend
        names = [name for rag in parts.layers.rag.values() for name in rag.stores.names_of(USER)]
        collections = [backend.collection(name) for name in names]
        baseline = FlatBaseline(folder / "flat", parts.embeddings, engine_hnsw(config.store))
        copied, copy_seconds = baseline.copy_from(collections)
        k = sum(int(v) for v in config.retrieval.quotas.values())
        flat_store = baseline.store
        err.log(f"size {size:,}: {imported['rate']:,.0f}/s; flat baseline holds {copied:,}; timing both")
        timed = paired_latency(
            {
                "engine": lambda query: manager.retrieve(query, user_id=USER),
                "flat": lambda query: flat_store.similarity_search(query, k=k),
            },
            QUERIES,
            repeats,
        )
        engine, flat = timed["engine"], timed["flat"]
        vectors = parts.embeddings.embed_documents(list(QUERIES))
        first = next(iter(parts.layers.rag.values())).stores  # its larger collection, cheap or full
        temporary = max((backend.collection(n) for n in first.names_of(USER)), key=lambda c: c.count())
        quota = int(config.retrieval.quotas["temporary"])
        raw_plain = raw_query_latency(temporary, vectors, quota)
    finally:
        manager.close()
        if baseline is not None:
            baseline.close()
    engine_bytes = folder_bytes(Path(config.data_dir), Path(config.archive_dir))
    return {
        "size": size,
        "import": imported,
        "temporary_count": state["temporary_count"],
        "static_count": state["static_count"],
        "engine": engine,
        "flat": flat,
        "flat_count": copied,
        "flat_copy_seconds": copy_seconds,
        "ratio_p50": engine["p50"] / flat["p50"] if flat["p50"] else 0.0,
        "raw_temporary_plain": raw_plain,
        "disk_bytes": engine_bytes,
        "disk_bytes_per_1k": engine_bytes / (size / 1000),
        "flat_disk_bytes": folder_bytes(folder / "flat"),
        "peak_rss_mb": peak_rss_mb(),
    }


LONG_QUERY_RUNS = 5
LONG_QUERY_CHARS = "我你他的是在有不了人这中大为上个国以要到时来用们生作地于出就分对成会可"


def bench_default_decay(work: Path, size: int = 1000) -> dict[str, float]:
    """Retrieve p50 with the default decay (0.95) on a fresh store, before the forget horizon."""
    manager = MemoryManager("karin", make_config(work / "default-decay"))
    try:
        _import(manager, size)
        durations: list[float] = []
        for query in QUERIES[:DEFAULT_DECAY_RETRIEVES]:
            started = time.perf_counter()
            manager.retrieve(query, user_id=USER)
            durations.append(time.perf_counter() - started)
        result = latency_ms(durations)
        result["temporary_count_after"] = float(manager.debug_state()["temporary_count"])
        rng = random.Random(5)  # a pasted page: as long as max_text_chars allows
        page = "".join(rng.choice(LONG_QUERY_CHARS) for _ in range(manager.config.max_text_chars))
        long_runs: list[float] = []
        for _ in range(LONG_QUERY_RUNS):
            started = time.perf_counter()
            manager.retrieve(page, user_id=USER)
            long_runs.append(time.perf_counter() - started)
        result["long_query_p50"] = latency_ms(long_runs)["p50"]
        result["long_query_chars"] = float(len(page))
        return result
    finally:
        manager.close()


def bench_embeddings(quick: bool) -> dict[str, dict[str, Any]]:
    """Batched sentences/s, single-query ms and load time of each installed provider."""
    import random

    from langchain_core.embeddings import Embeddings

    from memory.config import EmbeddingConfig
    from memory.index.e5 import BlendedEmbeddings
    from memory.index.embeddings import (
        BLEND_PROVIDER,
        HF_PROVIDER,
        PACKAGED_MINILM,
        USE_PROVIDER,
        get_embeddings,
    )
    from memory.index.use import UniversalSentenceEncoderEmbeddings

    rng = random.Random(3)
    sentences = [synthetic_texts(rng)[0] for _ in range(500 if quick else 2000)]
    providers = {
        "use-e5 (the default: USE + E5)": EmbeddingConfig(),
        "use-multilingual (USE alone)": EmbeddingConfig(provider=USE_PROVIDER),
        "huggingface (packaged MiniLM)": EmbeddingConfig(provider=HF_PROVIDER, model_name=PACKAGED_MINILM),
    }
    results: dict[str, dict[str, Any]] = {}
    for name, config in providers.items():
        try:
            started = time.perf_counter()
            model: Embeddings
            if config.provider == HF_PROVIDER:
                model = get_embeddings(config)
            else:  # the engine already holds the cached one: time a fresh load
                model = UniversalSentenceEncoderEmbeddings(
                    threads=config.threads, batch_size=config.batch_size
                )
                if config.provider == BLEND_PROVIDER:
                    model = BlendedEmbeddings(model)
            model.embed_query("warm-up 热身")
            load = time.perf_counter() - started
        except Exception as exc:
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        started = time.perf_counter()
        model.embed_documents(sentences)
        batched = len(sentences) / (time.perf_counter() - started)
        singles: list[float] = []
        for query in QUERIES:
            started = time.perf_counter()
            model.embed_query(query)
            singles.append(time.perf_counter() - started)
        results[name] = {"load_seconds": load, "batched_per_s": batched, "single": latency_ms(singles)}
    return results


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (``ru_maxrss`` is KiB on Linux)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def run(
    sizes: list[int], *, repeats: int, quick: bool, keep: bool, mem0: bool, mem0_site: Path | None
) -> dict[str, Any]:
    """Measure everything in a temporary folder under ``data/`` and return the figures."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    base = repo_root() / "data"
    base.mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-", dir=base))
    started = time.perf_counter()
    results: dict[str, Any] = {"sizes": sizes, "repeats": repeats, "queries": len(QUERIES), "quick": quick}
    results["machine"] = {"cpus": os.cpu_count(), "load_start": os.getloadavg()}
    try:
        err.log("record latency")
        results["record"] = bench_record(work)
        results["retrieve"] = [bench_size(work, size, repeats) for size in sizes]
        err.log("default-decay retrieval (1k)")
        results["default_decay_1k"] = bench_default_decay(work)
        results["peak_rss_mb_engine"] = peak_rss_mb()
        err.log("embedding throughput")
        results["embeddings"] = bench_embeddings(quick)
        if mem0:
            from bench.mem0_probe import run_mem0

            err.log("mem0")
            results["mem0"] = run_mem0(work / "mem0", quick=quick, site=mem0_site)
        else:
            results["mem0"] = {"status": "skipped", "reason": "--no-mem0"}
        results["peak_rss_mb"] = peak_rss_mb()
    finally:
        if keep:
            err.log(f"data kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    results["wall_seconds"] = time.perf_counter() - started
    results["machine"]["load_end"] = os.getloadavg()
    return results
