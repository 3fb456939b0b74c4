"""Export and import of a persona's memory: every memory of every layer and tier, exactly.

An export is JSON Lines. The first line is a header ``{"type": "header", "format": "persona-memory-export",
"version": 1, "persona": ..., "exported_at": ..., "users": [...]}``; then one object per row,
``"type"`` naming it: ``memory`` (any layer or tier, with its significance, the tick it was
last set at, timestamps, pinned flag, store key and value, importance, note; ``"tier"`` is
``hot`` or ``cold`` for readers), ``interaction`` (the verbatim journal), ``profile`` (facts,
superseded ones included) and ``clock`` (each user's decay tick). Times are epoch seconds, so
a round trip is exact. The persona's own (static) memories live in its files, not in exports.

Importing an export into a folder that holds none of its users gives the same ``retrieve()``
results as the original once the vectors are rebuilt and enriched (``flush(enrich=True)``): same
rows, same ticks; the vectors and the archive file are rebuilt from them (a search over a large
user's graph is approximate, as it was before).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from memory.domain import tokens
from memory.domain.types import SHARED_SCOPE, Layer, scope_of, user_of
from memory.domain.validation import check_user_id
from memory.engine import Engine
from memory.errors import ImportFileError, InvalidInputError, MemoryEngineError
from memory.record.db import CLOCK_COLUMNS
from memory.write.importer import check_file, erased_users, read_jsonl

FORMAT = "persona-memory-export"
VERSION = 1
KINDS = ("interaction", "memory", "profile", "clock")


def _scopes(engine: Engine) -> list[str]:
    """Every scope that holds anything of this persona's users (the shared scope included)."""
    found = set(engine.journal.scopes()) | set(engine.db.clock_scopes())
    for layer in Layer:
        if layer != Layer.STATIC:
            found |= set(engine.entries.scopes(layer))
    found |= set(engine.profile.scopes())
    return sorted(found)


def _rows(engine: Engine, scopes: list[str]) -> Iterator[dict[str, Any]]:
    for row in engine.journal.exported(scopes):
        yield {"type": "interaction", **row}
    for row in engine.entries.exported(scopes):
        yield {"type": "memory", "tier": "cold" if row["layer"] == Layer.ARCHIVED.value else "hot", **row}
    for row in engine.profile.exported(scopes):
        yield {"type": "profile", **row}
    for row in engine.db.rows("clock", CLOCK_COLUMNS, scopes, ordered=False):
        yield {"type": "clock", **row}


def export(engine: Engine, path: Path | TextIO, *, user_id: str | None, every_user: bool) -> int:
    """Write the memory of one user (``every_user`` false) or of all to ``path``: a file (temp
    file beside it, fsync, rename: never half a file; a symlink is written through to its
    target) or an open text stream. Returns how many memories were written.

    Raises:
        InvalidInputError: ``path`` cannot be written (a missing folder, no permission, a full
            disk), or names something other than a regular file (a folder, a device, a pipe).
    """
    with engine.db.transaction(durable=False):  # one snapshot: an erase cannot land halfway
        scopes = _scopes(engine) if every_user else [scope_of(user_id)]
        rows = list(_rows(engine, scopes))
    header = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "persona": engine.persona.id,
        "exported_at": datetime.now(UTC).isoformat(),
        "users": [user_of(s) for s in scopes],
    }
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in [header, *rows])
    if not isinstance(path, Path):
        path.writelines(lines)
        path.flush()
    else:
        _write_file(path, lines)
    return sum(row["type"] == "memory" for row in rows)


def _write_file(path: Path, lines: Iterable[str]) -> None:
    """Replace the regular file ``path`` (or its symlink's target) whole, or leave it as it was."""
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        raise InvalidInputError("path", f"{path} is not a regular file; export writes only to files")
    temp = target.with_name(f"{target.name}.partial")
    try:
        with temp.open("x", encoding="utf-8") as handle:
            handle.writelines(lines)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except FileExistsError:
        raise InvalidInputError(
            "path", f"{temp} exists: another export is writing there, or one was cut short (then remove it)"
        ) from None
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise InvalidInputError("path", f"cannot write {path}: {exc.strerror or exc}") from None


