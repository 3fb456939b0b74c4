"""One rule for sync and async pairs, as in langchain-core: ``x`` and ``ax`` mean the same thing.

The engine's work is blocking (SQLite, Chroma, the embedder), so an ``ax`` runs ``x`` in a worker
thread and the event loop never waits on it::

    class Manager:
        def remember(self, text: str) -> str: ...
        aremember = async_twin(remember)
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

_S = TypeVar("_S")
_P = ParamSpec("_P")
_T = TypeVar("_T")


def async_twin(
    method: Callable[Concatenate[_S, _P], _T],
) -> Callable[Concatenate[_S, _P], Coroutine[Any, Any, _T]]:
    """The async twin of a blocking method: the same arguments, checks and result, awaited."""

    @functools.wraps(method)
    async def twin(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        return await asyncio.to_thread(method, self, *args, **kwargs)

    twin.__name__ = twin.__qualname__ = f"a{method.__name__}"
    twin.__doc__ = f"Async :meth:`{method.__name__}`: the same, in a worker thread.\n\n{method.__doc__ or ''}"
    return twin


def run_coroutine(factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run a coroutine to its end from blocking code, whether or not this thread runs an event
    loop (then in a worker thread with its own loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    box: list[_T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            box.append(asyncio.run(factory()))
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run, name="persona-memory-coroutine")
    worker.start()
    worker.join()
    if errors:
        raise errors[0]
    return box[0]
