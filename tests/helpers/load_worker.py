"""One chatbot worker of the load test (``tests/record/test_load.py``): a retrieval before each reply,
then the record; every so often the summary job. Prints ``ready``, then each acknowledged
interaction id, one per line, the moment ``record_interaction_sync`` returns.

Usage: python load_worker.py PERSONAS DATA_DIR ARCHIVE_DIR CHROMA_PORT DSN WORKER USERS SECONDS
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from memory import MemoryConfig, MemoryManager, StoreMode

TOPICS = ["钢琴", "咖啡", "跑步", "日语", "猫", "旅行", "考试", "吉他", "hiking", "cooking"]


def main() -> None:
    personas, data_dir, archive_dir, port, dsn, worker, users, seconds = sys.argv[1:9]
    config = MemoryConfig()
    config.personas_dir = personas
    config.data_dir = data_dir
    config.archive_dir = archive_dir
    config.store.mode = StoreMode.HTTP
    config.store.port = int(port)
    config.store.record = "postgres"  # type: ignore[assignment]
    config.store.postgres_dsn = dsn  # type: ignore[assignment]
    config.active.capacity = 3
    config.retrieval.catch_up_seconds = 0.0
    rng = random.Random(int(worker))
    manager = MemoryManager("karin", config)
    print("ready", flush=True)
    deadline = time.monotonic() + float(seconds)
    count = 0
    while time.monotonic() < deadline:
        user = f"u{rng.randrange(int(users))}"
        topic = rng.choice(TOPICS)
        manager.retrieve(f"我以前说过{topic}吗？", user_id=user)
        text = f"我是{worker}号窗口的第{count}句，我最近很喜欢{topic}，这件事很重要。"
        print(manager.record_interaction_sync(text, "记住啦～", user_id=user), flush=True)
        count += 1
        if count % 5 == 0:
            asyncio.run(manager.run_summary_now())
    manager.close()
    print("done", flush=True)


if __name__ == "__main__":
    main()
