"""The corpus the slot classifier learns from (:mod:`memory.domain.slot_model`): generated
statements and statements written by hand.

Each slot's values, acts and states (:mod:`memory.domain.slot_phrases`) are composed with
times, openers and tails (:mod:`memory.domain.slot_frames`): first person is the slot's class;
the same phrases said of someone else, negated, as a wish, a plan or a question are ``none``,
and so is small talk and personal facts that are no slot.

Beside them, statements written by hand (:mod:`memory.domain.slot_written`), each counted
:data:`WRITTEN_WEIGHT` times. Nothing here is taken from the benchmarks' sentences.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from memory.domain.slot_frames import (
    ADJECTIVE_EN,
    CHAT_EN,
    CHAT_ZH,
    DESCRIBED,
    EPISODES,
    FILL,
    LATER_EN,
    LATER_ZH,
    NOW_EN,
    NOW_ZH,
    OPEN_EN,
    OPEN_ZH,
    PLAN_EN,
    PLAN_ZH,
    ROUTINES,
    SELF,
    SKILLS,
    TAIL_EN,
    TAIL_ZH,
    TIME_EN,
    TIME_ZH,
    TODAY_EN,
    TODAY_ZH,
    TRANSPORT_EN,
    WHO_EN,
    WHO_ZH,
    WOULD_EN,
)
from memory.domain.slot_phrases import NONE, PHRASES, SLOTS
from memory.domain.slot_written import FORMS, written, written_forms

__all__ = ["FORMS", "NONE", "SLOTS", "corpus", "forms"]

WRITTEN_WEIGHT = 2
"""How many times each written statement (:mod:`memory.domain.slot_written`) is in the corpus."""
WRITTEN_FORM_WEIGHT = 6
"""How many times each written statement is among the forms (:func:`forms`): the generated ones
outnumber them about ten to one and teach only the generator's forms."""


