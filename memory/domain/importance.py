"""How much a line is worth remembering, offline, for Chinese and English: a rule-based scorer.

Each category below is a set of patterns with a weight; a line's importance combines the weights
of the categories it matches as independent evidence, ``1 - prod(1 - w)``, and is capped low for
greetings and small talk that match nothing else. What scores high: first-person facts and
preferences, health and allergies, people and relationships, dates and birthdays, numbers,
places and moves, plans and promises. What scores low: greetings, thanks, laughter, fillers.

The score sets a new memory's starting significance (:mod:`memory.layers.temporary`) and can
weigh in retrieval (``retrieval.importance_weight``); with a summary model, the model's own
judgement (the gate) replaces it.
"""

from __future__ import annotations

import math
import re

from memory.domain.sentences import is_question

Rule = tuple[float, re.Pattern[str]]


def _rule(weight: float, *patterns: str) -> Rule:
    return weight, re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


RULES: tuple[Rule, ...] = (
    # first-person facts and lasting preferences
    _rule(
        0.55,
        r"我(?:是|叫|姓|在|住|有|养|对|的|们家|家|最|很|不|从来|一直|每天|每周|平时|以前|现在|刚|搬)",
        r"\b(?:i am|i'm|my name|i live|i work|i have|i've got|i own|i love|i hate|i like|i prefer|"
        r"i moved|i just|i got|i was born|"
        r"i always|i never|i usually|i'm from|my (?:favou?rite|job|home|wife|husband|son|daughter|"
        r"kid|dog|cat|mom|mum|dad|mother|father|brother|sister|boss|phone|car|birthday))\b",
    ),
    _rule(0.45, r"喜欢|讨厌|最爱|爱吃|不吃|不喝|受不了|\b(?:favou?rite|love|hate|can't stand|prefer)\b"),
    # health
    _rule(
        0.75,
        r"过敏|哮喘|糖尿病|高血压|手术|住院|怀孕|药|病|血型|近视|失眠|抑郁",
        r"\b(?:allerg\w*|asthma|diabet\w*|surgery|hospital|pregnan\w*|medicat\w*|pills?|blood type|"
        r"vegan|vegetarian|gluten|lactose|insomnia|depress\w*|diagnos\w*)\b",
    ),
    # people and relationships
    _rule(
        0.5,
        r"妈妈|爸爸|母亲|父亲|老婆|老公|丈夫|妻子|女儿|儿子|孩子|男朋友|女朋友|对象|哥哥|姐姐|弟弟|妹妹|"
        r"爷爷|奶奶|外婆|外公|同事|老板|室友|闺蜜|宠物|猫|狗",
        r"\b(?:mom|mum|dad|mother|father|wife|husband|daughter|son|kids?|children|boyfriend|girlfriend|"
        r"partner|brother|sister|grandm\w*|grandp\w*|colleague|boss|roommate|pet|cat|dog|puppy)\b",
    ),
    # names: 叫X / named X / called X
    _rule(0.45, r"叫[\u4e00-\u9fffA-Za-z]", r"\b(?:named|called)\s+[A-Z]"),
    # dates, birthdays, anniversaries
    _rule(
        0.5,
        r"生日|纪念日|\d+月\d+[日号]|[一二三四五六七八九十]+月|星期[一二三四五六日天]|周[一二三四五六日末]|明年|下个月",
        r"\b(?:birthday|anniversary|january|february|march|april|may|june|july|august|september|"
        r"october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    ),
    # numbers (ages, phones, amounts) and places / moves / work
    _rule(0.3, r"\d{2,}"),
    _rule(
        0.45,
        r"搬到|搬家|住在|老家|来自|在.{1,6}(?:工作|上班|上学|读书)|毕业|工作|职业|公司",
        r"\b(?:moved to|moving to|live in|living in|from|work at|work as|job|graduat\w*|hometown)\b",
    ),
    # plans, promises, commitments
    _rule(
        0.4,
        r"下周|明天|后天|打算|计划|准备|要去|记得|别忘|答应|约好",
        r"\b(?:next week|tomorrow|plan\w*|going to|gonna|will|remember|don't forget|promise\w*)\b",
    ),
)

_NOT_ALNUM = re.compile(r"[\W_]+")
"""What ``str.isalnum`` rejects (``\\w`` is exactly it plus the underscore)."""
SMALL_TALK = re.compile(
    r"^(?:\W|[哈嘿嗯哦噢啊呀哇好的是吗呢吧啦]|谢谢|你好|早安|晚安|早上好|晚上好|拜拜|再见|没事|好吧|"
    r"ok|okay|lol|haha\w*|hi|hello|hey|thanks?|thank you|good (?:morning|night|evening)|bye|yes|no|"
    r"sure|cool|nice|wow|hmm+|yeah|yep|nope|\s)+$",
    re.IGNORECASE,
)
BASE = 0.15
"""The importance of a line that matches nothing."""


def importance(text: str) -> float:
    """How much ``text`` is worth remembering, from 0 (small talk) to 1 (a lasting personal fact)."""
    line = " ".join(text.split())
    if not line or SMALL_TALK.match(line):
        return 0.05
    matched = [weight for weight, pattern in RULES if pattern.search(line)]
    score = 1.0 - math.prod(1.0 - w for w in matched) if matched else BASE
    if is_question(line) and not re.search(r"我(?:是|叫|住|有|养|对)|\bi (?:am|have|live)\b", line, re.I):
        score *= 0.6  # asking is not telling
    return max(0.0, min(1.0, max(score, BASE if matched else 0.0)))


def said_in(rendered: str) -> str:
    """What the user said in an interaction as stored (``用户：...\\npersona：...``): its first
    line, the speaker's label taken off."""
    first = rendered.split("\n", 1)[0]
    _, separator, said = first.partition("：") if "：" in first else first.partition(": ")
    return said if separator else first


def said_key(rendered: str) -> str:
    """What the user said in an interaction as stored, case folded, letters and digits only: two
    interactions with the same key say the same thing (whatever the persona replied)."""
    return _NOT_ALNUM.sub("", said_in(rendered).casefold())


def user_importance(rendered: str) -> float:
    """The importance of an interaction as stored: what the user said weighs; the persona's reply
    only adds noise."""
    return importance(said_in(rendered))
