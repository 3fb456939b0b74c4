"""The process heap (glibc malloc): fewer arenas, scrubbed frees, pages given back.

Process-wide settings, applied once, before the model and the vector store load, and never
where the matching ``MALLOC_*`` variable is set in the environment (the operator decides).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library the process runs on (``find_library`` would start ``ldconfig``: a fork of a
    process that may hold a gigabyte)."""
    return ctypes.CDLL(None)


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number for the arena limit."""
_arenas_capped = False


def cap_malloc_arenas(limit: int) -> bool:
    """Cap glibc's malloc arenas for the process (once; not where ``MALLOC_ARENA_MAX`` is set).

    Called before the first model and client are loaded (the earlier, the better it works).
    Each embedded client starts about ten native threads (Chroma's Rust runtime and its SQLite
    workers); glibc gives new threads their own arenas and keeps their freed pages, so a process
    that opens and closes managers grew about 1 MB per cycle (60 MB in 100). With two arenas it
    grows about 10 MB and stops. Returns whether the cap was applied.
    """
    global _arenas_capped
    if (
        _arenas_capped
        or limit <= 0
        or "MALLOC_ARENA_MAX" in os.environ
        or not sys.platform.startswith("linux")
    ):
        return False
    try:
        libc = _libc()
        _arenas_capped = bool(libc.mallopt(M_ARENA_MAX, limit))
    except (OSError, AttributeError):  # not glibc
        return False
    return _arenas_capped


M_PERTURB = -6
PERTURB_BYTE = 0xA5
_perturbed = False


def scrub_freed_memory(enabled: bool) -> bool:
    """Have glibc overwrite memory when it is freed (and fill new blocks), once per process; not
    where ``MALLOC_PERTURB_`` is set. Chroma's HNSW files are written from buffers whose unused
    slots hold whatever the heap held before: a user's words, in the file, after that user was
    erased (seen in a test, 1 run in 3). Costs about 0.7 ms a retrieval. Returns whether it is on.
    """
    global _perturbed
    if _perturbed or not enabled or "MALLOC_PERTURB_" in os.environ:
        return _perturbed
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = _libc()
        _perturbed = bool(libc.mallopt(M_PERTURB, PERTURB_BYTE))
    except (OSError, AttributeError):  # not glibc
        return False
    return _perturbed


def trim_malloc() -> None:
    """Give the pages glibc keeps after a client's threads are gone back to the system."""
    if _arenas_capped:
        with contextlib.suppress(OSError, AttributeError):
            _libc().malloc_trim(0)
