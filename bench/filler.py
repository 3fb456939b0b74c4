"""Small talk for the retention bench: varied Chinese and English turns, seeded.

Sixty templates (thirty in each language) with slots filled at random, and a persona reply in
the same language. Nothing here names a personal fact of :mod:`bench.retention_sets`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

_ZH = {
    "t": ["今天", "昨天", "刚才", "今天早上", "中午", "晚上", "周末", "上周"],
    "w": ["一直在下雨", "热得要命", "有点冷", "阳光很好", "刮大风", "闷闷的"],
    "w2": ["下雨", "降温", "出太阳", "刮风"],
    "f": ["挺开心的", "有点累", "好无聊", "还不错", "心情一般", "特别放松"],
    "food": ["饺子", "炒饭", "拉面", "麻辣烫", "煎饼果子", "馄饨", "汉堡", "烤串", "包子", "酸菜鱼"],
    "food2": ["沙拉", "水果", "玉米", "燕麦粥", "红薯"],
    "drink": ["奶茶", "柠檬水", "绿茶", "豆浆", "可乐", "酸梅汤"],
    "taste": ["还不错", "有点咸", "超级好吃", "一般般", "太甜了"],
    "show": ["一部悬疑剧", "一个综艺", "一部纪录片", "一部老电影", "一部动画片"],
    "place": ["超市", "公园", "商场", "书店", "健身房", "菜市场", "地铁站", "图书馆"],
    "act": ["打扫房间", "洗衣服", "看书", "散步", "做饭", "整理照片", "刷手机", "睡午觉"],
    "day": ["一", "二", "三", "四", "五"],
}
_EN = {
    "t": ["today", "this morning", "last night", "yesterday", "this weekend", "at lunch"],
    "w": ["rainy", "sunny", "freezing", "windy", "humid", "cloudy"],
    "w2": ["rainy", "colder", "sunny", "stormy"],
    "f": ["tired", "relaxed", "bored", "happy", "a bit stressed", "sleepy"],
    "food": ["pizza", "dumplings", "a burrito", "pancakes", "fried rice", "a sandwich", "ramen", "tacos"],
    "food2": ["a salad", "some fruit", "soup", "oatmeal", "yoghurt"],
    "drink": ["tea", "lemonade", "a smoothie", "hot chocolate", "sparkling water", "iced tea"],
    "taste": ["great", "too salty", "amazing", "just okay", "way too sweet"],
    "show": [
        "a crime drama",
        "a cooking show",
        "a documentary about whales",
        "an old sitcom",
        "a space movie",
    ],
    "place": ["the supermarket", "the park", "the mall", "the library", "the gym", "the post office"],
    "act": [
        "cleaning the flat",
        "doing laundry",
        "reading",
        "cooking",
        "sorting old photos",
        "answering emails",
    ],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday"],
}

ZH_TEMPLATES = (
    "{t}天气{w}，{f}。",
    "{t}吃了{food}，{taste}。",
    "你喜欢喝{drink}吗？",
    "{t}去{place}转了一圈，{f}。",
    "最近在看{show}，根本停不下来。",
    "{t}一直在{act}，{f}。",
    "你今天练琴了吗？",
    "好想放假啊，上班好累。",
    "{t}地铁好挤，差点没挤上去。",
    "我刚{act}完，终于可以歇一会儿了。",
    "你觉得{food}和{food2}哪个更好吃？",
    "{t}在{place}门口碰到一只小猫，好可爱。",
    "{t}的晚霞好漂亮，可惜没拍下来。",
    "我有点困，昨晚没睡好。",
    "周末你一般做什么呀？",
    "推荐一首好听的歌给我吧。",
    "{t}买了一杯{drink}，{taste}。",
    "今天才星期{day}，感觉这周过得好慢。",
    "我想学做{food}，你会做吗？",
    "{place}今天人特别多，排了好久的队。",
    "刚刚电脑突然死机了，吓我一跳。",
    "我最近在减肥，晚饭只吃{food2}。",
    "外面{w}，一点都不想出门。",
    "你说明天会不会{w2}？",
    "今天工作好忙，午饭都没顾上吃。",
    "我把房间重新布置了一下，{f}。",
    "{t}看了{show}，结局有点意外。",
    "最近总是失眠，有什么好办法吗？",
    "我{t}走了一万多步！",
    "楼下新开了一家卖{food}的店，要不要去试试？",
)
EN_TEMPLATES = (
    "It's so {w} {t}, I feel {f}.",
    "I had {food} {t}, it was {taste}.",
    "Do you like {drink}?",
    "I went to {place} {t} and came back {f}.",
    "I've been watching {show} lately, can't stop.",
    "I spent {t} {act}.",
    "Did you practise your guitar today?",
    "I really need a holiday, work is draining.",
    "The bus was late again {t}.",
    "Just finished {act}, time for a break.",
    "Which is better, {food} or {food2}?",
    "I saw a cute squirrel near {place} {t}.",
    "The sunset was beautiful {t}, I forgot to take a photo.",
    "I'm a bit sleepy, I didn't sleep well.",
    "What do you usually do on weekends?",
    "Can you recommend a nice song?",
    "I grabbed {drink} on the way home, it was {taste}.",
    "It's only {day}, this week feels so long.",
    "I want to learn how to make {food}, can you cook?",
    "{place} was so crowded {t}, the queue was endless.",
    "My laptop froze in the middle of a meeting.",
    "I'm trying to eat lighter, just {food2} for dinner.",
    "It's {w} outside, I don't want to go out at all.",
    "Do you think it will be {w2} tomorrow?",
    "Work was crazy {t}, I skipped lunch.",
    "I rearranged my room {t}, I feel {f}.",
    "I watched {show} {t}, the ending surprised me.",
    "I keep waking up at 4am, any tips?",
    "I walked more than ten thousand steps {t}!",
    "A new place selling {food} opened downstairs, want to try it?",
)
ZH_REPLIES = (
    "嗯嗯，前辈说的我都记着呢～",
    "听起来不错呀，前辈！",
    "前辈辛苦啦，抱抱～",
    "哈哈，好有意思～",
    "要照顾好自己哦～",
    "下次也带上我吧！",
    "诶——真的吗？快跟我多说一点！",
    "我也想试试看～",
)
EN_REPLIES = (
    "That sounds nice, senpai~",
    "Oh really? Tell me more!",
    "Take care of yourself, okay?",
    "Haha, I love that~",
    "Got it, senpai!",
    "Next time take me with you!",
    "Ehh, really? That's so cool~",
    "I'd like to try that too~",
)
TEMPLATES = ZH_TEMPLATES + EN_TEMPLATES


def reply(rng: random.Random, lang: str) -> str:
    """A persona reply in ``lang``."""
    return rng.choice(ZH_REPLIES if lang == "zh" else EN_REPLIES)


def _fill(template: str, slots: dict[str, list[str]], rng: random.Random) -> str:
    text = template.format(**{name: rng.choice(values) for name, values in slots.items()})
    return text[0].upper() + text[1:]


def filler_turns(seed: int = 11) -> Iterator[tuple[str, str]]:
    """An endless, seeded stream of small-talk ``(user_input, response)`` turns."""
    rng = random.Random(seed)
    while True:
        template = rng.choice(TEMPLATES)
        lang = "zh" if template in ZH_TEMPLATES else "en"
        yield _fill(template, _ZH if lang == "zh" else _EN, rng), reply(rng, lang)
