"""Profile facts: a user's keyed facts, one current value per key, with history.

``remember(..., key="home_city")`` and the summary model's extraction write here. A new value for
a key supersedes the current one: the old row keeps its value and gets its validity end
(``valid_until``), so it is history, never again presented as current. The ``profile`` table is
owned by this module; every retrieval puts the current facts (a few) into the prompt.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime

from memory.domain.types import ProfileFact, scope_of, user_of
from memory.record.db import Connection, Database, from_epoch
from memory.record.migrations import Migrations, add_column, speed_index, version_by_columns

SCHEMA = """
CREATE TABLE IF NOT EXISTS profile (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    since REAL NOT NULL,
    source TEXT NOT NULL,
    valid_until REAL
);
CREATE INDEX IF NOT EXISTS profile_current ON profile(scope, key, valid_until);
"""
_COLUMNS = "id, scope, key, value, since, source, valid_until"
VALUE_PREFIX = 100
"""The characters of a value the ``profile_value`` index holds: an entry stays small (PostgreSQL
refuses a B-tree entry over about 2.7 kB, and a remembered value may be a long text)."""
STATEMENTS = uuid.UUID("6f1d8a52-4b1e-4c0a-9a57-0d3c2e7b9f41")
"""The namespace of the ids of facts a statement set (:func:`statement_fact_id`)."""
SAME_MOMENT = 0.001
"""Seconds within which a fact's ``since`` is the moment of the statement that set it."""
EXPORTED = tuple(_COLUMNS.split(", "))
"""The columns of a profile fact in an export (see :mod:`memory.transfer`)."""


install = Migrations(
    "profile",
    (
        lambda conn: conn.script(SCHEMA),
        lambda conn: add_column(conn, "profile", "vector", "BLOB"),  # a current fact's embedding
        # the values a retrieval looks up (ProfileTable.replaced)
        speed_index(
            f"CREATE INDEX IF NOT EXISTS profile_value ON profile(scope, (substr(value, 1, {VALUE_PREFIX})))"
        ),
        # a scope's current facts, read by every retrieval; partial, so the history's lookups
        # keep the index above
        speed_index("CREATE INDEX IF NOT EXISTS profile_now ON profile(scope) WHERE valid_until IS NULL"),
    ),
    legacy=version_by_columns("profile", "vector"),
)
"""Create or migrate the ``profile`` table (an :data:`memory.record.db.Installer`)."""


def _fact(row: Sequence[object]) -> ProfileFact:
    fact_id, scope, key, value, since, source, valid_until = row
    return ProfileFact(
        id=str(fact_id),
        key=str(key),
        value=str(value),
        since=from_epoch(float(since)),  # type: ignore[arg-type]
        source=str(source),
        user_id=user_of(str(scope)),
        valid_until=None if valid_until is None else from_epoch(float(valid_until)),  # type: ignore[arg-type]
    )


def statement_fact_id(interaction_id: str, key: str) -> str:
    """The id of the fact an interaction's statement sets for ``key``: the same each time it is
    derived (a re-import, a re-index), so a fact forgotten by its id is known when it comes again."""
    return str(uuid.uuid5(STATEMENTS, f"{interaction_id}\x00{key}"))


