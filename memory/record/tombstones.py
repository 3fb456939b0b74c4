"""Erasure tombstones: an erase is written down first, so a crash cannot leave it half done.

``forget_user`` writes a tombstone in the same transaction that deletes the user's rows: a keyed
hash of the user's scope (never the id itself: it is often an e-mail address), when, and whether
the files beyond the record (the archive file, the vectors, the freed pages) are clean yet;
``forget`` writes one per memory or fact it erases (a keyed hash of the id) and one per summary
it rewrites (another hash of the id: the summary stays); an import looks its ids up, so what
was forgotten here stays forgotten. It is marked done once the files are clean. At the next start
every tombstone not done is finished (the archive file rewritten without the user's records; the
index repair drops vectors the record lacks).
The hash key is random, made once per record and kept in its ``meta`` table; the vector index
names scopes by another hash of the same key (:meth:`Tombstones.index_tag`). The ``tombstones``
table is owned by this module.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime
from typing import cast

from memory.record.db import Connection, Database, write_meta
from memory.record.migrations import Migrations, version_by_columns

SCHEMA = """
CREATE TABLE IF NOT EXISTS tombstones (
    digest TEXT PRIMARY KEY,
    erased_at REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0
);
"""
KEY = "erase_key"
"""The ``meta`` row holding the hash key."""


_migrations = Migrations(
    "tombstones",
    (lambda conn: conn.script(SCHEMA),),
    legacy=version_by_columns("tombstones"),
)


def install(conn: Connection) -> None:
    """Create or migrate the ``tombstones`` table, and make the record's hash key once (an
    :data:`memory.record.db.Installer`)."""
    _migrations(conn)
    if not conn.read_only:
        write_meta(conn, KEY, secrets.token_hex(32), keep=True)


class Tombstones:
    """Reads and writes of the ``tombstones`` table."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._key: bytes | None = None

    def _hash(self, data: bytes) -> str:
        if self._key is None:
            self._key = bytes.fromhex(self.db.get_meta(KEY) or "")
        return hmac.new(self._key, data, hashlib.sha256).hexdigest()

    def digest(self, scope: str) -> str:
        """The keyed hash a scope is written down as."""
        return self._hash(scope.encode("utf-8"))

    def memory_digest(self, memory_id: str) -> str:
        """The keyed hash one erased memory is written down as (another hash than a scope's)."""
        return self._hash(b"memory\x00" + memory_id.encode("utf-8"))

    def rewritten_digest(self, memory_id: str) -> str:
        """The keyed hash a summary an erase rewrote is written down as (it stays, without the
        erased memory's line)."""
        return self._hash(b"rewritten\x00" + memory_id.encode("utf-8"))

    def index_tag(self, scope: str) -> str:
        """The keyed hash a scope goes by in the vector index (collection names, metadata), so
        the index never holds a user id; another hash than :meth:`digest` (domain-separated)."""
        return self._hash(b"index\x00" + scope.encode("utf-8"))

    def add(self, conn: Connection, scope: str, at: datetime) -> str:
        """Write a scope's tombstone (not done) inside the erasing transaction; returns its digest."""
        digest = self.digest(scope)
        conn.execute(
            "INSERT INTO tombstones(digest, erased_at, done) VALUES (?, ?, 0) "
            "ON CONFLICT(digest) DO UPDATE SET erased_at = excluded.erased_at, done = 0",
            (digest, at.timestamp()),
        )
        return digest

    def add_memories(
        self, conn: Connection, memory_ids: Iterable[str], at: datetime, *, rewritten: Iterable[str] = ()
    ) -> list[str]:
        """Write erased memories' tombstones, and those of the summaries the erase ``rewritten``,
        (not done) inside the erasing transaction; returns their digests."""
        digests = [self.memory_digest(memory_id) for memory_id in memory_ids]
        digests += [self.rewritten_digest(memory_id) for memory_id in rewritten]
        conn.executemany(
            "INSERT INTO tombstones(digest, erased_at, done) VALUES (?, ?, 0) "
            "ON CONFLICT(digest) DO UPDATE SET erased_at = excluded.erased_at, done = 0",
            [(digest, at.timestamp()) for digest in digests],
        )
        return digests

    def finish(self, *digests: str) -> None:
        """Mark erases complete beyond the record."""
        with self.db.transaction() as conn:
            conn.executemany("UPDATE tombstones SET done = 1 WHERE digest = ?", [(d,) for d in digests])

    def unfinished(self) -> set[str]:
        """Digests of erases a crash cut short."""
        return {str(r[0]) for r in self.db.query("SELECT digest FROM tombstones WHERE done = 0")}

    def erased(self, scopes: Iterable[str], conn: Connection | None = None) -> dict[str, float]:
        """The scopes among ``scopes`` that were erased here (a tombstone, done or not), each with
        when it was last erased (epoch seconds); asked inside a write transaction when given
        ``conn``, so no erase can land between the answer and that transaction's writes."""
        return self._written({self.digest(scope): scope for scope in scopes}, conn)

    def forgotten(self, ids: Iterable[str], conn: Connection | None = None) -> set[str]:
        """The memories and facts among ``ids`` that were erased here one by one (done or not);
        ``conn`` as in :meth:`erased`."""
        return set(self._written({self.memory_digest(memory_id): memory_id for memory_id in ids}, conn))

    def _written(self, by_digest: dict[str, str], conn: Connection | None) -> dict[str, float]:
        """The values of ``by_digest`` whose digest has a tombstone, with its time (asked 500 at
        a time)."""
        digests, found = list(by_digest), dict[str, float]()
        for start in range(0, len(digests), 500):
            chunk = tuple(digests[start : start + 500])
            sql = f"SELECT digest, erased_at FROM tombstones WHERE digest IN ({','.join('?' * len(chunk))})"
            rows = self.db.query(sql, chunk) if conn is None else conn.execute(sql, chunk).fetchall()
            found |= {by_digest[digest]: float(at) for digest, at in cast(list[tuple[str, float]], rows)}
        return found