def is_export(path: Path) -> bool:
    """Whether a file starts with an export header (else it is an interactions file)."""
    with check_file(path).open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline()
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(header, dict) and header.get("format") == FORMAT


def _read(path: Path) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for number, parsed in read_jsonl(path):
        if isinstance(parsed, str):
            raise ImportFileError("file", f"{path} line {number}: {parsed}")
        row = dict(parsed)
        if number == 1:
            if row.get("format") != FORMAT or row.get("version") != VERSION:
                raise ImportFileError("file", f"{path} is not a version {VERSION} export")
            continue
        kind = row.pop("type", None)
        if kind not in rows or not isinstance(row.get("scope"), str):
            raise ImportFileError("file", f"{path} line {number}: not an export row")
        _check_scope(path, number, row["scope"])
        row.pop("tier", None)
        rows[kind].append(row)
    return rows


def _check_scope(path: Path, number: int, scope: str) -> None:
    """A row's user passes the same rules as at every other entrance, spelled as they would
    leave it (an id edited to look like another user's, or like an erased one, is refused)."""
    user = user_of(scope)
    try:
        same = check_user_id(user) == user
    except MemoryEngineError as exc:
        raise ImportFileError("file", f"{path} line {number}: user id {user!r}: {exc}") from None
    if not same:
        raise ImportFileError(
            "file", f"{path} line {number}: user id {user!r} is not in its normal form "
            f"({check_user_id(user)!r}): the file was edited; nothing was imported",
        )  # fmt: skip


def _names(scopes: set[str]) -> str:
    return ", ".join("(shared)" if s == SHARED_SCOPE else repr(user_of(s)) for s in sorted(scopes))


def import_export(engine: Engine, path: Path, *, allow_erased: bool = False) -> int:
    """Restore an export in one transaction; returns how many memories. Nothing is written
    when a user of the file already has memory here, or was erased here (unless
    ``allow_erased``: an export made before an erase is a copy the erase could not reach).
    What was forgotten here one by one (``forget``) stays forgotten: the same transaction erases
    it again, with what was made of it. A user erased while the file is read is refused too.

    Raises:
        ImportFileError: not an export, a malformed line, or a user already present or erased.
    """
    started = time.time()
    rows = _read(path)
    scopes = sorted({row["scope"] for kind in KINDS for row in rows[kind]})
    present = set(_scopes(engine)) & set(scopes)
    if present:
        raise ImportFileError(
            "file", f"users {_names(present)} already have memories here; import into an empty folder"
        )
    memories = rows["memory"]
    ids = {
        str(row["id"]) for kind in ("interaction", "memory", "profile") for row in rows[kind] if "id" in row
    }
    texts = [(r.get("note"), str(r.get("content"))) for r in memories]
    tokens.prepare_rows(engine.config.retrieval.keyword_tokenizer, texts)
    tombstones = engine.eraser.tombstones
    erased = tombstones.erased(scopes)
    if erased and not allow_erased:
        raise erased_users("file", erased)
    try:
        with engine.db.transaction() as conn:  # asked again inside it: an erase comes first or waits
            again = {s for s, at in tombstones.erased(scopes, conn).items() if at >= started}
            if again:
                raise erased_users("file", again)
            forgotten = tombstones.forgotten(ids, conn)
            engine.journal.restore(conn, rows["interaction"])
            engine.entries.restore(conn, memories)
            engine.profile.restore(conn, rows["profile"])
            engine.db.insert_rows(conn, "clock", CLOCK_COLUMNS, rows["clock"])
            gone = engine.eraser.erase_restored(conn, rows, forgotten) if forgotten else set()
    except MemoryEngineError:
        raise
    except Exception as exc:  # a missing column, a wrong type, a duplicate id: the database says
        raise ImportFileError("file", f"{path}: a row does not fit ({exc}); nothing was imported") from None
    if forgotten:
        engine.db.scrub()
    engine.sync.notify()
    return len(memories) - len(gone)
