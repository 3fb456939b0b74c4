"""Odd persona files and names: refused with an error naming them, never a hang or a raw OSError."""

from __future__ import annotations

import os
import random
import threading
import time
import unicodedata
from pathlib import Path

import pytest

from helpers.store import fill
from memory import InvalidInputError, MemoryManager
from memory.errors import StaticMemoryError

pytestmark = pytest.mark.faults


def _static(config) -> Path:  # type: ignore[no-untyped-def]
    return Path(config.personas_dir) / "karin" / "static_memories"


def test_a_link_out_of_the_persona_folder_is_refused(config, tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0", encoding="utf-8")
    (_static(config) / "passwd.txt").symlink_to(secret)
    with pytest.raises(StaticMemoryError, match=r"passwd\.txt.*outside the persona folder"):
        MemoryManager("karin", config)


def test_a_fifo_is_refused_without_hanging(config) -> None:
    os.mkfifo(_static(config) / "pipe.md")
    with pytest.raises(StaticMemoryError, match=r"pipe\.md.*not a regular file"):
        MemoryManager("karin", config)


def test_a_folder_named_like_a_memory_file_is_refused(config) -> None:
    (_static(config) / "notes.md").mkdir()
    with pytest.raises(StaticMemoryError, match=r"notes\.md.*not a regular file"):
        MemoryManager("karin", config)


def test_a_symlink_loop_is_refused(config) -> None:
    folder = _static(config)
    (folder / "a.md").symlink_to(folder / "b.md")
    (folder / "b.md").symlink_to(folder / "a.md")
    with pytest.raises(StaticMemoryError, match=r"a\.md.*cannot be read"):
        MemoryManager("karin", config)


def test_a_huge_file_and_deeply_nested_json_are_refused(config) -> None:
    folder = _static(config)
    (folder / "huge.txt").write_text("很长的段落" * 300_000, encoding="utf-8")
    with pytest.raises(StaticMemoryError, match=r"huge\.txt.*at most"):
        MemoryManager("karin", config)
    (folder / "huge.txt").unlink()
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(StaticMemoryError, match=r"deep\.json"):
        MemoryManager("karin", config)


@pytest.mark.parametrize("value", ["3", '["前辈", 7]', '[""]'])
def test_a_name_for_the_user_that_is_not_a_list_of_words_is_refused(config, value: str) -> None:
    toml = Path(config.personas_dir) / "karin" / "persona.toml"
    toml.write_text(f'name = "karin"\naddresses_user_as = {value}\n', encoding="utf-8")
    with pytest.raises(StaticMemoryError, match=r"persona\.toml: addresses_user_as must be a list of words"):
        MemoryManager("karin", config)


def test_a_persona_name_cannot_reach_into_another_personas_collections(config) -> None:
    with pytest.raises(InvalidInputError, match="persona"):
        MemoryManager("karin__temporary__abcdefghijklmnop", config)


def test_composed_and_decomposed_spellings_of_a_user_are_one_user(make_manager) -> None:
    manager = make_manager()
    composed, decomposed = "José", unicodedata.normalize("NFD", "José")
    assert composed != decomposed
    fill(manager, ["我对花生过敏"], user_id=decomposed + " ")
    active, _ = manager.retrieve("过敏", user_id=composed)
    assert "花生过敏" in active
    assert list(manager.debug_state()["users"]) == [composed]


def test_another_users_record_does_not_wait_behind_a_long_message(make_manager) -> None:
    manager = make_manager()
    rng = random.Random(7)  # varied characters: about a second of segmentation here
    long_message = "很多朋友" + "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(19_000))
    waited: list[float] = []

    def short_one() -> None:
        started = time.perf_counter()
        manager.record_interaction_sync("你好呀", "前辈好～", user_id="bob")
        waited.append(time.perf_counter() - started)

    writer = threading.Thread(target=manager.record_interaction_sync, args=(long_message, "嗯嗯"))
    writer.start()
    time.sleep(0.2)  # the long one is being segmented now
    short_one()
    writer.join()
    assert waited[0] < 0.5, f"bob waited {waited[0]:.2f}s"
    active, _ = manager.retrieve("很多朋友")
    assert "很多朋友" in active
