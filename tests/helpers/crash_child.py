"""Child process for the crash test: records interactions forever, reporting each acknowledged id.

Usage: python crash_child.py PERSONAS_DIR DATA_DIR SEED. Prints "ready", then one id per line
after each ``record_interaction_sync`` returns. The parent kills it with SIGKILL.
"""

from __future__ import annotations

import asyncio
import random
import sys

from memory import MemoryConfig, MemoryManager


def main() -> None:
    personas_dir, data_dir, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    config = MemoryConfig()
    config.personas_dir = personas_dir
    config.data_dir = f"{data_dir}/memory_store"
    config.archive_dir = f"{data_dir}/archive"
    config.active.capacity = 3
    config.temporary.decay_coefficient = 0.6  # forgets after 4 untouched ticks: archive traffic
    config.retrieval.quotas = {"temporary": 1, "summary": 1, "static": 0}
    config.retrieval.caps = {"temporary": 1, "summary": 1, "static": 0}
    config.retrieval.top_k = 2
    if len(sys.argv) > 4:  # the record on a Postgres server
        config.store.record = "postgres"  # type: ignore[assignment]
        config.store.postgres_dsn = sys.argv[4]  # type: ignore[assignment]
    manager = MemoryManager("karin", config)
    print("ready", flush=True)
    count = 0
    while True:
        count += 1
        text = f"种子{seed}第{count}句：{rng.choice(['猫', '吉他', 'redis', '京都', '草莓'])}{rng.random()}"
        interaction_id = manager.record_interaction_sync(text, "好的～")
        sys.stdout.write(interaction_id + "\n")
        sys.stdout.flush()
        if count % 3 == 0:
            manager.retrieve(rng.choice(["猫", "吉他", "京都"]))
        if count % 17 == 0:
            asyncio.run(manager.run_summary_now())


if __name__ == "__main__":
    main()
