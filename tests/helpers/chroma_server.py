"""A real Chroma server for tests: `chroma run` in a subprocess, stopped by its pid.

Used by ``tests/index/test_chroma_server.py``. The server binary is the ``chroma`` script next to the
interpreter running the tests (``.venv/bin/chroma``); it starts offline in about a second.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HOST = "127.0.0.1"
START_TIMEOUT = 30.0
STOP_GRACE = 5.0


def free_port(host: str = HOST) -> int:
    """A TCP port nobody listens on right now (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def chroma_executable() -> str:
    """The ``chroma`` command of the environment running the tests."""
    sibling = Path(sys.executable).with_name("chroma")
    if sibling.exists():
        return str(sibling)
    found = shutil.which("chroma")
    if found is None:
        raise RuntimeError("the 'chroma' command is not installed next to the test interpreter")
    return found


class ChromaServer:
    """One ``chroma run --path PATH --host 127.0.0.1 --port PORT`` process.

    ``start()`` may be called again after ``stop()`` / ``kill()``: same port, same data folder.
    """

    def __init__(self, path: Path, port: int | None = None, host: str = HOST) -> None:
        self.path = path
        self.host = host
        self.port = port or free_port(host)
        self.log_path = path.with_name(f"{path.name}.log")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def heartbeat(self) -> bool:
        """Whether the server answers ``GET /api/v2/heartbeat`` now."""
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1.0) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def start(self, timeout: float = START_TIMEOUT) -> ChromaServer:
        """Launch the server and wait for its heartbeat; raises with the log tail on failure."""
        if self.process is not None and self.process.poll() is None:
            return self
        self.path.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        command = [chroma_executable(), "run", "--path", str(self.path), "--host", self.host]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [*command, "--port", str(self.port)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"chroma server exited with {self.process.returncode}:\n{self._log_tail()}"
                )
            if self.heartbeat():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"chroma server gave no heartbeat within {timeout:.0f} s:\n{self._log_tail()}")

    def stop(self) -> None:
        """SIGTERM by pid, then SIGKILL after a grace period (idempotent)."""
        self._signal(signal.SIGTERM, grace=STOP_GRACE)

    def kill(self) -> None:
        """SIGKILL by pid at once: an abrupt outage (idempotent)."""
        self._signal(signal.SIGKILL, grace=0.0)

    def _signal(self, sig: signal.Signals, grace: float) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, sig)
            try:
                process.wait(timeout=grace if grace > 0 else 10.0)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
                process.wait(timeout=10.0)
        self.process = None
        deadline = time.monotonic() + 5.0
        while self.heartbeat() and time.monotonic() < deadline:
            time.sleep(0.05)

    def _log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])
