"""Benchmarks of the memory engine: ``python -m bench`` (perf) and ``... quality``.

This module holds what the benchmarks share and nothing heavy (standard library only): the
synthetic interaction generator, the query set, percentiles and the repository root.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_ZH_TIME = ["今天", "昨天晚上", "上周末", "刚才", "早上", "下午", "前天", "周三", "过年的时候", "去年夏天"]
_ZH_PEOPLE = ["妈妈", "室友", "导师", "同事小王", "表妹", "老朋友阿杰", "邻居", "乐队的鼓手", "学长", "爷爷"]
_ZH_PLACE = ["西湖边", "图书馆", "火锅店", "琴房", "地铁站", "咖啡馆", "超市", "公园", "医院", "livehouse"]
_ZH_ACT = [
    "练吉他",
    "吃小笼包",
    "复习考试",
    "散步",
    "看电影",
    "买菜",
    "排练新歌",
    "讨论毕业设计",
    "拍照片",
    "喝奶茶",
    "修自行车",
    "写歌词",
]
_ZH_FEEL = ["特别开心", "有点累", "很紧张", "心情复杂", "超级满足", "有些失落", "被感动了", "觉得好笑"]
_ZH_FACT = [
    "我对花生过敏",
    "我下个月要去北京出差",
    "我最近在学日语",
    "我养了一只叫团子的猫",
    "我不太能吃辣",
    "我的生日是十月三号",
    "我在准备雅思考试",
    "我喜欢周杰伦的老歌",
    "我每天早上跑步五公里",
    "我换了新的手机号",
]
_EN_TIME = ["Today", "Last night", "This morning", "Over the weekend", "Yesterday", "On Friday", "Last month"]
_EN_PEOPLE = ["my sister", "an old friend", "my manager", "the neighbours", "my roommate", "my dad", "Tom"]
_EN_PLACE = ["the park", "a ramen shop", "the office", "the gym", "the airport", "a bookstore", "the beach"]
_EN_ACT = [
    "deploy the redis cluster",
    "play board games",
    "watch a jazz concert",
    "fix the leaking sink",
    "plan a trip to Kyoto",
    "practise guitar chords",
    "debug a flaky test",
    "bake sourdough bread",
    "train for a half marathon",
    "paint the kitchen",
]
_EN_FEEL = ["great", "exhausting", "a bit stressful", "really fun", "surprisingly calm", "boring", "odd"]
_REPLY = [
    "前辈好厉害～",
    "听起来好棒呀，前辈！",
    "记住啦，前辈～",
    "要好好休息哦～",
    "下次也带上我吧！",
    "哇，我也想试试～",
    "前辈辛苦啦，抱抱～",
    "That sounds lovely, senpai~",
    "I'll remember that, senpai!",
    "Take care of yourself, okay?",
]

QUERIES: tuple[str, ...] = (
    "前辈对什么过敏？",
    "我上次和谁去了西湖边？",
    "我在学什么语言？",
    "我的猫叫什么名字？",
    "我什么时候去北京出差？",
    "我能吃辣吗？",
    "我的生日是哪天？",
    "我最近在准备什么考试？",
    "我喜欢谁的歌？",
    "我每天早上做什么运动？",
    "我和室友一起做过什么？",
    "上周末我心情怎么样？",
    "我在图书馆做了什么？",
    "我和导师讨论了什么？",
    "我们去哪家火锅店吃饭了？",
    "我和表妹去看电影了吗？",
    "乐队排练新歌顺利吗？",
    "我什么时候觉得很紧张？",
    "我买菜的时候遇到了谁？",
    "爷爷最近身体好吗？",
    "我和老朋友阿杰做了什么？",
    "我喝奶茶了吗？",
    "我写的歌词怎么样？",
    "我换了新的手机号吗？",
    "你喜欢什么歌？",
    "你是哪里人？",
    "你会弹什么乐器？",
    "你最喜欢吃什么？",
    "redis 集群的配置在哪里？",
    "我上次修自行车是什么时候？",
    "What am I allergic to?",
    "Who did I go to the park with?",
    "When did I deploy the redis cluster?",
    "What did I do at the gym?",
    "Did I plan a trip to Kyoto?",
    "How was the jazz concert?",
    "What did my sister and I do last night?",
    "Did I fix the leaking sink?",
    "Where did I bake sourdough bread?",
    "What was stressful this morning?",
    "Am I training for a marathon?",
    "What did I do with my manager at the office?",
    "Who came to the airport with me?",
    "What board games did we play?",
    "Did I debug the flaky test?",
    "What do you remember about my weekend?",
    "What music do you like?",
    "Tell me about your family.",
    "What did Tom and I do on Friday?",
    "Do I have a cat?",
)
"""Fifty varied Chinese and English queries (facts, events, the persona's own memories)."""


def synthetic_texts(rng: random.Random) -> tuple[str, str]:
    """One synthetic ``(user_input, response)`` pair: Chinese or English, event or fact."""
    kind = rng.random()
    if kind < 0.45:
        text = (
            f"{rng.choice(_ZH_TIME)}我和{rng.choice(_ZH_PEOPLE)}在{rng.choice(_ZH_PLACE)}"
            f"{rng.choice(_ZH_ACT)}，{rng.choice(_ZH_FEEL)}。"
        )
    elif kind < 0.6:
        text = f"{rng.choice(_ZH_FACT)}，{rng.choice(_ZH_TIME)}才{rng.choice(_ZH_ACT)}。"
    else:
        text = (
            f"{rng.choice(_EN_TIME)} I went to {rng.choice(_EN_PLACE)} with {rng.choice(_EN_PEOPLE)} "
            f"to {rng.choice(_EN_ACT)}; it was {rng.choice(_EN_FEEL)}."
        )
    if rng.random() < 0.3:
        text += f" #{rng.randrange(10_000)}"
    return text, rng.choice(_REPLY)


def synthetic_records(
    count: int, *, seed: int = 7, user_id: str | None = "bench-user", start: datetime | None = None
) -> Iterator[dict[str, Any]]:
    """``count`` import records (``user_input``, ``response``, ``timestamp``, ``user_id``).

    Seeded, so every run stores the same texts; timestamps are one minute apart, oldest first.
    """
    rng = random.Random(seed)
    first = start or datetime.now(UTC) - timedelta(minutes=count + 1)
    for index in range(count):
        user_input, response = synthetic_texts(rng)
        yield {
            "user_input": user_input,
            "response": response,
            "timestamp": first + timedelta(minutes=index),
            "user_id": user_id,
        }


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` (inclusive method; 0.0 when empty)."""
    if not values:
        return 0.0
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return float(cuts[min(98, max(0, round(q) - 1))])


def latency_ms(seconds: Sequence[float]) -> dict[str, float]:
    """``{"p50", "p95", "n"}`` in milliseconds from per-call durations in seconds."""
    millis = [s * 1000.0 for s in seconds]
    return {"p50": percentile(millis, 50), "p95": percentile(millis, 95), "n": float(len(millis))}


def paired_latency(
    calls: dict[str, Callable[[str], object]], queries: Sequence[str], repeats: int
) -> dict[str, dict[str, float]]:
    """p50/p95 (ms) of each call over ``queries`` x ``repeats``, the calls taking turns query by
    query (in a rotating order), so that a machine whose speed drifts during the run (a shared
    virtual machine: the same Python loop took 66 to 129 ms within a minute) slows them alike
    and their ratio holds. Three queries warm each call up first."""
    names = list(calls)
    for query in queries[:3]:
        for name in names:
            calls[name](query)
    durations: dict[str, list[float]] = {name: [] for name in names}
    for turn, query in enumerate(q for _ in range(repeats) for q in queries):
        shift = turn % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter()
            calls[name](query)
            durations[name].append(time.perf_counter() - started)
    return {name: latency_ms(seconds) for name, seconds in durations.items()}


def repo_root() -> Path:
    """The repository holding ``bench/`` (next to the package, else the working directory)."""
    for candidate in (Path(__file__).resolve().parents[1], Path.cwd()):
        if (candidate / "bench").is_dir():
            return candidate
    return Path.cwd()


def folder_bytes(*folders: Path) -> int:
    """Total size in bytes of the files under ``folders`` (missing folders count 0)."""
    total = 0
    for folder in folders:
        if folder.exists():
            total += sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return total
