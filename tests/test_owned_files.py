"""What a user owns is never deleted or replaced by a command that did not create it, and what
was erased does not come back through an edited export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path

import pytest

from helpers.paths import REPO
from helpers.store import config_env, files_holding, fill
from memory import InvalidInputError, MemoryConfig
from memory.cli import main
from memory.errors import ImportFileError
from memory.personas import SAMPLES


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=REPO,
    )


@pytest.mark.parametrize("persona", ["nope", "karin"])
def test_demo_never_empties_a_folder_it_did_not_make(tmp_path: Path, persona: str) -> None:
    folder = tmp_path / "mine"
    (folder / "memory_store").mkdir(parents=True)  # looks like a store: still the user's
    notes = folder / "my-notes.txt"
    notes.write_text("买牛奶 / buy milk", encoding="utf-8")
    done = _cli("--personas-dir", str(SAMPLES), "--data-dir", str(folder), "demo", "--persona", persona)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert ("--data-dir" in done.stderr) if persona == "karin" else ("nope" in done.stderr)
    assert notes.read_text(encoding="utf-8") == "买牛奶 / buy milk"
    assert (folder / "memory_store").is_dir()


def test_demo_makes_and_marks_its_folder_and_empties_only_its_own_data_next_time(tmp_path: Path) -> None:
    from memory.demo import MARKER, prepare_folder

    folder = tmp_path / "demo"
    prepare_folder(folder)
    assert (folder / MARKER).is_file()
    (folder / "memory_store").mkdir()
    (folder / "memory_store" / "old.sqlite3").write_bytes(b"x")
    (folder / "kept.txt").write_text("a file the user put here later", encoding="utf-8")
    prepare_folder(folder)  # the next run
    assert not (folder / "memory_store").exists()
    assert (folder / "kept.txt").read_text(encoding="utf-8") == "a file the user put here later"
    with pytest.raises(InvalidInputError, match="--data-dir"):
        prepare_folder(tmp_path / "demo" / "kept.txt")


def _stored(make_manager, config: MemoryConfig) -> list[str]:
    manager = make_manager()
    fill(manager, ["我的生日是三月五日", "I keep bees on the roof"], user_id="u1")
    manager.close()
    return ["--personas-dir", config.personas_dir, "--data-dir", str(Path(config.data_dir).parent)]


@pytest.mark.sqlite_only
def test_export_writes_through_a_symlink_and_refuses_what_is_not_a_file(
    make_manager, config: MemoryConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _stored(make_manager, config)
    target = tmp_path / "real.jsonl"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert main([*base, "export", "--persona", "karin", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "三月五日" in target.read_text(encoding="utf-8")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for refused in (folder, Path("/dev/null")):
        capsys.readouterr()
        assert main([*base, "export", "--persona", "karin", str(refused)]) == 2
        assert "not a regular file" in capsys.readouterr().err
    assert Path("/dev/null").is_char_device() and folder.is_dir() and not list(folder.iterdir())


@pytest.mark.sqlite_only
def test_export_to_dash_writes_to_stdout(make_manager, config: MemoryConfig, tmp_path: Path) -> None:
    _stored(make_manager, config)
    done = _cli("export", "--persona", "karin", "-", env=config_env(config))
    assert done.returncode == 0, done.stderr
    header = json.loads(done.stdout.splitlines()[0])
    assert header["format"] == "persona-memory-export" and "I keep bees" in done.stdout
    assert "exported 2 memories" in done.stderr
    assert not (REPO / "-").exists()


TAMPERED = {
    "trailing space": "u007 ",
    "zero-width space": "u\u200b007",
    "NFD spelling": unicodedata.normalize("NFD", "zoë"),
    "control character": "u007\x07",
    "5,000 characters": "u" * 5000,
    "combining grapheme joiner": "u007\u034f",
    "variation selector": "u007\ufe0f",
    "Hangul filler": "u007\u3164",
    "blank braille cell": "u007\u2800",
}


@pytest.mark.parametrize("kind", sorted(TAMPERED))
def test_an_edited_export_cannot_bring_back_an_erased_user(make_manager, tmp_path: Path, kind: str) -> None:
    manager = make_manager()
    erased = "zoë" if kind == "NFD spelling" else "u007"
    fill(manager, ["我的银行卡密码是七七八八", "my locker code is 4411"], user_id=erased)
    out = tmp_path / "u.jsonl"
    manager.export_memories(out, user_id=erased)
    manager.forget_user(erased)
    lines = out.read_text(encoding="utf-8").splitlines()
    edited = [
        json.dumps({**json.loads(line), "scope": TAMPERED[kind]}) if '"scope"' in line else line
        for line in lines
    ]
    out.write_text("\n".join(edited) + "\n", encoding="utf-8")
    with pytest.raises(ImportFileError, match="line 2"):
        manager.import_memories(out)
    assert manager.debug_state()["users_count"] == 0
    active, rag = manager.retrieve("locker code", user_id=erased)
    assert "4411" not in active + rag


@pytest.mark.parametrize(
    "invisible",
    ["\u034f", "\ufe0f", "\U000e0100", "\u180b", "\u17b4", "\u3164", "\uffa0", "\u115f", "\u2800", "\u00a0"],
)
def test_a_user_id_that_would_display_as_another_is_refused(make_manager, invisible: str) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="user_id"):
        manager.record_interaction_sync("hi", "hello", user_id=f"vic{invisible}tim")
    assert manager.debug_state()["users_count"] == 0


def test_remembering_the_same_fact_with_other_spacing_keeps_one_memory(make_manager) -> None:
    manager = make_manager()
    first = manager.remember("  I am allergic to peanuts ", user_id="u1")
    assert manager.remember("I am  allergic to peanuts", user_id="u1") == first
    assert manager.remember("我对花生过敏", user_id="u1") != first


def test_forget_user_returns_at_once_with_thousands_of_writes_pending(
    make_manager, config: MemoryConfig
) -> None:
    manager = make_manager()
    fill(manager, [f"我的秘密是qxjvmarker{i}" for i in range(5)], user_id="alice")
    records = [
        {"user_input": f"第{i}条普通消息，今天吃了面条", "response": "好的", "user_id": f"b{i % 50}"}
        for i in range(3500)
    ]
    importing = threading.Thread(
        target=manager.import_interactions, args=(records,), kwargs={"batch_size": 3500}
    )
    importing.start()  # one commit, then the import indexes the backlog
    deadline = time.monotonic() + 60
    while manager.debug_state()["store"]["pending_index"] < 3000 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert manager.debug_state()["store"]["pending_index"] >= 3000, "the test needs a backlog"
    started = time.monotonic()
    manager.forget_user("alice")
    took = time.monotonic() - started
    pending = manager.debug_state()["store"]["pending_index"]
    importing.join()
    assert took < 2.0 and pending > 0  # it did not wait for the backlog
    manager.close()
    if config.store.record == "sqlite":
        folders = [Path(config.data_dir), Path(config.archive_dir)]
        assert files_holding(folders, b"qxjvmarker") == []
