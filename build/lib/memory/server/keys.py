"""Scoped API keys: what a request may touch, besides the admin key (``server.api_key``).

A scoped key is limited to one persona and, optionally, to one user of it: a chatbot frontend or
an MCP client acting for one user cannot read, list or erase anyone else. Keys are issued by
``python -m memory keys add`` and kept hashed (SHA-256: the keys are 256-bit random, so a plain
hash is as strong as a slow one) in ``<data_dir>/server-keys.json`` (mode 0600), with the secret
that signs scoped inspector sessions. The server rereads the file when it changes: a key added
or revoked counts from the next request.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memory.errors import AccessDeniedError, ConfigError, InvalidInputError

KEYS_FILE = "server-keys.json"
KEY_PREFIX = "pmk"


@dataclass(frozen=True)
class Grant:
    """What one request may touch: every persona and user (the admin), or one persona and
    optionally one of its users."""

    key_id: str
    persona: str | None = None
    user_id: str | None = None

    @property
    def admin(self) -> bool:
        """Whether the grant is the admin key's (or the server has no key at all)."""
        return self.persona is None

    def allows_persona(self, persona: str) -> bool:
        """Whether the grant reaches ``persona``."""
        return self.persona is None or self.persona == persona

    def one_user(self, given: str | None) -> str | None:
        """The user of a call that touches one memory: the admin key may name none (any user's
        memory); every other caller must.

        Raises:
            InvalidInputError: no user named, and the key is not the admin key.
            AccessDeniedError: the key is for another user.
        """
        user = self.user(given)
        if user is None and self != ADMIN:
            raise InvalidInputError("user_id", "is required (only the admin key may name no user)")
        return user

    def user(self, given: str | None, argument: str = "user_id") -> str | None:
        """The user a call acts for: ``given``, or the key's own user (which a call may omit).

        Raises:
            AccessDeniedError: the key is for another user.
        """
        if self.user_id is None:
            return given
        if given is not None and given != self.user_id:
            raise AccessDeniedError(argument, f"this key acts for user {self.user_id!r} only")
        return self.user_id


ADMIN = Grant("admin")
"""The admin key's grant."""
OPEN = Grant("open")
"""A server with no key at all (loopback): everything, but not what needs the admin key."""


@dataclass(frozen=True)
class KeyRecord:
    """One issued key, as stored: never the key itself."""

    id: str
    persona: str
    user_id: str | None
    name: str
    sha256: str
    created: str


def _hash(key: str | bytes) -> str:
    return hashlib.sha256(key if isinstance(key, bytes) else key.encode()).hexdigest()


class KeyRing:
    """The scoped keys of one data folder (the file is read again when it changes)."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / KEYS_FILE
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None
        self._records: dict[str, KeyRecord] = {}
        self._secret = b""

    def _load(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._records, self._secret = None, {}, b""
            return
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen == self._seen:
            return
        try:
            data: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
            records = {r["id"]: KeyRecord(**r) for r in data.get("keys", [])}
            secret = bytes.fromhex(str(data["secret"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError("server keys", f"{self.path} is unreadable ({exc}); fix or remove it") from exc
        self._seen, self._records, self._secret = seen, records, secret

    def records(self) -> list[KeyRecord]:
        """The issued keys (hashes only), oldest first."""
        with self._lock:
            self._load()
            return list(self._records.values())

    def _write(self, records: dict[str, KeyRecord], secret: bytes) -> None:
        data = {"secret": secret.hex(), "keys": [asdict(r) for r in records.values()]}
        temporary = self.path.with_suffix(".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except OSError as exc:
            raise ConfigError("server keys", f"cannot write {self.path}: {exc}") from exc
        self._seen = None

    def issue(self, persona: str, user_id: str | None = None, name: str = "") -> tuple[str, KeyRecord]:
        """A new key for ``persona`` (and ``user_id``): ``(the key, shown once; its record)``."""
        with self._lock:
            self._load()
            key_id = secrets.token_hex(4)
            while key_id in self._records:
                key_id = secrets.token_hex(4)
            key = f"{KEY_PREFIX}_{key_id}_{secrets.token_urlsafe(32)}"
            created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            record = KeyRecord(key_id, persona, user_id, name, _hash(key), created)
            self._write({**self._records, key_id: record}, self._secret or secrets.token_bytes(32))
            return key, record

    def revoke(self, key_id: str) -> bool:
        """Remove a key (its inspector sessions end with it); False when there is no such key."""
        with self._lock:
            self._load()
            if key_id not in self._records:
                return False
            self._write({k: r for k, r in self._records.items() if k != key_id}, self._secret)
            return True

    def grant_for(self, presented: bytes) -> Grant | None:
        """The grant of a presented key, or None (compared in constant time)."""
        parts = presented.split(b"_")
        with self._lock:
            self._load()
            record = self._records.get(parts[1].decode("latin-1")) if len(parts) >= 3 else None
        if record is None or not hmac.compare_digest(record.sha256.encode(), _hash(presented).encode()):
            return None
        return Grant(record.id, record.persona, record.user_id)

    def session_token(self, grant: Grant, expires: int) -> str:
        """A scoped key's inspector session: ``<expiry>.<key id>.<HMAC under the ring's secret>``."""
        with self._lock:
            self._load()
            secret = self._secret
        mac = hmac.new(secret, f"persona-memory-scoped|{expires}|{grant.key_id}".encode(), hashlib.sha256)
        return f"{expires}.{grant.key_id}.{mac.hexdigest()}"

    def session_grant(self, token: str, now: float) -> Grant | None:
        """The grant of a scoped session cookie still valid (key not revoked, not expired)."""
        expires, _, rest = token.partition(".")
        key_id = rest.partition(".")[0]
        if not expires.isdigit() or int(expires) < now:
            return None
        with self._lock:
            with contextlib.suppress(ConfigError):
                self._load()
            record = self._records.get(key_id)
        if record is None:
            return None
        grant = Grant(record.id, record.persona, record.user_id)
        if not hmac.compare_digest(self.session_token(grant, int(expires)).encode(), token.encode()):
            return None
        return grant
