"""Under load, background enrichment keeps the backlog from growing, and leaves what waited
before the requests began (an import's) for a quiet moment."""

from __future__ import annotations

import threading
import time

import pytest

from memory import MemoryManager
from memory.index.e5_model import E5Model
from memory.write import enrichment

IMPORTED = [
    {"user_input": f"以前的第{i}条聊天记录：我喜欢{topic}", "response": "嗯嗯", "user_id": "u1"}
    for i, topic in enumerate(["猫", "dogs", "火锅", "hiking", "咖啡"] * 20)
]


def test_requests_hold_back_an_imports_backlog_but_not_what_they_add(
    make_manager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(enrichment, "BACKLOG_UNDER_LOAD", 30)
    monkeypatch.setattr(enrichment, "BACKLOG_SEEN_SECONDS", 0.0)
    manager: MemoryManager = make_manager(background=False)  # no worker: the test asks the enricher
    enricher = manager._engine.sync.enricher
    manager.import_interactions(IMPORTED)
    assert manager.flush()
    imported = manager.debug_state()["store"]["pending_enrichment"]
    assert imported >= 30

    monkeypatch.setattr(enrichment, "BUSY_SECONDS", 0.0)
    assert not enricher.held_back()  # no request lately: enrichment runs
    monkeypatch.setattr(enrichment, "BUSY_SECONDS", 60.0)
    manager.retrieve("我喜欢什么？", user_id="u1")
    assert enricher.held_back()  # requests come, and the backlog is the import's
    for i in range(20):  # the active window holds the first ten: ten wait for enrichment
        manager.record_interaction_sync(f"Today I fixed bike number {i}", "Nice!", user_id="u2")
    assert manager.flush()
    assert enricher.held_back()  # grown by 10, under the bound
    for i in range(25):
        manager.record_interaction_sync(f"我今天读了第{i}本书", "真棒", user_id="u2")
    assert manager.flush()
    assert manager.debug_state()["store"]["pending_enrichment"] >= imported + 30
    assert not enricher.held_back()  # grown past the bound: enrichment runs under load too
    monkeypatch.setattr(enrichment, "BUSY_SECONDS", 0.0)
    assert not enricher.held_back()  # quiet again


def test_a_batch_under_way_pauses_while_requests_come_and_goes_on_after(
    make_manager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enrichment that began in a quiet moment stops after its current E5 pass once requests
    come (it would take a core from them), and goes on once they stop."""
    passes: list[float] = []
    run = E5Model._run

    def counted(model: E5Model, sequences: list[list[int]]) -> object:
        if "background" in threading.current_thread().name:
            passes.append(time.monotonic())
        return run(model, sequences)

    monkeypatch.setattr(E5Model, "_run", counted)
    manager: MemoryManager = make_manager()
    manager.import_interactions(IMPORTED * 4)
    assert manager.flush()
    deadline = time.monotonic() + 60
    while len(passes) < 4 and time.monotonic() < deadline:  # the persona's memories, then these
        time.sleep(0.01)
    assert len(passes) >= 4, "the worker is enriching"
    start = time.monotonic()
    while time.monotonic() < start + 3:  # requests a few times a second: the cores are free between them
        manager.retrieve("我喜欢什么？", user_id="u1")
        time.sleep(0.1)
    stopped = time.monotonic()
    assert [t for t in passes if start + 1 < t < stopped] == []  # the pass under way ended by then
    assert manager.debug_state()["store"]["pending_enrichment"] > 0
    assert manager.flush(enrich=True)
    assert manager.debug_state()["store"]["pending_enrichment"] == 0
    assert [t for t in passes if t > stopped]  # it went on
