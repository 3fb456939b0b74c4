"""A real uvicorn server on a free loopback port, in a thread of the test process."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from memory.server.app import create_app
from memory.server.run import uvicorn_config
from memory.server.service import MemoryService


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running(service: MemoryService) -> Iterator[str]:
    """Serve ``service`` until the block ends (shutdown runs the app's lifespan: jobs stop,
    managers flush and close); yields the base URL."""
    port = free_port()
    app = create_app(service)
    server = uvicorn.Server(
        uvicorn_config(app, service.config.server, host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)
