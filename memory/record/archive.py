"""MemoryArchive: an append-only JSONL file per persona of everything forgotten or cleaned.

People can read it; the engine only appends to it. Each line is one forgetting of an entry, with
its final significance, the reason (``forgotten`` or ``cleanup``) and the time; the memory itself
stays searchable in the cold tier. A line that cannot be parsed is skipped with a warning when
read, and left in place; only a cut last line is set aside before the next append.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ArchivedMemory:
    """One archived entry as written to the JSONL file."""

    id: str
    layer: str
    content: str
    created_at: datetime
    archived_at: datetime
    significance: float
    reason: str
    user_id: str | None = None
    note: str | None = None

    def to_json(self) -> str:
        """One JSONL line (no trailing newline)."""
        return json.dumps(
            {
                "id": self.id,
                "layer": self.layer,
                "user_id": self.user_id,
                "content": self.content,
                "note": self.note,
                "created_at": self.created_at.isoformat(),
                "archived_at": self.archived_at.isoformat(),
                "significance": round(self.significance, 6),
                "reason": self.reason,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, line: str) -> ArchivedMemory:
        """Parse one line; raises ``ValueError``/``KeyError`` on a malformed line."""
        raw = json.loads(line)
        return cls(
            id=str(raw["id"]),
            layer=str(raw["layer"]),
            content=str(raw["content"]),
            created_at=datetime.fromisoformat(raw["created_at"]),
            archived_at=datetime.fromisoformat(raw["archived_at"]),
            significance=float(raw["significance"]),
            reason=str(raw["reason"]),
            user_id=raw.get("user_id"),
            note=raw.get("note"),
        )


class MemoryArchive:
    """The archive file of one persona."""

    def __init__(self, archive_dir: Path, persona: str) -> None:
        self.path = archive_dir / f"{persona}.jsonl"
        self._lock = threading.Lock()

    def append(self, memories: Iterable[ArchivedMemory]) -> int:
        """Append lines and fsync; returns how many were written."""
        lines = [m.to_json() + "\n" for m in memories]
        if not lines:
            return 0
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._mend_torn_tail()
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write("".join(lines))
                handle.flush()
                os.fsync(handle.fileno())
        return len(lines)

    def remove(self, drop: Callable[[ArchivedMemory], bool]) -> int:
        """Rewrite the file without the records ``drop`` selects: a temp file, fsync, rename, so
        a crash leaves the old file or the new one, never half of it. Unreadable lines stay as
        they are. Returns how many records went."""
        with self._lock:
            if not self.path.exists():
                return 0
            kept: list[str] = []
            removed = 0
            text = self.path.read_text(encoding="utf-8", errors="surrogateescape")
            for line in text.splitlines(keepends=True):
                try:
                    record = ArchivedMemory.from_json(line) if line.strip() else None
                except (ValueError, KeyError, TypeError):
                    record = None
                if record is not None and drop(record):
                    removed += 1
                else:
                    kept.append(line)
            if removed:
                temp = self.path.with_name(f"{self.path.name}.rewrite")
                with temp.open("w", encoding="utf-8", errors="surrogateescape") as handle:
                    handle.write("".join(kept))
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, self.path)
                folder = os.open(self.path.parent, os.O_RDONLY)
                try:
                    os.fsync(folder)
                finally:
                    os.close(folder)
            return removed

    def _mend_torn_tail(self) -> None:
        """Make the file end with a whole line before appending (a full disk or a crash may
        have cut the last write). A cut record is moved to ``<file>.torn-<time>`` (kept, never
        lost) and the file is truncated to its last whole line; the sync writes the record
        again from SQLite, where it is still waiting for the file."""
        if not self.path.exists():
            return
        with self.path.open("rb+") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            start = max(0, size - 1_048_576)
            handle.seek(start)
            tail = handle.read()
            cut = tail.rfind(b"\n") + 1 + start if b"\n" in tail else 0
            handle.seek(cut)
            torn = handle.read()
            try:
                ArchivedMemory.from_json(torn.decode("utf-8"))
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
                aside = self.path.with_name(f"{self.path.name}.torn-{stamp}")
                aside.write_bytes(torn)
                handle.truncate(cut)
                logger.warning(
                    "%s ended in a cut record (%d bytes, kept in %s); it is written again",
                    self.path,
                    len(torn),
                    aside,
                )
            else:
                handle.seek(0, os.SEEK_END)
                handle.write(b"\n")  # a whole record that only lacked its line end
            handle.flush()
            os.fsync(handle.fileno())

    def read(self) -> list[ArchivedMemory]:
        """Every readable line, oldest first; corrupt lines are skipped with a warning."""
        if not self.path.exists():
            return []
        memories: list[ArchivedMemory] = []
        with self.path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    memories.append(ArchivedMemory.from_json(line))
                except (ValueError, KeyError, TypeError) as exc:
                    logger.warning(
                        "%s line %d is not a valid archive record (%s); skipped",
                        self.path,
                        number,
                        exc,
                    )
        return memories
