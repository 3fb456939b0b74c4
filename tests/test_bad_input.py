"""The README's bad-input table, row by row, plus random Unicode through record/restart/retrieve."""

from __future__ import annotations

import logging
import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory import InputTooLargeError, InputTypeError, InvalidInputError, MemoryManager
from memory.errors import StaticMemoryError

ONE_MB = "记" * (1024 * 1024)


def test_one_megabyte_text_is_refused_by_record_and_retrieve(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InputTooLargeError, match="user_input.*limit is 20000.*max_text_chars"):
        manager.record_interaction_sync(ONE_MB, "嗯")
    with pytest.raises(InputTooLargeError, match="query"):
        manager.retrieve(ONE_MB)
    assert manager.debug_state()["interactions_recorded"] == 0


async def test_async_record_validates_like_sync(make_manager) -> None:
    manager = make_manager()
    for bad, error in (("", InvalidInputError), (None, InputTypeError), (ONE_MB, InputTooLargeError)):
        with pytest.raises(error):
            await manager.record_interaction(bad, "嗯")
    assert manager.debug_state()["interactions_recorded"] == 0


def test_naive_timestamp_is_refused(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="timestamp"):
        manager.record_interaction_sync("好", "嗯", timestamp=datetime(2026, 1, 1))


def test_mixed_cjk_and_emoji_are_kept_verbatim(make_manager) -> None:
    manager = make_manager()
    text = "今天🎉和朋友去了🍣寿司店，超好吃😋！Sushi was great 👍"
    manager.record_interaction_sync(text, "好棒～🎶")
    active, _ = manager.retrieve("寿司🍣")
    assert text in active and "好棒～🎶" in active


def test_non_int_top_k_is_a_type_error(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InputTypeError, match="top_k"):
        manager.retrieve_memories("你好", top_k="3")  # type: ignore[arg-type]


def test_runnable_with_bad_payload_raises_named_error(make_manager) -> None:
    manager = make_manager()
    runnable = manager.retriever.as_runnable()
    with pytest.raises(InvalidInputError, match="query"):
        runnable.invoke({"text": "wrong key"})
    with pytest.raises(InputTypeError, match="query"):
        runnable.invoke(42)


def test_persona_without_static_folder_logs_a_warning(config, caplog) -> None:
    Path(config.personas_dir, "empty").mkdir()
    with caplog.at_level(logging.WARNING):
        manager = MemoryManager("empty", config)
    manager.close()
    assert "no static_memories folder" in caplog.text


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        ("bad.json", '["ok",\n  "missing comma"\n  "x"]', r"bad\.json.*line 3"),
        ("shape.json", '{"content": "not a list"}', r"shape\.json.*JSON list"),
        ("item.json", '[{"text": "no content key"}]', r"item\.json.*item 0"),
        ("tags.json", '[{"content": "x", "tags": "oops"}]', r"tags\.json.*tags"),
        ("latin.md", None, r"latin\.md.*UTF-8"),
    ],
)
def test_malformed_static_file_names_the_file(config, name, content, pattern) -> None:
    path = Path(config.personas_dir) / "karin" / "static_memories" / name
    if content is None:
        path.write_bytes("caf\xe9".encode("latin-1"))
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(StaticMemoryError, match=pattern):
        MemoryManager("karin", config)


@pytest.mark.parametrize("persona", ["../etc", "", "a b", 3])
def test_invalid_persona_name_is_refused(config, persona) -> None:
    with pytest.raises((InvalidInputError, InputTypeError), match="persona"):
        MemoryManager(persona, config)  # type: ignore[arg-type]


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _expected(text: str) -> str | None:
    """What the engine stores for ``text``, or None when it must refuse it."""
    if re.search(r"[\ud800-\udfff]", text):
        return None
    cleaned = _CONTROL.sub("", text)
    return cleaned if cleaned.strip() else None


def test_random_unicode_round_trips_through_record_restart_retrieve(config) -> None:
    config.active.capacity = 3
    manager = MemoryManager("karin", config)
    stored: dict[str, str] = {}

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.text(min_size=0, max_size=120))
    def record(text: str) -> None:
        expected = _expected(text)
        if expected is None:
            with pytest.raises(InvalidInputError):
                manager.record_interaction_sync(text, "回答")
            return
        stored[manager.record_interaction_sync(text, "回答")] = expected
        active, _ = manager.retrieve(text)
        assert expected in active

    try:
        record()
    finally:
        manager.close()
    again = MemoryManager("karin", config)
    try:
        for interaction_id, expected in stored.items():
            interaction = again.inspector.interaction(interaction_id)
            assert interaction is not None and interaction.user_input == expected
        state = again.debug_state()
        assert state["interactions_recorded"] == len(stored)
        assert state["active_count"] + state["temporary_count"] + state["archived_count"] >= len(stored)
        again.retrieve("随便问问")
    finally:
        again.close()


@pytest.mark.parametrize(
    "user_id",
    ["a" * 257, "x" * 10_000, "alice\u200b", "\u200balice", "ali\u202ece", "bo\nb", "bo\u2028b", "\ue000"],
)
def test_a_user_id_too_long_or_with_invisible_characters_is_refused(make_manager, user_id: str) -> None:
    """An id that displays as another user's (a zero-width space, a direction mark) or runs to
    pages is refused by name, and nothing is written."""
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="user_id"):
        manager.record_interaction_sync("你好", "你好呀", user_id=user_id)
    with pytest.raises(InvalidInputError, match="user_id"):
        manager.retrieve("你好", user_id=user_id)
    assert manager.debug_state()["interactions_recorded"] == 0
    assert manager.record_interaction_sync("你好", "你好呀", user_id="a" * 256)  # the longest allowed
    assert manager.record_interaction_sync("你好", "你好呀", user_id="林远 Lin-Yuan@example.com")
