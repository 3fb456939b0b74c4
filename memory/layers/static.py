"""StaticLayer: the persona's preset memories, shared by every user, never decayed or forgotten.

Every ``.txt``/``.md`` file in ``personas/<persona>/static_memories/`` gives one memory per
paragraph (blank-line separated); a ``.json`` file gives a list of strings or
``{"content": ..., "tags": [...]}`` objects. Ids derive from content, so loading twice adds
nothing; memories removed from the files are removed from the layer on the next load.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from memory.domain.persona import STATIC_DIR
from memory.domain.types import SHARED_SCOPE, IndexState, Layer, MemoryEntry, RetrievedMemory
from memory.errors import StaticMemoryError
from memory.index.exact import closest, unit_matrix
from memory.index.scoped import ScopedStores
from memory.index.vector import Vector
from memory.index.vectors import VectorStore
from memory.layers.rag import Early, Fetched, RagLayer
from memory.record import keyword
from memory.record.entries import EntryTable

logger = logging.getLogger(__name__)

TEXT_SUFFIXES = {".txt", ".md"}
MAX_FILE_BYTES = 1_000_000
"""The largest static memory file read (a persona's preset memories are a few kilobytes)."""
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class StaticMemory:
    """One preset memory read from a file."""

    content: str
    tags: tuple[str, ...]
    source: str

    @property
    def id(self) -> str:
        """Content-derived id: the same text always gets the same id."""
        return "static-" + hashlib.sha256(self.content.encode("utf-8")).hexdigest()[:32]


def _read_text(path: Path, folder: Path) -> str:
    """The text of a memory file that is a regular file inside the persona's folder.

    Raises:
        StaticMemoryError: a link out of the folder or in a loop, not a regular file (a folder,
            a FIFO, a device), over :data:`MAX_FILE_BYTES`, or not UTF-8.
    """
    try:
        real = path.resolve(strict=True)
        info = real.stat()
    except (OSError, RuntimeError) as exc:
        raise StaticMemoryError(f"{path}: cannot be read ({exc})") from exc
    if not real.is_relative_to(folder.resolve()):
        raise StaticMemoryError(f"{path}: links outside the persona folder (to {real}); copy the file in")
    if not stat.S_ISREG(info.st_mode):
        raise StaticMemoryError(f"{path}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise StaticMemoryError(f"{path}: {info.st_size} bytes; a memory file holds at most {MAX_FILE_BYTES}")
    try:
        return real.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise StaticMemoryError(f"{path}: not UTF-8 text ({exc})") from exc
    except OSError as exc:
        raise StaticMemoryError(f"{path}: cannot be read ({exc})") from exc


def read_static_memories(folder: Path) -> list[StaticMemory]:
    """Parse every memory file of a folder (sorted by name).

    Raises:
        StaticMemoryError: a file is not UTF-8, not valid JSON, has entries of the wrong shape,
            or is not a regular file inside the folder (see :func:`_read_text`).
    """
    memories: list[StaticMemory] = []
    if not folder.is_dir():
        return memories
    for path in sorted(folder.iterdir()):
        suffix = path.suffix.lower()
        if suffix not in TEXT_SUFFIXES and suffix != ".json":
            continue
        text = _read_text(path, folder)
        if suffix == ".json":
            memories.extend(_parse_json(path, text))
        else:
            memories.extend(
                StaticMemory(" ".join(p.strip().splitlines()).strip(), (), path.name)
                for p in _PARAGRAPH.split(text)
                if p.strip() and not _is_heading_only(p)
            )
    return memories


def _is_heading_only(paragraph: str) -> bool:
    lines = [line for line in paragraph.strip().splitlines() if line.strip()]
    return all(line.lstrip().startswith("#") for line in lines)


def _parse_json(path: Path, text: str) -> list[StaticMemory]:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StaticMemoryError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    except RecursionError as exc:
        raise StaticMemoryError(f"{path}: JSON nested too deeply") from exc
    if not isinstance(raw, list):
        raise StaticMemoryError(f"{path}: expected a JSON list of strings or objects")
    found: list[StaticMemory] = []
    for index, item in enumerate(raw):
        if isinstance(item, str):
            content, tags = item, []
        elif isinstance(item, dict) and isinstance(item.get("content"), str):
            content, tags = item["content"], item.get("tags", [])
        else:
            raise StaticMemoryError(
                f"{path}: item {index} must be a string or an object with a 'content' string"
            )
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise StaticMemoryError(f"{path}: item {index} 'tags' must be a list of strings")
        if content.strip():
            found.append(StaticMemory(content.strip(), tuple(tags), path.name))
    return found


class StaticLayer(RagLayer):
    """The preset persona memories."""

    layer = Layer.STATIC
    shared = True

    def __init__(
        self, entries: EntryTable, stores: ScopedStores, folder: Path, now: Callable[[], datetime]
    ) -> None:
        super().__init__(entries, stores, now)
        self.folder = folder
        self._matrix: tuple[list[MemoryEntry], np.ndarray] | None = None
        self._texts: dict[str, str] | None = None

    @property
    def store(self) -> VectorStore:
        """The one collection of the layer (shared by every user)."""
        return self.stores.for_scope(SHARED_SCOPE)

    def load(self) -> int:
        """Sync the layer with the files; returns how many memories are new.

        Raises:
            StaticMemoryError: a file is malformed (nothing is changed then).
        """
        if not self.folder.is_dir():
            logger.warning("persona has no %s folder at %s: no static memories", STATIC_DIR, self.folder)
        memories = {m.id: m for m in read_static_memories(self.folder)}
        known = {e.id for e in self.entries()}
        created = self.now()
        new = [
            MemoryEntry(m.id, self.layer, m.content, created, tags=m.tags, source=m.source)
            for i, m in memories.items()
            if i not in known
        ]
        removed = sorted(known - set(memories))
        with self.table.db.transaction() as conn:
            self.table.insert(conn, new, IndexState.PENDING)
            self.table.delete(conn, self.layer, removed)
        if removed:
            self.store.delete(removed)
        self._matrix = None
        self._texts = None
        return len(new)

    def dense_ranking(
        self,
        vector: Vector,
        depth: int,
        user_id: str | None,
        tick: int,
        *,
        read: Fetched | None = None,
        early: Early | None = None,
    ) -> list[RetrievedMemory]:
        """Exact cosine search over the preset memories, held in memory (they are few and fixed;
        a shared layer is never searched ``early``)."""
        if depth <= 0:
            return []
        held = self._held()
        if held is None:
            return super().dense_ranking(vector, depth, user_id, tick, read=read)
        entries, matrix = held
        if not entries:
            return []
        return [RetrievedMemory(entries[i], score, score, 1.0) for i, score in closest(matrix, vector, depth)]

    def fetch(self, ids: Sequence[str], user_id: str | None) -> Fetched:
        """Preset memories by id with their vectors, from memory once they are held there (every
        retrieval reads the ones its keywords match)."""
        held = self._held()
        if held is None:
            return super().fetch(ids, user_id)
        entries, matrix = held
        wanted = set(ids)
        rows = [(i, entry) for i, entry in enumerate(entries) if entry.id in wanted]
        return Fetched([entry for _, entry in rows], {entry.id: matrix[i] for i, entry in rows}, set())

    def keyword_ranking(
        self,
        index: keyword.KeywordIndex,
        terms: set[str],
        depth: int,
        user_id: str | None,
        *,
        with_cold: bool = False,
        extra: set[str] | None = None,
    ) -> list[tuple[str, float]]:
        """``(id, score)``: an in-memory keyword ranking (idf of the matched words, ``extra`` ones
        too): a full-table FTS match would cost as much as the whole store to find a few preset
        memories (never cold)."""
        terms = terms | (extra or set())
        if depth <= 0 or not terms:
            return []
        if self._texts is None:
            self._texts = {e.id: e.index_text.lower() for e in self.entries()}
        matched = {i: {t for t in terms if t in text} for i, text in self._texts.items()}
        df = {t: sum(1 for found in matched.values() if t in found) for t in terms}
        total = len(self._texts)
        scores = {i: sum(math.log(1 + total / df[t]) for t in found) for i, found in matched.items() if found}
        return sorted(scores.items(), key=lambda item: item[1], reverse=True)[:depth]

    def _held(self) -> tuple[list[MemoryEntry], np.ndarray] | None:
        """The memories and their unit vectors held in memory (loaded once), or None while the
        store has not embedded them all (the store answers until it has)."""
        if self._matrix is None:
            self._matrix = self._load_matrix()
        return self._matrix

    def _load_matrix(self) -> tuple[list[MemoryEntry], np.ndarray] | None:
        entries = self.entries()
        if any(e.provisional for e in entries):
            return None  # not enriched yet: use the store (its scores are scaled) until it is
        vectors = self.store.vectors([e.id for e in entries]) if entries else {}
        if len(vectors) < len(entries):
            return None  # not indexed yet: use the store until it is
        if not entries:
            return [], np.zeros((0, 0), dtype=np.float32)
        return entries, unit_matrix([vectors[e.id] for e in entries])

    def metadata(self, entry: MemoryEntry) -> dict[str, str | int | float | bool]:
        """Static memories carry no scope: every user shares them."""
        return {"scope": SHARED_SCOPE}