class ProfileTable:
    """Reads and writes of the ``profile`` table."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def put(
        conn: Connection,
        user_id: str | None,
        key: str,
        value: str,
        *,
        since: datetime,
        source: str,
        newer_only: bool = False,
        fact_id: str | None = None,
    ) -> ProfileFact:
        """Make ``value`` the current fact for ``key``; the previous current one becomes history.

        Telling the same value again keeps the current row (and its ``since``).

        Args:
            newer_only: keep the current fact when it was set after ``since`` (an older
                statement imported late never overrides a newer one; returns the current one).
            fact_id: the new fact's id (default: a new one); a fact of that id already here is
                left as it is, current or history, and returned.
        """
        if fact_id is not None:
            known = conn.execute(f"SELECT {_COLUMNS} FROM profile WHERE id = ?", (fact_id,)).fetchone()
            if known is not None:
                return _fact(known)
        scope = scope_of(user_id)
        current = conn.execute(
            f"SELECT {_COLUMNS} FROM profile WHERE scope = ? AND key = ? AND valid_until IS NULL",
            (scope, key),
        ).fetchone()
        if current is not None and str(current[3]) == value:
            return _fact(current)
        if current is not None and newer_only and float(current[4]) > since.timestamp():
            return _fact(current)
        conn.execute(
            "UPDATE profile SET valid_until = ?, vector = NULL "
            "WHERE scope = ? AND key = ? AND valid_until IS NULL",
            (since.timestamp(), scope, key),
        )
        fact = ProfileFact(fact_id or str(uuid.uuid4()), key, value, since, source, user_id)
        conn.execute(
            "INSERT INTO profile(id, scope, key, value, since, source) VALUES (?, ?, ?, ?, ?, ?)",
            (fact.id, scope, key, value, since.timestamp(), source),
        )
        return fact

    @staticmethod
    def erase_scope(conn: Connection, scope: str) -> int:
        """Delete every fact (current and history) of a scope; returns how many."""
        return max(conn.execute("DELETE FROM profile WHERE scope = ?", (scope,)).rowcount, 0)

    @staticmethod
    def erase_fact(conn: Connection, fact_id: str, scope: str | None) -> bool:
        """Delete one fact by id (of ``scope`` only, when given); returns whether it was there.
        A current fact's key gets back the value it replaced (:meth:`_erase_rows`)."""
        sql = f"SELECT {_COLUMNS} FROM profile WHERE id = ?"
        args: tuple[object, ...] = (fact_id,)
        if scope is not None:
            sql, args = sql + " AND scope = ?", (fact_id, scope)
        return ProfileTable._erase_rows(conn, conn.execute(sql, args).fetchall()) > 0

    @staticmethod
    def erase_set_at(
        conn: Connection, scope: str, source: str, at: datetime, values: Collection[str] | None = None
    ) -> int:
        """Delete the facts from ``source`` set at ``at`` in ``scope`` (by a statement, or by a
        summary's extraction), with one of ``values`` when given; returns how many. Erasing what
        was said erases what it set."""
        moment = at.timestamp()
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM profile WHERE scope = ? AND source = ? AND since BETWEEN ? AND ?",
            (scope, source, moment - SAME_MOMENT, moment + SAME_MOMENT),
        ).fetchall()
        return ProfileTable._erase_rows(conn, [r for r in rows if values is None or str(r[3]) in values])

    @staticmethod
    def _erase_rows(conn: Connection, rows: Sequence[Sequence[object]]) -> int:
        """Delete facts; where one was current, the newest value left for its key is current
        again (as if the erased values had never been set)."""
        keys = set()
        for fact_id, scope, key, *_, valid_until in rows:
            conn.execute("DELETE FROM profile WHERE id = ?", (fact_id,))
            if valid_until is None:
                keys.add((scope, key))
        for scope, key in keys:  # once every row is gone: one of them may have been the value before
            conn.execute(
                "UPDATE profile SET valid_until = NULL WHERE seq = "
                "(SELECT MAX(seq) FROM profile WHERE scope = ? AND key = ?)",
                (scope, key),
            )
        return len(rows)

    def scopes(self) -> list[str]:
        """Scopes that hold facts."""
        return [str(r[0]) for r in self.db.query("SELECT DISTINCT scope FROM profile")]

    def exported(self, scopes: Sequence[str]) -> list[dict[str, object]]:
        """Every fact of some scopes, superseded ones included, as export rows in record order."""
        return self.db.rows("profile", EXPORTED, scopes)

    @staticmethod
    def restore(conn: Connection, rows: Sequence[dict[str, object]]) -> None:
        """Insert exported facts as they were."""
        Database.insert_rows(conn, "profile", EXPORTED, rows)

    def current(self, user_id: str | None, limit: int | None = None) -> list[ProfileFact]:
        """A user's current facts, most recently set first (at most ``limit``)."""
        sql = (
            f"SELECT {_COLUMNS} FROM profile WHERE scope = ? AND valid_until IS NULL "
            "ORDER BY since DESC, seq DESC"
        )
        if limit is None:
            rows = self.db.query(sql, (scope_of(user_id),))
        else:
            rows = self.db.query(sql + " LIMIT ?", (scope_of(user_id), limit))
        return [_fact(r) for r in rows]

    def replaced(self, user_id: str | None, source: str, values: Collection[str]) -> list[ProfileFact]:
        """A user's facts from ``source`` with one of ``values`` that a newer value replaced (the
        database compares the user's history rows; only the matches are read out)."""
        found: list[ProfileFact] = []
        wanted = set(values)
        prefixes = sorted({value[:VALUE_PREFIX] for value in wanted})
        for start in range(0, len(prefixes), 500):
            chunk = prefixes[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = self.db.query(
                f"SELECT {_COLUMNS} FROM profile WHERE scope = ? AND substr(value, 1, {VALUE_PREFIX}) "
                f"IN ({marks}) AND source = ? AND valid_until IS NOT NULL",
                (scope_of(user_id), *chunk, source),
            )
            found.extend(fact for fact in map(_fact, rows) if fact.value in wanted)
        return found

    def history(self, user_id: str | None, key: str) -> list[ProfileFact]:
        """Every value a key has had for a user, oldest first (the last one may be current)."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM profile WHERE scope = ? AND key = ? ORDER BY seq",
            (scope_of(user_id), key),
        )
        return [_fact(r) for r in rows]

    def vectors(self, ids: Sequence[str]) -> dict[str, bytes]:
        """The stored embeddings of some facts (those that have one)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = self.db.query(
                f"SELECT id, vector FROM profile WHERE id IN ({marks}) AND vector IS NOT NULL", chunk
            )
            found.update((str(fact_id), bytes(vector)) for fact_id, vector in rows)  # type: ignore[call-overload]
        return found

    def without_vector(self, limit: int) -> list[ProfileFact]:
        """Current facts whose embedding is not stored yet, oldest first."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM profile WHERE valid_until IS NULL AND vector IS NULL "
            "ORDER BY seq LIMIT ?",
            (limit,),
        )
        return [_fact(r) for r in rows]

    def store_vectors(self, vectors: dict[str, bytes]) -> None:
        """Store embeddings of facts (a fact superseded or erased meanwhile gets none)."""
        with self.db.transaction(durable=False) as conn:
            conn.executemany(
                "UPDATE profile SET vector = ? WHERE id = ? AND valid_until IS NULL",
                [(vector, fact_id) for fact_id, vector in vectors.items()],
            )

    def drop_vectors(self) -> None:
        """Forget every stored embedding (another model made them)."""
        with self.db.transaction() as conn:
            conn.execute("UPDATE profile SET vector = NULL WHERE vector IS NOT NULL")

    def count(self, user_id: str | None = None, *, all_scopes: bool = False) -> int:
        """Current facts (of one user, or of every user)."""
        if all_scopes:
            return self.db.count("SELECT COUNT(*) FROM profile WHERE valid_until IS NULL")
        return self.db.count(
            "SELECT COUNT(*) FROM profile WHERE scope = ? AND valid_until IS NULL", (scope_of(user_id),)
        )