def _forms(phrase: str) -> tuple[str, str]:
    first, _, other = phrase.partition("|")
    return first, other


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _english(slot: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    spec = PHRASES[slot]
    for plain in spec["v_en"]:
        value = f"{rng.choice(ADJECTIVE_EN)}{plain}" if slot in DESCRIBED else plain
        for act in spec["acts_en"]:
            base, past = (p.format(v=value) for p in _forms(act))
            mine = past
            yield f"I {mine}{rng.choice(TIME_EN)}", slot
            yield f"I just {mine}", slot
            yield f"just {mine}", slot
            if slot != "hometown":
                yield f"I've finally {_perfect(past)}", slot
            yield f"{rng.choice(WHO_EN)} {_theirs(past)}{rng.choice(TIME_EN)}", NONE
            yield f"I never {mine}", NONE
            yield f"I didn't {base}", NONE
            yield f"if I {mine}{rng.choice([',', ''])} {rng.choice(WOULD_EN)}", NONE
            yield f"I wish I could {base}", NONE
            yield f"I'm {rng.choice(PLAN_EN)} to {base}{rng.choice(LATER_EN)}", NONE
            yield f"{rng.choice(['maybe one day', 'soon', 'next month', 'at some point'])} I'll {base}", NONE
            yield f"should I {base}?", NONE
        for state in spec["states_en"]:
            mine, theirs = _forms(state)
            t, bare = rng.choice(TRANSPORT_EN), value.removeprefix("the ")
            mine = mine.format(v=value, t=t, bare=bare)
            theirs = theirs.format(v=value, t=t, bare=bare, who="{who}", whose="{whose}", whom="{whom}")
            yield f"{mine}{rng.choice(NOW_EN)}", slot
            yield f"these days {mine}", slot
            who = rng.choice(WHO_EN)
            whose = f"{who}'s" if who not in ("he", "she") else {"he": "his", "she": "her"}[who]
            whom = {"he": "him", "she": "her"}.get(who, who)
            yield theirs.format(who=who, whose=whose, whom=whom), NONE
            yield f"I don't think {mine}", NONE
            yield f"it's not true that {mine}", NONE
            yield f"if only {mine}", NONE
            yield f"do you think {mine}?", NONE
            other = (
                rng.choice(spec["states_en"])
                .partition("|")[0]
                .format(v=rng.choice(spec["v_en"]), t=t, bare=bare)
            )
            yield (
                f"{rng.choice(['no longer', 'not anymore:', 'things changed,'])} {mine}{rng.choice(NOW_EN)}",
                slot,
            )
            yield f"used to be that {other}, but {mine} now", slot
        for change in spec.get("change_en", []):
            now = rng.choice(spec["states_en"]).partition("|")[0].format(v=value, t=t, bare=bare)
            yield f"{change}{rng.choice(TIME_EN)}, {now}", slot


def _perfect(past: str) -> str:
    irregular = {"became": "become", "got": "gotten", "took": "taken", "bought": "bought", "went": "gone",
                 "gave": "given", "fell": "fallen", "was": "been", "grew": "grown"}  # fmt: skip
    verb, _, rest = past.partition(" ")
    return f"{irregular.get(verb, verb)} {rest}".strip()


def _theirs(past: str) -> str:
    return past.replace("my ", "their ")


def _chinese(slot: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    spec = PHRASES[slot]
    for value in spec["v_zh"]:
        for act in spec["acts_zh"]:
            done = act.format(v=value)
            bare = done.replace("了", "", 1)
            yield f"我{rng.choice(TIME_ZH)}{done}", slot
            yield f"{rng.choice(TIME_ZH)}我{done}", slot
            yield done, slot  # the subject dropped, as in a chat
            yield f"{rng.choice(WHO_ZH)}{rng.choice(TIME_ZH)}{done}", NONE
            yield f"我从来没{bare}过", NONE
            yield f"我没有{bare}", NONE
            yield f"如果我{bare}就好了", NONE
            yield f"要是我{bare}，{rng.choice(['会开心点', '生活会方便很多', '应该挺好玩'])}", NONE
            yield f"我{rng.choice(PLAN_ZH)}{rng.choice(LATER_ZH)}{bare}", NONE
            yield f"{rng.choice(LATER_ZH)}我{rng.choice(PLAN_ZH)}{bare}", NONE
            yield f"我要不要{bare}？", NONE
        for state in spec["states_zh"]:
            said = state.format(v=value)
            yield f"我{rng.choice(NOW_ZH)}{said}", slot
            yield f"{rng.choice(NOW_ZH)}我{said}", slot
            yield f"现在{said}", slot
            yield f"{rng.choice(WHO_ZH)}{rng.choice(NOW_ZH)}{said}", NONE
            yield f"我不{said.removeprefix('是')}" if said.startswith("是") else f"我不{said}", NONE
            yield f"要是我{said}就好了", NONE
            yield f"你觉得我{said}吗？", NONE
            other = rng.choice(spec["states_zh"]).format(v=rng.choice(spec["v_zh"]))
            yield f"我不再{other}了，{rng.choice(NOW_ZH)}{said}", slot
            yield f"以前{other}，{rng.choice(['现在', '如今', '这回'])}{said}", slot
        for change in spec.get("change_zh", []):
            yield (
                f"{rng.choice(['我', '', '又'])}{change}，{rng.choice(['现在', '这回', '如今'])}{said}",
                slot,
            )


_CONTRACTIONS = (
    (" is a ", "'s a "),
    (" is an ", "'s an "),
    ("I am ", "I'm "),
    ("I have ", "I've "),
    (" is ", "'s "),
)


def _contract(text: str, rng: random.Random) -> str:
    """English as typed in a chat: contractions half of the time."""
    for full, short in _CONTRACTIONS:
        if full in text and rng.random() < 0.5:
            text = text.replace(full, short, 1)
    return text


Aside = Callable[[list[str], str], str]
"""Half of the time a bit of small talk from ``templates`` after ``joiner``, else nothing."""


def corpus(seed: int = 7) -> list[tuple[str, str]]:
    """The labelled statements ``(text, slot or "none")``, the same for the same seed."""
    statements, other = _generated(seed)
    return statements + other + written() * WRITTEN_WEIGHT


def forms(seed: int = 7) -> list[tuple[str, str]]:
    """Statements of a slot's kind of value by their form ``(text, "said" or "not")``: the
    generated ones (the user's own are said; someone else's, negated, wished, planned or asked
    are not) and the written ones (:func:`memory.domain.slot_written.written_forms`)."""
    said, other = FORMS
    statements, _ = _generated(seed)
    generated = [(text, other if label == NONE else said) for text, label in statements]
    return generated + written_forms() * WRITTEN_FORM_WEIGHT


def _generated(seed: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The generated slots' statements, and what else the generator composes (no slot)."""
    rng = random.Random(seed)

    def aside(templates: list[str], joiner: str) -> str:
        if rng.random() < 0.5:
            return ""
        return joiner + rng.choice(templates).format(**{k: rng.choice(v) for k, v in FILL.items()})

    statements = list(_statements(rng, aside))
    return statements, [*_one_offs(rng, aside), *_no_slot(rng, aside)]


def _statements(rng: random.Random, aside: Aside) -> Iterator[tuple[str, str]]:
    """Each slot's statements in both languages (of the user: the slot; else none)."""
    for slot in SLOTS:
        for text, label in _english(slot, rng):
            said = _contract(
                f"{rng.choice(OPEN_EN)}{text}{aside(CHAT_EN, ', ')}{rng.choice(TAIL_EN)}",
                rng,
            )
            yield ((_cap(said), label))
        for text, label in _chinese(slot, rng):
            yield (
                (
                    f"{rng.choice(OPEN_ZH)}{text}{aside(CHAT_ZH, '，')}{rng.choice(TAIL_ZH)}",
                    label,
                )
            )


def _one_offs(rng: random.Random, aside: Aside) -> Iterator[tuple[str, str]]:
    """What happened once with a slot's value: no slot."""
    for slot, (zh, en) in EPISODES.items():
        for value in PHRASES[slot]["v_zh"]:
            for _ in range(2):
                said = f"{rng.choice(TODAY_ZH)}{zh.format(v=value)}"
                yield ((f"{said}{aside(CHAT_ZH, '，')}{rng.choice(TAIL_ZH)}", NONE))
        for value in PHRASES[slot]["v_en"]:
            for _ in range(2):
                said = f"I {en.format(v=value)} {rng.choice(TODAY_EN)}"
                yield ((_cap(f"{said}{aside(CHAT_EN, ', ')}{rng.choice(TAIL_EN)}"), NONE))
    for mode in PHRASES["commute"]["v_zh"]:  # once is no habit: a trip today sets no commute
        for _ in range(6):
            when, place = (
                rng.choice(["今天", "昨天", "刚才", "周末"]),
                rng.choice(["公司", "机场", "医院", "商场", "学校"]),
            )
            yield ((f"我{when}{mode}去{place}{aside(CHAT_ZH, '，')}", NONE))
    for mode in PHRASES["commute"]["v_en"]:
        for _ in range(6):
            when, place = (
                rng.choice(["today", "yesterday", "this morning"]),
                rng.choice(["the office", "the airport"]),
            )
            yield ((_cap(f"I went to {place} {mode} {when}{aside(CHAT_EN, ', ')}"), NONE))


def _no_slot(rng: random.Random, aside: Aside) -> Iterator[tuple[str, str]]:
    """Skills, self-descriptions, routines, hobbies and small talk: no slot."""
    for skill_zh, skill_en in SKILLS:  # learning a skill that is no instrument
        for _ in range(3):
            yield (
                (
                    f"我{rng.choice(['在学', '最近在学', '开始学'])}{skill_zh}{aside(CHAT_ZH, '，')}",
                    NONE,
                )
            )
            yield ((_cap(f"I'm learning {skill_en}{aside(CHAT_EN, ', ')}"), NONE))
    for about_zh, about_en in SELF:  # what the speaker is, no slot: new here, single, left-handed
        for _ in range(3):
            yield ((f"{rng.choice(OPEN_ZH)}我是{about_zh}{aside(CHAT_ZH, '，')}", NONE))
            yield ((_cap(f"{rng.choice(OPEN_EN)}I'm {about_en}{aside(CHAT_EN, ', ')}"), NONE))
    for routine in ROUTINES:  # a habit that is no slot: swimming every morning is no drink
        for _ in range(4):
            when_zh, when_en = rng.choice(
                [
                    ("每天早上", "every morning"),
                    ("每天晚上", "every night"),
                    ("每周六", "every Saturday"),
                    ("平时", "usually"),
                ]
            )
            yield ((f"我{when_zh}{routine[0]}{aside(CHAT_ZH, '，')}", NONE))
            yield ((_cap(f"I {routine[1]} {when_en}{aside(CHAT_EN, ', ')}"), NONE))
    for hobby in ["pottery", "jazz", "sci-fi", "yoga", "anime", "baking", "crosswords", "cycling"]:
        for _ in range(4):
            yield (
                (
                    _cap(f"I'm a {rng.choice(['big', 'huge', ''])} fan of {hobby}{aside(CHAT_EN, ', ')}"),
                    NONE,
                )
            )
    for template in CHAT_EN + CHAT_ZH:
        for _ in range(12):
            text = template.format(**{k: rng.choice(v) for k, v in FILL.items()})
            opener, tail = (OPEN_ZH, TAIL_ZH) if template in CHAT_ZH else (OPEN_EN, TAIL_EN)
            yield ((_cap(f"{rng.choice(opener)}{text}{rng.choice(tail)}"), NONE))
