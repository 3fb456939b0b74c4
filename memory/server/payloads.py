"""What the server says about memories: plain JSON values built from the engine's types.

One shape per kind, shared by the REST routes, the MCP tools and the inspector page, so a memory
looks the same wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from memory.config import RetrievalConfig, RetrievalMode
from memory.domain.types import (
    DECAYING_LAYERS,
    RAG_LAYERS,
    Interaction,
    MemoryEntry,
    ProfileFact,
    RetrievedMemory,
)
from memory.introspection.inspection import MemoryInspector
from memory.layers.decay_rules import forget_tick, significance_at
from memory.retrieval.ranking import depth_of
from memory.retrieval.result import RetrievalResult

Json = dict[str, Any]
CURVE_TICKS = 60
"""How far ahead (in retrievals) a decay curve is drawn."""


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def entry_json(entry: MemoryEntry) -> Json:
    """A memory as stored: id, layer, text, owner, times, significance and flags."""
    return {
        "id": entry.id,
        "layer": entry.layer.value,
        "origin": None if entry.origin is None else entry.origin.value,
        "content": entry.content,
        "note": entry.note,
        "user_id": entry.user_id,
        "created_at": _iso(entry.created_at),
        "significance": entry.significance,
        "changed_at": entry.changed_at,
        "pinned": entry.pinned,
        "key": entry.key,
        "importance": entry.importance,
    }


def scored_json(memory: RetrievedMemory, weights: Mapping[str, float]) -> Json:
    """A retrieved memory with its score breakdown: ranks, fused score, similarity, layer weight,
    significance, and whether it came back from the cold tier."""
    return {
        **entry_json(memory.entry),
        "score": memory.score,
        "similarity": memory.similarity,
        "significance": memory.significance,
        "dense_rank": memory.dense_rank,
        "keyword_rank": memory.keyword_rank,
        "layer_weight": weights.get(memory.entry.layer.value),
        "revived": memory.revived,
    }


def matched_words(memory: RetrievedMemory, keywords: Mapping[str, str]) -> list[str]:
    """The retrieval's keywords a memory holds: a query word as itself, a bridged one as
    ``"query word→word"`` (``"pet→宠物"``)."""
    entry = memory.entry
    text = f"{entry.note or ''} {entry.content}".lower()
    found = sorted((source, word) for word, source in keywords.items() if word.lower() in text)
    return [word if source == word else f"{source}→{word}" for source, word in found]


def layer_caps(config: RetrievalConfig, top_k: int) -> dict[str, int]:
    """How many memories each searched layer may give a retrieval of ``top_k`` (its quota, its
    cap or ``top_k``)."""
    return {
        layer.value: depth_of(config.mode, layer, config.quotas, config.caps, top_k) for layer in RAG_LAYERS
    }


def retrieval_json(result: RetrievalResult, config: RetrievalConfig, top_k: int | None = None) -> Json:
    """What a retrieval gave: the two prompt texts, the scored memories (with the keywords each
    holds, bridged ones too), the near misses, each layer's cap and the memories it could give in
    all (``top_k``: the call's, else the config's). A layer weight is reported only in weighted
    mode, the only mode that multiplies by it."""
    weights = config.weights if config.mode == RetrievalMode.WEIGHTED else {}

    def scored(memory: RetrievedMemory) -> Json:
        return {**scored_json(memory, weights), "matched": matched_words(memory, result.keywords)}

    return {
        "mode": config.mode.value,
        "fusion": config.fusion,
        "active": result.active_text,
        "rag": result.rag_text,
        "memories": [scored(m) for m in result.memories],
        "near_misses": [scored(m) for m in result.near_misses],
        "profile": [fact_json(f) for f in result.profile],
        "degraded": result.degraded,
        "floor": None if (bar := result.floor) is None else {"dense": bar.high, "with_keywords": bar.low},
        "caps": layer_caps(config, top_k or config.top_k),
        "top_k": top_k or config.top_k,
    }


def fact_json(fact: ProfileFact) -> Json:
    """A profile fact: key, value, since when, told or extracted."""
    return {"key": fact.key, "value": fact.value, "since": _iso(fact.since), "source": fact.source}


def interaction_json(interaction: Interaction) -> Json:
    """One recorded exchange, verbatim."""
    return {
        "id": interaction.id,
        "user_input": interaction.user_input,
        "response": interaction.response,
        "timestamp": _iso(interaction.timestamp),
    }


def outlook_json(entry: MemoryEntry, inspector: MemoryInspector, tick: int) -> Json:
    """A hot memory as the inspector shows it: its significance now, the tick at which it will be
    forgotten if never recalled, and its decay curve from now on (``[tick, value]`` points)."""
    rule = inspector.decay_rule(entry.layer)
    shown = entry_json(entry)
    if rule is None or entry.pinned:
        return {**shown, "current": entry.significance, "forget_tick": None, "threshold": None, "curve": []}
    coefficient, threshold = rule
    now = significance_at(entry.significance, entry.changed_at, tick, coefficient)
    due = forget_tick(entry.significance, entry.changed_at, coefficient, threshold) if threshold else None
    end = tick + CURVE_TICKS if due is None else max(due, tick + 1)
    step = max(1, (end - tick) // 30)
    curve = [
        [t, significance_at(entry.significance, entry.changed_at, t, coefficient)]
        for t in range(tick, end + 1, step)
    ]
    return {**shown, "current": now, "forget_tick": due, "threshold": threshold or None, "curve": curve}


def hot_layers(inspector: MemoryInspector, user_id: str, tick: int) -> list[Json]:
    """Every hot memory of a user (temporary and summary), least significant first."""
    shown = [
        outlook_json(entry, inspector, tick)
        for layer in DECAYING_LAYERS
        for entry in inspector.entries(layer, user_id)
    ]
    return sorted(shown, key=lambda m: m["current"])


def cold_tier(entries: Sequence[MemoryEntry], query: str, limit: int) -> list[Json]:
    """A user's forgotten memories, newest first, those containing ``query`` when one is given."""
    needle = query.casefold().strip()
    found = [e for e in entries if not needle or needle in f"{e.note or ''}\n{e.content}".casefold()]
    found.sort(key=lambda e: e.created_at, reverse=True)
    return [entry_json(e) for e in found[:limit]]


USER_STATE = ("persona", "persona_name", "active_capacity", "static_count", "embedding_model", "user")
"""What the state shows a caller acting for one user: the persona's own figures and that user's,
no count that moves when another user writes, no path of the store."""


def one_user_state(state: Json) -> Json:
    """``debug_state()`` cut to :data:`USER_STATE` (REST and MCP, for a key of one user)."""
    return {name: state[name] for name in USER_STATE if name in state}
