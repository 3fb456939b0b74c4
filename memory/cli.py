"""Command line: ``demo``, ``serve``, ``mcp``, ``import``, ``export``, ``reindex``, ``state``,
``forget-user``, ``keys``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from memory.config import MemoryConfig
from memory.errors import InvalidInputError, MemoryEngineError, needs_extra
from memory.write.importer import FORMAT


def _config(args: argparse.Namespace) -> MemoryConfig:
    config = MemoryConfig.from_toml(args.config) if args.config else MemoryConfig()
    if args.data_dir:
        config.data_dir = str(Path(args.data_dir) / "memory_store")
        config.archive_dir = str(Path(args.data_dir) / "archive")
    if args.personas_dir:
        config.personas_dir = args.personas_dir
    return config.validate()


def _positive(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _import(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from memory.errors import ImportFileError
    from memory.manager import MemoryManager
    from memory.transfer import is_export
    from memory.write.importer import check_file, read_jsonl

    path = check_file(Path(args.file))
    if is_export(path):  # rows copied as they are: indexed by the next manager that runs
        with MemoryManager(args.persona, _config(args), background=False) as restoring:
            count = restoring.import_memories(path, allow_erased=args.allow_erased)
        print(f"restored {count} memories of {args.persona} from the export {path}")
        return 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        total = sum(1 for line in handle if line.strip())
    manager = MemoryManager(args.persona, _config(args))
    try:
        with Progress() as bar:
            task = bar.add_task(f"importing {path.name}", total=total)
            report = manager.import_interactions(
                read_jsonl(path),
                batch_size=args.batch_size,
                skip_invalid=args.skip_invalid,
                progress=lambda n: bar.advance(task, n),
            )
            bar.update(task, completed=total)  # lines already there or skipped count as done
    except ImportFileError as exc:  # the engine's advice names the Python argument
        print(f"error: {exc}".replace("pass skip_invalid=True", "use --skip-invalid"), file=sys.stderr)
        return 2
    finally:
        manager.close()
    for number, reason in report.skipped:
        print(f"skipped line {number}: {reason}", file=sys.stderr)
    print(
        f"imported {report.imported} interactions in {report.seconds:.1f}s ({report.rate:.0f}/s); "
        f"already there {report.already}; skipped {len(report.skipped)}"
    )
    return 0


def _export(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    to_stdout = args.file == "-"
    with MemoryManager(args.persona, _config(args), background=False) as manager:
        count = manager.export_memories(sys.stdout if to_stdout else args.file, user_id=args.user)
    whose = f"user {args.user!r}" if args.user else "every user"
    where = "standard output" if to_stdout else args.file
    print(f"exported {count} memories of {whose} of {args.persona} to {where}", file=sys.stderr)
    return 0


def _reindex(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    manager = MemoryManager(args.persona, _config(args))
    try:
        count = manager.reindex()
    finally:
        manager.close()
    print(f"reindexed {count} memories of {args.persona} from SQLite")
    return 0


def _forget_user(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    if not args.yes:
        print(
            f"this erases every memory of user {args.user!r} of {args.persona} from every file, for "
            "good; run again with --yes to do it",
            file=sys.stderr,
        )
        return 2
    manager = MemoryManager(args.persona, _config(args), background=False)
    try:
        count = manager.forget_user(args.user)
    finally:
        manager.close()
    print(f"erased {count} memories of user {args.user!r} of {args.persona}")
    return 0


def _state(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    manager = MemoryManager(args.persona, _config(args), background=False)
    try:
        print(json.dumps(manager.debug_state(), ensure_ascii=False, indent=2))
    finally:
        manager.close()
    return 0


def _serve(args: argparse.Namespace) -> int:
    with needs_extra("server", "serve"):
        from memory.server.run import serve
        from memory.server.service import MemoryService

    serve(MemoryService(args.persona, _config(args)), host=args.host, port=args.port)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    with needs_extra("server", "mcp"):
        from memory.server.mcp_tools import run_stdio
        from memory.server.service import MemoryService

    run_stdio(MemoryService([args.persona], _config(args)), args.persona, user_id=args.user)
    return 0


def _keys(args: argparse.Namespace) -> int:
    from memory.domain.persona import load_persona
    from memory.domain.validation import check_persona, check_user_id
    from memory.server.keys import KeyRing

    config = _config(args)
    ring = KeyRing(config.data_dir)
    if args.action == "add":
        if not args.persona:
            raise InvalidInputError("--persona", "a key is for one persona: name it")
        load_persona(Path(config.personas_dir), check_persona(args.persona))  # one that exists
        key, record = ring.issue(args.persona, check_user_id(args.user), args.name or "")
        print(key)
        print(
            f"key {record.id} for persona {record.persona!r}, user {record.user_id or '(any)'}: shown "
            f"this once, stored hashed in {ring.path}",
            file=sys.stderr,
        )
    elif args.action == "list":
        for record in ring.records():
            if (args.persona and record.persona != args.persona) or (
                args.user and record.user_id != args.user
            ):
                continue
            shown = {k: v for k, v in vars(record).items() if k != "sha256"}
            print(json.dumps(shown, ensure_ascii=False))
    elif not args.key_id:
        raise InvalidInputError("key_id", "name the key to revoke: `keys revoke <id>` (ids: `keys list`)")
    elif not ring.revoke(args.key_id):
        raise InvalidInputError("key_id", f"no key {args.key_id!r} to revoke (see `keys list`)")
    return 0


def _personas(args: argparse.Namespace) -> int:
    from memory.domain.persona import SAMPLES, create_persona, persona_names
    from memory.domain.validation import check_persona

    personas_dir = Path(_config(args).personas_dir)
    if args.action == "new":
        if not args.name:
            raise InvalidInputError("name", "give the new persona's folder name: `personas new NAME`")
        folder = create_persona(personas_dir, check_persona(args.name or ""), locale=args.locale)
        print(f"{folder}: fill in persona.toml and {folder.name}/static_memories/", file=sys.stderr)
        print(folder)
        return 0
    for name in persona_names(personas_dir):
        print(f"{name}\t{personas_dir / name}")
    for name in persona_names(SAMPLES):
        if not (personas_dir / name).is_dir():
            print(f"{name}\t(shipped with the package)")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from memory.demo import run_demo

    return run_demo(
        args.persona, personas_dir=args.personas_dir or "personas", data_dir=args.data_dir or "data/demo"
    )


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
    demo = sub.add_parser("demo", help="replay the sample dialogue and show what the engine recalls")
    demo.add_argument("--persona", default="karin")
    demo.set_defaults(run=_demo)
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
    serve.set_defaults(run=_serve)
    mcp = sub.add_parser("mcp", help="serve one persona's memory tools over MCP stdio")
    mcp.add_argument("--persona", required=True)
    mcp.add_argument("--user", help="act for this user only (default: the tools take a user_id)")
    mcp.set_defaults(run=_mcp)
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
    imp.set_defaults(run=_import)
    exp = sub.add_parser("export", help="write every memory (of every layer and tier) to a JSONL file")
    exp.add_argument("file", help="the JSONL file to write (restore it with `import`); - for stdout")
    exp.add_argument("--persona", required=True)
    exp.add_argument("--user", help="only this user (default: every user and the shared memory)")
    exp.set_defaults(run=_export)
    reindex = sub.add_parser("reindex", help="rebuild the Chroma index from SQLite")
    reindex.add_argument("--persona", required=True)
    reindex.set_defaults(run=_reindex)
    forget = sub.add_parser("forget-user", help="erase every memory of one user, from every file")
    forget.add_argument("user", help="the user id")
    forget.add_argument("--persona", required=True)
    forget.add_argument("--yes", action="store_true", help="confirm: without it nothing is erased")
    forget.set_defaults(run=_forget_user)
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
    keys.set_defaults(run=_keys)
    personas = sub.add_parser(
        "personas",
        help="list the personas, or make a new one to fill in",
        description="`personas list`: the personas of personas_dir and those shipped with the package; "
        "`personas new NAME`: a folder with persona.toml and static_memories/ to fill in.",
    )
    personas.add_argument("action", choices=["list", "new"])
    personas.add_argument("name", nargs="?", help="new: the persona's folder name (letters, digits, _ -)")
    personas.add_argument("--locale", choices=["zh", "en"], default="zh", help="new: its language")
    personas.set_defaults(run=_personas)
    state = sub.add_parser("state", help="print debug_state() as JSON")
    state.add_argument("--persona", required=True)
    state.set_defaults(run=_state)
    return parser


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
