"""Command line: ``demo``, ``serve``, ``mcp``, ``import``, ``export``, ``reindex``, ``state``,
``forget-user``, ``keys``, ``personas``."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from memory.cli import commands
from memory.errors import MemoryEngineError
from memory.write.importer import FORMAT


def _positive(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class _Commands:
    """``add_parser`` with the common options on every command."""

    def __init__(self, sub: Any, common: argparse.ArgumentParser) -> None:
        self._sub, self._common = sub, common

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._sub.add_parser(name, parents=[self._common], **kwargs)
        return parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m memory``."""
    parser = argparse.ArgumentParser(prog="python -m memory", description=(__doc__ or "").replace("``", "`"))
    # the common options work before or after the command (after it: only when given)
    common = argparse.ArgumentParser(add_help=False)
    for target, default in ((parser, None), (common, argparse.SUPPRESS)):
        target.add_argument("--config", default=default, help="a TOML config file (default: defaults + env)")
        target.add_argument(
            "--data-dir", default=default, help="override the data folder (store and archive)"
        )
        target.add_argument("--personas-dir", default=default, help="override personas_dir")
        verbose = False if default is None else argparse.SUPPRESS
        target.add_argument("-v", "--verbose", action="store_true", default=verbose, help="log at INFO level")
    sub = _Commands(parser.add_subparsers(dest="command", required=True), common)
    _serving(sub)
    _store(sub)
    _admin(sub)
    return parser


def _serving(sub: _Commands) -> None:
    """``demo``, ``serve``, ``mcp``."""
    demo = sub.add_parser("demo", help="replay the sample dialogue and show what the engine recalls")
    demo.add_argument("--persona", default="karin")
    demo.set_defaults(run=commands.run_demo)
    serve = sub.add_parser(
        "serve",
        help="run the REST + MCP server and the web inspector (/docs, /inspect)",
        description="Serve one or more personas over HTTP: REST under /v1/personas/<persona>, MCP at "
        "/v1/personas/<persona>/mcp, the inspector at /inspect. Set server.api_key (env "
        "PERSONA_MEMORY__SERVER__API_KEY) before binding anything but loopback.",
    )
    serve.add_argument("--persona", action="append", required=True, help="repeat to serve several")
    serve.add_argument("--host", help="address to bind (default: server.host, 127.0.0.1)")
    serve.add_argument("--port", type=_positive, help="port (default: server.port, 8765)")
    serve.set_defaults(run=commands.run_serve)
    mcp = sub.add_parser("mcp", help="serve one persona's memory tools over MCP stdio")
    mcp.add_argument("--persona", required=True)
    mcp.add_argument("--user", help="act for this user only (default: the tools take a user_id)")
    mcp.set_defaults(run=commands.run_mcp)


def _store(sub: _Commands) -> None:
    """``import``, ``export``, ``reindex``, ``forget-user``, ``state``: one persona's store."""
    imp = sub.add_parser(
        "import",
        help="bulk import interactions from a JSONL file, or restore an export",
        description="Bulk import interactions from a JSONL file, in order, with their own times; "
        "a file written by `export` is restored exactly instead.",
        epilog=FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    imp.add_argument("file", help="the JSONL file (format below)")
    imp.add_argument("--persona", required=True)
    imp.add_argument("--batch-size", type=_positive, default=500, help="records per transaction (>= 1)")
    imp.add_argument(
        "--skip-invalid", action="store_true", help="skip bad lines (default: report them and import nothing)"
    )
    imp.add_argument("--allow-erased", action="store_true", help="also restore users erased here")
    imp.set_defaults(run=commands.run_import)
    exp = sub.add_parser("export", help="write every memory (of every layer and tier) to a JSONL file")
    exp.add_argument("file", help="the JSONL file to write (restore it with `import`); - for stdout")
    exp.add_argument("--persona", required=True)
    exp.add_argument("--user", help="only this user (default: every user and the shared memory)")
    exp.set_defaults(run=commands.run_export)
    reindex = sub.add_parser("reindex", help="rebuild the Chroma index from SQLite")
    reindex.add_argument("--persona", required=True)
    reindex.set_defaults(run=commands.run_reindex)
    forget = sub.add_parser("forget-user", help="erase every memory of one user, from every file")
    forget.add_argument("user", help="the user id")
    forget.add_argument("--persona", required=True)
    forget.add_argument("--yes", action="store_true", help="confirm: without it nothing is erased")
    forget.set_defaults(run=commands.run_forget_user)
    state = sub.add_parser("state", help="print debug_state() as JSON")
    state.add_argument("--persona", required=True)
    state.set_defaults(run=commands.run_state)


def _admin(sub: _Commands) -> None:
    """``keys``, ``personas``."""
    keys = sub.add_parser(
        "keys",
        help="issue, list or revoke server keys limited to a persona (and a user)",
        description="Scoped server keys: `keys add --persona karin [--user alice]` prints a new key "
        "once (stored hashed in <data_dir>/server-keys.json); `keys list`; `keys revoke <id>`. "
        "With any key file, every request to `serve` needs a key.",
    )
    keys.add_argument("action", choices=["add", "list", "revoke"])
    keys.add_argument("key_id", nargs="?", help="the key to revoke (an id from `keys list`)")
    keys.add_argument("--persona", help="add: the persona the key reaches; list: only its keys")
    keys.add_argument(
        "--user", help="add: the one user the key acts for (default: any user); list: only its keys"
    )
    keys.add_argument("--name", help="add: a label (who holds the key)")
    keys.set_defaults(run=commands.run_keys)
    personas = sub.add_parser(
        "personas",
        help="list the personas, or make a new one to fill in",
        description="`personas list`: the personas of personas_dir and those shipped with the package; "
        "`personas new NAME`: a folder with persona.toml and static_memories/ to fill in.",
    )
    personas.add_argument("action", choices=["list", "new"])
    personas.add_argument("name", nargs="?", help="new: the persona's folder name (letters, digits, _ -)")
    personas.add_argument("--locale", choices=["zh", "en"], default="zh", help="new: its language")
    personas.set_defaults(run=commands.run_personas)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        code = int(args.run(args))
        sys.stdout.flush()  # here, not at exit: a closed pipe is caught below
        return code
    except MemoryEngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `state | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
