"""The vector index follows the configured embedding model: a store built by one model and opened
with another is embedded again at start (real Chroma, the real USE and USE + E5 models), so its
memories are found, never a dimension error from Chroma."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from memory import MemoryConfig
from memory.index.embeddings import BLEND_PROVIDER, USE_PROVIDER, get_embeddings


def test_the_blend_matches_across_languages_and_reads_queries_as_queries() -> None:
    model = get_embeddings(MemoryConfig().embedding)
    fact, other = model.embed_documents(["我对花生过敏，吃一点就起疹子。", "周末去公园散步了，挺开心的。"])
    question = model.embed_query("What food am I allergic to?")
    assert len(question) == 896 and abs(float(np.linalg.norm(question)) - 1.0) < 1e-6
    assert float(np.dot(question, fact)) > float(np.dot(question, other)) + 0.1
    dialogue = model.embed_queries(["你好呀", "What food am I allergic to?"])  # type: ignore[attr-defined]
    assert np.allclose(dialogue[1], question, atol=1e-5)
    with ThreadPoolExecutor(1) as threads:  # E5's half on a thread, USE's on the caller's
        halves = model.embed_queries_soon(["你好呀", "What food am I allergic to?"], threads)()  # type: ignore[attr-defined]
    assert np.allclose(halves, dialogue, atol=1e-6)


def test_a_store_built_by_another_model_is_embedded_again_at_start(
    make_manager, config: MemoryConfig
) -> None:
    config.embedding.provider = USE_PROVIDER
    old = make_manager(config)
    old.record_interaction_sync(user_input="我对花生过敏，吃一点就起疹子。", response="记住啦", user_id="u1")
    old.remember("I keep a cat named Mochi.", user_id="u1")
    old.flush()
    old.close()

    config.embedding.provider = BLEND_PROVIDER
    new = make_manager(config)
    assert new.debug_state()["embedding_model"].startswith(BLEND_PROVIDER)
    found = new.retrieve_memories("我的猫叫什么名字？", user_id="u1", top_k=3).memories
    assert any("Mochi" in m.entry.content for m in found)
    new.close()

    config.embedding.provider = USE_PROVIDER  # and back again
    back = make_manager(config)
    found = back.retrieve_memories("What is my cat called?", user_id="u1", top_k=3).memories
    assert any("Mochi" in m.entry.content for m in found)
