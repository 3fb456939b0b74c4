"""A local PostgreSQL server for the tests, the benchmarks and trying the Postgres record:
initdb in a folder, a loopback port, stopped by its pid. Uses Debian's PostgreSQL binaries
(``make test`` installs them when missing). Run as root, the server runs as the ``postgres``
system user (PostgreSQL refuses root).

``python -m bench.pg_server [--port 5433] [--folder data/postgres]`` (``make postgres``) runs one
in the foreground and prints its DSN; Ctrl-C stops it (a temp folder is removed, a given one kept).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (newest installed version), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _run(command: list[str]) -> None:
    done = subprocess.run(_as_server_user(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr or done.stdout}")


@contextlib.contextmanager
def postgres_server(folder: Path | None = None, port: int | None = None) -> Iterator[str]:
    """Start a server; yields a DSN; stops it (by pid) afterwards.

    Args:
        folder: where its data lives (created, or reused when it holds a cluster); ``None``: a new
            temp folder directly under the temp root (the server user must reach it), removed.
        port: the loopback port (``None``: a free one).
    """
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL server binaries not found: run `make test` (installs postgresql)")
    keep = folder is not None
    folder = folder.resolve() if folder is not None else Path(tempfile.mkdtemp(prefix="persona-memory-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, socket_dir = folder / "data", folder
    if not (data / "PG_VERSION").exists():
        _run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale",
                "C.UTF-8",
                "--no-sync",
            ]
        )
    port = port or _free_port()
    options = (
        f"-p {port} -k {socket_dir} -c listen_addresses=127.0.0.1 -c fsync=on "
        "-c max_connections=60 -c shared_buffers=32MB"
    )
    _run(
        [
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        ]
    )
    pid = int((data / "postmaster.pid").read_text().split()[0])
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGINT)  # fast shutdown
        for _ in range(300):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    """Run a server in the foreground until Ctrl-C."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.pg_server", description=__doc__)
    parser.add_argument("--port", type=int, default=5433)
    parser.add_argument("--folder", type=Path, default=None, help="keep the data here (default: temp)")
    args = parser.parse_args()
    with postgres_server(args.folder, args.port) as dsn:
        print(f"PostgreSQL running: {dsn}  (Ctrl-C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
