"""Files derived from the installed packages, cached in the user's cache folder between processes.

What is cached is built from package data alone (a dictionary, a tokenizer, a model graph): never a user's
words, and never in the data folder, so an erasure scan of the data folder finds none of it.
A file is named after what it was built from, written whole (temp file, rename) or not at all,
and built again when it is missing, unreadable or stale.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

logger = logging.getLogger(__name__)

KEPT_VERSIONS = 3
_T = TypeVar("_T")


def cache_folder(*, or_else: Path | None = None) -> Path:
    """``$XDG_CACHE_HOME/persona-memory`` (default ``~/.cache``): shared by every data folder.

    Args:
        or_else: make the folder, and return this one when it cannot be made.
    """
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "persona-memory"
    if or_else is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return or_else
    return folder


def cache_file(name: str, sources: Iterable[Path], suffix: str) -> Path:
    """``<cache_folder>/<name>-<digest><suffix>``, the digest taken over each source file's name,
    size and modification time."""
    digest = hashlib.sha256()
    for source in sources:
        stat = source.stat()
        digest.update(f"{source.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return cache_folder() / f"{name}-{digest.hexdigest()[:24]}{suffix}"


def read_cache(path: Path) -> bytes | None:
    """The cached bytes, or None when there are none to read."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_cache(path: Path, data: bytes | memoryview) -> None:
    """Write the cache whole or not at all (a read-only or missing home is fine: built again)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.stem}-", delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, path)
    except OSError as exc:
        logger.debug("not cached (%s): built again at the next start", exc)
        return
    _prune(path)


def cached_object(path: Path, kind: type[_T], build: Callable[[], _T]) -> _T:
    """The object pickled in ``path`` when it is one of ``kind``; else ``build()``, pickled there."""
    raw = read_cache(path)
    if raw is not None:
        with contextlib.suppress(Exception):  # a stale or broken cache: built again
            found = pickle.loads(raw)  # our own file, built from package data
            if isinstance(found, kind):
                return found
    built = build()
    write_cache(path, pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL))
    return built


def _prune(path: Path) -> None:
    """Keep the newest :data:`KEPT_VERSIONS` caches of one name (other installs of the package
    may use the older ones)."""
    name = path.name.rsplit("-", 1)[0]
    versions = sorted(path.parent.glob(f"{name}-*{path.suffix}"), key=_mtime, reverse=True)
    for old in versions[KEPT_VERSIONS:]:
        with contextlib.suppress(OSError):
            old.unlink()


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
