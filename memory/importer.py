"""Bulk import of interactions (JSONL or any iterable of mappings), validated before any write."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory.errors import InvalidInputError, MemoryEngineError

REQUIRED = ("user_input", "response")


@dataclass
class ImportReport:
    """What an import did: how many were stored, which lines were skipped and why."""

    imported: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Interactions per second."""
        return self.imported / self.seconds if self.seconds > 0 else 0.0


class ImportFileError(InvalidInputError):
    """Bad records in an import (nothing was written); the message lists their line numbers."""


def read_jsonl(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | str]]:
    """``(line number, record)`` per non-empty line; a parse problem yields an error message."""
    with path.open(encoding="utf-8", errors="surrogateescape") as handle:
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
