"""Plain statements that set a slot of the user's life: where they live, their job, car, phone,
partner, school and diet, their hometown, favourite food and drink, team, the instrument they
learn, their computer and commute, in Chinese and English, found by rules (no model). Each slot
holds one current value (a second pet is not a changed pet: pets are no slot).

"我搬家了，现在住在杭州西湖边" and "I switched jobs: now I teach chemistry" say what is true now;
the recorder makes such a statement the slot's current profile fact (``source = "said"``), so the
newest value is in every prompt and the one it replaced is history (:mod:`memory.record.profile`).
A memory that set the slot before is shown marked as history ("以前" / "before"), never as the
current value. Questions set nothing ("我住在哪？", "Where do I live?"), and a statement must be
about the speaker: the rules want "我" / "I" / "my" beside the slot's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from memory.domain.importance import said_in
from memory.domain.types import Layer, ProfileFact, RetrievedMemory

SLOTS = (
    "home", "job", "car", "phone", "partner", "school", "diet",
    "hometown", "favourite_food", "favourite_drink", "team", "instrument", "computer", "commute",
)  # fmt: skip
"""The slots, in the order their rules are tried."""

_QUESTION = re.compile(
    r"[?？]|[吗呢嘛]\s*[。！!～~]*\s*$|什么|哪|谁|多少|怎么|"
    r"^(what|where|which|who|when|how|do|does|did|is|are|am|can|could|would|should)\b",
    re.IGNORECASE,
)
_OCCUPATIONS_ZH = (
    "工程师|设计师|老师|教师|医生|护士|律师|会计|程序员|销售|经理|分析师|记者|厨师|司机|"
    "研究员|公务员|客服|编辑|主播|店长|产品经理|运营|警察|教授|讲师|翻译|模特|演员"
)
_OCCUPATIONS_EN = (
    "engineer|designer|teacher|nurse|doctor|analyst|lawyer|developer|programmer|manager|chef|"
    "accountant|writer|journalist|editor|researcher|scientist|consultant|salesperson|driver|"
    "pharmacist|architect|professor|lecturer|translator|actor|police officer|cashier|barista"
)
_RULES: dict[str, tuple[re.Pattern[str], ...]] = {
    "home": (
        re.compile(r"我.{0,6}(住在|搬到|搬去|搬回|搬家到|定居在|住进了)"),
        re.compile(r"我.{0,4}搬家了"),
        re.compile(r"\bI\b.{0,20}\b(live|living|moved|relocated|settled)\s+(in|to|into|back to)\b", re.I),
        re.compile(r"\bmy (new )?(home|place|flat|apartment|house) is in\b", re.I),
    ),
    "job": (
        re.compile(rf"我.{{0,20}}(做|当|是|成了|成为)(一名|一个|个)?.{{0,8}}({_OCCUPATIONS_ZH})"),
        re.compile(r"我.{0,6}(换工作|跳槽|辞职|入职|转行|升职|被裁)"),
        re.compile(r"\bI\b.{0,12}\bwork(ing)? (as|at|for)\b", re.I),
        re.compile(rf"\bI('m| am)\b.{{0,30}}\b({_OCCUPATIONS_EN})s?\b", re.I),
        re.compile(r"\b(switched|changed|quit|lost) (my )?jobs?\b|\bgot a (new )?job\b", re.I),
        re.compile(r"\bI (now )?teach\b", re.I),
    ),
    "car": (
        re.compile(r"我.{0,8}(买了|换了|换成了|卖了|提了|把车).{0,12}(辆|车)"),
        re.compile(r"我.{0,6}开(着|了)?(一辆|的车是|的是)"),
        re.compile(r"\bI\b.{0,20}\b(drive|bought|sold|got|own|leased)\b.{0,30}\b(car|tesla|bmw|audi|toyota|honda|byd|"
                   r"volkswagen|vw|mercedes|ford|nissan|porsche|volvo|model [3syx])\b", re.I),
    ),
    "phone": (
        re.compile(r"我.{0,10}(用|换|买了|换成了|入手了).{0,16}手机|我的手机是|手机换成"),
        re.compile(r"\bI\b.{0,20}\b(use|using|bought|got|switched to|changed to|have)\b.{0,30}"
                   r"\b(phone|iphone|pixel|galaxy|smartphone)\b", re.I),
        re.compile(r"\bmy (new )?phone is (a|an|the)\b", re.I),
    ),
    "partner": (
        re.compile(r"我(的)?(男朋友|女朋友|老公|老婆|丈夫|妻子|对象|未婚夫|未婚妻)(叫|是|的名字是)"),
        re.compile(r"我.{0,6}(结婚了|离婚了|分手了|脱单了|订婚了)"),
        re.compile(r"\b[Mm]y (new )?(boyfriend|girlfriend|husband|wife|partner|fianc[ée]e?)"
                   r"('s name is| is called| is named| is) [A-Z]\w+"),
        re.compile(r"\bI\b.{0,12}\b(got married|got engaged|broke up|got divorced)\b", re.I),
    ),
    "school": (
        re.compile(r"我.{0,8}(考上了|转学到|在).{0,16}(大学|学院|中学|高中|小学|学校).{0,6}(读|上学|念书|学习|读书|上课)?"),
        re.compile(r"\bI\b.{0,12}\b(study|studying|enrolled|transferred)\b.{0,6}\b(at|to)\b", re.I),
        re.compile(r"\bI('m| am) (a student|in (my )?(first|second|third|final) year) at\b", re.I),
    ),
    "diet": (
        re.compile(r"我.{0,8}(吃素|素食|戒糖|戒肉|不吃肉|生酮饮食|戒碳水)"),
        re.compile(r"\bI('m| am)? ?.{0,12}\b(vegetarian|vegan|pescatarian|keto|gluten[- ]free)\b", re.I),
        re.compile(r"\bI\b.{0,12}\b(stopped|quit|gave up) (eating|meat|sugar|carbs)\b", re.I),
    ),
    "hometown": (
        re.compile(r"我(的)?(老家|家乡|故乡)(在|是)|我(是|来自).{1,8}人[，。,.！!]|我(出生|长大)在|我在.{1,8}(出生|长大)"),
        re.compile(r"\bI('m| am) (originally )?from\b|\bI (grew up|was born) in\b|\bmy hometown is\b", re.I),
    ),
    "favourite_food": (
        re.compile(r"我最(爱|喜欢)吃(的是)?|我最(爱|喜欢)的(食物|菜)是"),
        re.compile(r"\b[Mm]y (all-time )?favou?rite (food|dish|meal) is\b|\bI love eating\b"),
    ),
    "favourite_drink": (
        re.compile(r"我最(爱|喜欢)喝|我每天.{0,6}(都要|都会|必须)?喝(一杯|杯)?"),
        re.compile(r"\b[Mm]y favou?rite drink is\b|\bI drink\b.{0,40}\bevery (day|morning)\b", re.I),
    ),
    "team": (
        re.compile(r"我是.{1,12}的.{0,4}球迷|我(一直)?支持.{1,12}(队|俱乐部)"),
        # a team is a name: "a big Lakers fan", "a fan of the Warriors" (not "a fan of pottery")
        re.compile(r"\bI(?i:'m| am) (?i:a )?(?i:huge |big |die-hard |lifelong )?([A-Z]\w+ ){1,3}(?i:fan)\b"),
        re.compile(r"\bI(?i:'m| am) (?i:a )?(?i:huge |big |die-hard |lifelong )?(?i:fan of the) [A-Z]\w+"),
        re.compile(r"\bI support\b.{1,30}\b(fc|united|city|team)\b", re.I),
    ),
    "instrument": (
        re.compile(r"我.{0,4}(在|正在|开始)?学(弹|拉|吹|打)?(吉他|钢琴|小提琴|大提琴|尤克里里|古筝|二胡|架子鼓|萨克斯|长笛)"),
        re.compile(r"\bI('m| am| have|'ve)? ?(learning|taken up|started|play(ing)?)\b.{0,12}"
                   r"\b(guitar|piano|violin|cello|ukulele|drums|saxophone|flute|bass)\b", re.I),
    ),
    "computer": (
        re.compile(r"我(的|用的是|把)?.{0,6}(电脑|笔记本)(是|换成了|换成)"),
        re.compile(r"\b[Mm]y (laptop|computer|notebook) is\b"),
        re.compile(r"\bI (use|bought|got)\b.{0,20}\b(laptop|macbook|thinkpad)\b"),
    ),
    "commute": (
        re.compile(r"我.{0,6}(骑车|开车|坐地铁|坐公交|走路|步行|打车)(去)?上班|我.{0,4}上班.{0,4}(骑车|开车|坐地铁|坐公交)"),
        re.compile(r"\bI (cycle|bike|drive|walk|commute|take the (bus|subway|metro|train|tube))\b"
                   r".{0,12}\bto work\b", re.I),
    ),
}  # fmt: skip
MAX_VALUE_CHARS = 200
"""A statement longer than this is kept as a profile value cut to its first sentence or this."""


def is_question(text: str) -> bool:
    """Whether a text asks rather than tells (it then sets no slot)."""
    return bool(_QUESTION.search(text.strip()))


def slot_of(text: str) -> str | None:
    """The slot a plain statement sets, or None (questions and other text)."""
    statement = text.strip()
    if not statement or is_question(statement):
        return None
    for slot, rules in _RULES.items():
        if any(rule.search(statement) for rule in rules):
            return slot
    return None


def value_of(text: str) -> str:
    """The profile value a statement is stored as: the statement, cut when long."""
    statement = " ".join(text.split())
    if len(statement) <= MAX_VALUE_CHARS:
        return statement
    first = re.split(r"(?<=[。！!.])\s*", statement, maxsplit=1)[0]
    return first if len(first) <= MAX_VALUE_CHARS else statement[: MAX_VALUE_CHARS - 1] + "…"


def mark_superseded(
    memories: Sequence[RetrievedMemory], known: Sequence[ProfileFact]
) -> list[RetrievedMemory]:
    """The memories, those whose statement set a slot whose current fact (in ``known``) was set
    later marked :attr:`~memory.domain.types.RetrievedMemory.superseded` (persona memories never)."""
    current = {f.key: f.since for f in known if f.key in SLOTS}

    def stale(m: RetrievedMemory) -> bool:
        return m.entry.layer != Layer.STATIC and superseded(m.entry.content, m.entry.created_at, current)

    return [replace(m, superseded=True) if current and stale(m) else m for m in memories]


def superseded(content: str, created: datetime, current: dict[str, datetime]) -> bool:
    """Whether a memory's statement (``content``, made at ``created``) set a slot whose current
    fact (``current``: slot -> when it was set) was set later."""
    slot = slot_of(said_in(content))
    return slot is not None and slot in current and current[slot] > created
