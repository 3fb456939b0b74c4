"""Every ``persona-memory`` and ``curl`` line of the README runs as written, in order, in a scratch
folder with the installed command on the path (the ``pip`` lines: ``tests/test_wheel.py``; the
``make`` lines are what runs this suite). ``serve`` runs in the background for the ``curl`` lines
and is stopped before the next command that opens the folder; ``mcp`` (stdio) runs last and ends
when its input does."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from helpers.paths import REPO

BLOCKS = re.findall(r"```sh\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
COMMANDS = [
    command
    for block in BLOCKS
    for command in (re.sub(r"\s+#.*$", "", line) for line in block.replace("\\\n", " ").splitlines())
    if command.startswith(("persona-memory", "curl"))
]


def test_the_readme_shows_commands() -> None:
    assert any(c.startswith("persona-memory serve") for c in COMMANDS) and len(COMMANDS) >= 8


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_every_readme_command_runs_as_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONA_MEMORY__")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # the installed command
    record = {"user_input": "我对花生过敏", "response": "记住啦～", "user_id": "u42",
              "timestamp": "2026-11-01T09:30:00+08:00"}  # fmt: skip
    (tmp_path / "history.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    server: subprocess.Popen[str] | None = None
    later = [c for c in COMMANDS if c.startswith("persona-memory mcp")]  # not beside the server
    try:
        for command in [c for c in COMMANDS if c not in later] + later:
            if command.startswith("persona-memory serve"):
                server = subprocess.Popen(shlex.split(command), cwd=tmp_path, env=env, text=True,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
                _wait_for(server)
                continue
            if server is not None and not command.startswith("curl"):
                _stop(server)  # the folder is the server's while it runs
            done = subprocess.run(shlex.split(command), cwd=tmp_path, env=env, text=True, input="",
                                  capture_output=True, timeout=600, check=False)  # fmt: skip
            assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
            if command.startswith("curl") and "retrieve" in command:
                answer = json.loads(done.stdout)
                assert "花生" in answer["rag"] + answer["active"]
    finally:
        if server is not None:
            _stop(server)
    assert server is not None and server.returncode == 0  # a graceful stop


def _stop(server: subprocess.Popen[str]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        server.wait(120)


def _wait_for(server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        try:
            if httpx.get("http://127.0.0.1:8765/v1/personas", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer")
