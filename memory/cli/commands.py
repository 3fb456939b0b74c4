"""What each command of ``python -m memory`` does (:mod:`memory.cli` parses the arguments)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memory.errors import InvalidInputError, needs_extra

if TYPE_CHECKING:
    from memory.config import MemoryConfig


def config_of(args: argparse.Namespace) -> MemoryConfig:
    from memory.config import MemoryConfig  # not for --help: pydantic takes a third of a second

    config = MemoryConfig.from_toml(args.config) if args.config else MemoryConfig()
    if args.data_dir:
        config.data_dir = str(Path(args.data_dir) / "memory_store")
        config.archive_dir = str(Path(args.data_dir) / "archive")
    if args.personas_dir:
        config.personas_dir = args.personas_dir
    return config.validate()


def run_import(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from memory.errors import ImportFileError
    from memory.manager import MemoryManager
    from memory.transfer import is_export
    from memory.write.importer import check_file, read_jsonl

    path = check_file(Path(args.file))
    if is_export(path):  # rows copied as they are: indexed by the next manager that runs
        with MemoryManager(args.persona, config_of(args), background=False) as restoring:
            count = restoring.import_memories(path, allow_erased=args.allow_erased)
        print(f"restored {count} memories of {args.persona} from the export {path}")
        return 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        total = sum(1 for line in handle if line.strip())
    manager = MemoryManager(args.persona, config_of(args))
    try:
        with Progress() as bar:
            task = bar.add_task(f"importing {path.name}", total=total)
            report = manager.import_interactions(
                read_jsonl(path),
                batch_size=args.batch_size,
                skip_invalid=args.skip_invalid,
                progress=lambda n: bar.advance(task, n),
                allow_erased=args.allow_erased,
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
        f"already there {report.already}; forgotten here {report.forgotten}; skipped {len(report.skipped)}"
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    to_stdout = args.file == "-"
    with MemoryManager(args.persona, config_of(args), background=False) as manager:
        count = manager.export_memories(sys.stdout if to_stdout else args.file, user_id=args.user)
    whose = f"user {args.user!r}" if args.user else "every user"
    where = "standard output" if to_stdout else args.file
    print(f"exported {count} memories of {whose} of {args.persona} to {where}", file=sys.stderr)
    return 0


def run_reindex(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    manager = MemoryManager(args.persona, config_of(args))
    try:
        count = manager.reindex()
    finally:
        manager.close()
    print(f"reindexed {count} memories of {args.persona} from SQLite")
    return 0


def run_forget_user(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    if not args.yes:
        print(
            f"this erases every memory of user {args.user!r} of {args.persona} from every file, for "
            "good; run again with --yes to do it",
            file=sys.stderr,
        )
        return 2
    manager = MemoryManager(args.persona, config_of(args), background=False)
    try:
        count = manager.forget_user(args.user)
    finally:
        manager.close()
    print(f"erased {count} memories of user {args.user!r} of {args.persona}")
    return 0


def run_state(args: argparse.Namespace) -> int:
    from memory.manager import MemoryManager

    manager = MemoryManager(args.persona, config_of(args), background=False)
    try:
        print(json.dumps(manager.debug_state(), ensure_ascii=False, indent=2))
    finally:
        manager.close()
    return 0


def run_serve(args: argparse.Namespace) -> int:
    with needs_extra("server", "serve"):
        from memory.server.run import serve
        from memory.server.service import MemoryService

    serve(MemoryService(args.persona, config_of(args)), host=args.host, port=args.port)
    return 0


def run_mcp(args: argparse.Namespace) -> int:
    with needs_extra("server", "mcp"):
        from memory.server.mcp_tools import run_stdio
        from memory.server.service import MemoryService

    run_stdio(MemoryService([args.persona], config_of(args)), args.persona, user_id=args.user)
    return 0


def run_keys(args: argparse.Namespace) -> int:
    from memory.domain.validation import check_persona, check_user_id
    from memory.personas import load_persona
    from memory.server.keys import KeyRing

    config = config_of(args)
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


def run_personas(args: argparse.Namespace) -> int:
    from memory.domain.validation import check_persona
    from memory.personas import SAMPLES, create_persona, persona_names

    personas_dir = Path(config_of(args).personas_dir)
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


def run_demo(args: argparse.Namespace) -> int:
    from memory.demo import run_demo

    return run_demo(
        args.persona, personas_dir=args.personas_dir or "personas", data_dir=args.data_dir or "data/demo"
    )
