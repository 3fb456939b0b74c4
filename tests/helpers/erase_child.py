"""Child process for the erase-crash test: fills alice's memories (some of them archived), then
erases her and dies by SIGKILL at one step of the erase.

Usage: python erase_child.py STEP, with the test's folders and record in the environment
(``PERSONA_MEMORY__*``). STEP: ``archive`` (the record's transaction committed, the archive file
not yet rewritten), ``rename`` (the new archive file written, not yet renamed), ``vectors``,
``scrub``, ``done`` (everything but the tombstone's "done" mark). Prints "erasing" first.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from memory import MemoryConfig, MemoryManager

MARKER = "qxjvmarker"


def _die(*_: Any, **__: Any) -> Any:
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    step = sys.argv[1]
    config = MemoryConfig()
    config.active.capacity = 1
    config.temporary.decay_coefficient = 0.5
    config.retrieval.top_k = 1  # the retrievals below boost one memory; the rest go cold
    manager = MemoryManager("karin", config)
    for i in range(8):
        manager.record_interaction_sync(
            f"{MARKER}{i}号秘密：我的银行卡密码是{i}{i}{i}", "嗯嗯", user_id="alice"
        )
    manager.record_interaction_sync("我家的柯基叫可乐", "好可爱", user_id="bob")
    manager.record_interaction_sync("今天吃了火锅", "好吃吗", user_id="bob")
    for _ in range(6):
        manager.retrieve("今天天气怎么样", user_id="alice")
    manager.flush()
    engine: Any = manager._engine
    if step == "archive":
        engine.sync.erase_archived = _die
    elif step == "rename":
        os.replace = _die  # the archive's rewrite: its temp file is written and synced first
    elif step == "vectors":
        for layer in engine.eraser.layers.values():
            layer.index.erase_vectors = _die
    elif step == "scrub":
        engine.db.scrub = _die
    elif step == "done":
        engine.eraser.tombstones.finish = _die
    print("erasing", flush=True)
    manager.forget_user("alice")
    print("not killed", flush=True)


if __name__ == "__main__":
    main()
