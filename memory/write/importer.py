"""Bulk import of interactions (JSONL or any iterable of mappings), validated before any write."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory.domain.types import Interaction, scope_of, user_of
from memory.errors import ImportFileError, InvalidInputError, MemoryEngineError
from memory.record.db import Connection
from memory.record.tombstones import Tombstones

REQUIRED = ("user_input", "response")
_RECORD_NAMESPACE = uuid.UUID("0b6f4d0e-5f7c-4f55-9f5a-3a1f1c2c8e41")

FORMAT = """\
One JSON object per line (UTF-8); blank lines are skipped:
  user_input  (required) what the user said
  response    (required) what the persona answered
  timestamp   (optional) ISO 8601 with a zone offset, e.g. 2026-11-01T09:30:00+08:00;
              a time without a zone is refused; without a timestamp: the time of the import
  user_id     (optional) whose memory it is; absent: the persona's shared memory
Example:
  {"user_input": "我对花生过敏", "response": "记住啦，前辈～",
   "timestamp": "2026-11-01T09:30:00+08:00", "user_id": "u42"}   (one line in the file)
Importing the same records again adds nothing: a record with a timestamp gets an id derived
from its user, time and text (records without a timestamp are new each time)."""


def record_id(user_id: str | None, timestamp: datetime, user_input: str, response: str) -> str:
    """The id of an imported record: the same record always gets the same id."""
    key = json.dumps([user_id, timestamp.isoformat(), user_input, response], ensure_ascii=False)
    return str(uuid.uuid5(_RECORD_NAMESPACE, key))


@dataclass
class ImportReport:
    """What an import did: how many were stored, which lines were skipped and why."""

    imported: int = 0
    already: int = 0
    """Records already there (the same record imported before): left as they were."""
    forgotten: int = 0
    """Records forgotten here (``forget`` of the id an earlier import gave them), or of users
    erased while the import ran: not recorded."""
    skipped: list[tuple[int, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Interactions per second."""
        return self.imported / self.seconds if self.seconds > 0 else 0.0


def erased_users(argument: str, scopes: Iterable[str]) -> ImportFileError:
    """The error of an import that holds users erased here (refused unless asked)."""
    names = ", ".join(repr(user_of(scope)) for scope in sorted(scopes))
    return ImportFileError(
        argument,
        f"users {names} were erased here (forget_user); nothing was imported. "
        "To bring them back on purpose, import with allow_erased=True (CLI: --allow-erased)",
    )


class Admission:
    """Which imported interactions may be recorded: asked inside each batch's write transaction,
    so an erase that lands while an import runs is never undone by a later batch.

    Records forgotten here (``forget`` of the id an earlier import gave them) are left out and
    counted, and so are those of users erased after the import began.
    """

    def __init__(self, erased: Tombstones, interactions: list[Interaction], *, allow_erased: bool) -> None:
        """
        Raises:
            ImportFileError: some are of users erased here (``forget_user``), unless ``allow_erased``.
        """
        self.started = time.time()
        self.erased = erased
        users = erased.erased({scope_of(i.user_id) for i in interactions})
        if users and not allow_erased:
            raise erased_users("records", users)
        self.left_out = 0

    def __call__(self, conn: Connection, interactions: Sequence[Interaction]) -> list[Interaction]:
        """The interactions of a batch that may be recorded, asked through ``conn``."""
        erased = self.erased.erased({scope_of(i.user_id) for i in interactions}, conn)
        users = {scope for scope, at in erased.items() if at >= self.started}
        gone = self.erased.forgotten((i.id for i in interactions), conn)
        kept = [i for i in interactions if i.id not in gone and scope_of(i.user_id) not in users]
        self.left_out += len(interactions) - len(kept)
        return kept


def check_file(path: Path) -> Path:
    """A readable regular file.

    Raises:
        ImportFileError: missing, a directory, or unreadable (the message names the path).
    """
    if not path.exists():
        raise ImportFileError("file", f"{path} does not exist")
    if path.is_dir():
        raise ImportFileError("file", f"{path} is a directory, not a JSONL file")
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise ImportFileError("file", f"cannot read {path}: {exc.strerror or exc}") from exc
    return path


def read_jsonl(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | str]]:
    """``(line number, record)`` per non-empty line; a parse problem yields an error message."""
    with check_file(path).open(encoding="utf-8", errors="surrogateescape") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                yield number, f"invalid JSON: {exc.msg}"
                continue
            if not isinstance(record, dict):
                yield number, "expected a JSON object"
                continue
            yield number, record


def record_fields(record: Mapping[str, Any]) -> tuple[object, object, object, object]:
    """``(user_input, response, user_id, timestamp)`` of a record; ISO strings become datetimes.

    Raises:
        InvalidInputError: a required field is missing or the timestamp is not ISO 8601.
    """
    missing = [name for name in REQUIRED if name not in record]
    if missing:
        raise InvalidInputError(missing[0], "is missing")
    timestamp = record.get("timestamp")
    if isinstance(timestamp, str):
        try:
            timestamp = datetime.fromisoformat(timestamp)
        except ValueError as exc:
            raise InvalidInputError("timestamp", f"not ISO 8601: {timestamp!r}") from exc
    return record["user_input"], record["response"], record.get("user_id"), timestamp


def describe_error(error: Exception) -> str:
    """A one-line reason for the report."""
    return str(error) if isinstance(error, MemoryEngineError) else f"{type(error).__name__}: {error}"
