"""Prompts for the summary model, written for persona chat (LangChain's prompts are imported
when a model first needs one: an engine without a summary model never loads them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.prompts import ChatPromptTemplate

CONDENSE_SYSTEM = {
    "en": (
        "You keep the long-term memory of {persona}, a chat persona. Should this interaction be "
        "remembered? Summarize it in one concise factual statement (what the user said or asked, "
        "what {persona} answered or promised, and details such as names, places, dates, "
        "preferences, plans, health) and rate how important it is to remember for months, from 0 "
        "(greetings, small talk) to 1 (an allergy, a child's name, a birthday). Reply with JSON "
        'only: {{"note": "...", "importance": 0.8, "remember": true}}; "remember" is false for '
        "pure noise."
    ),
    "zh": (
        "你负责记录聊天角色「{persona}」的长期记忆。这次交互值得记住吗？请用一句简洁、客观的话总结它"
        "（用户说了或问了什么，{persona}回答或答应了什么，以及人名、地点、日期、喜好、计划、健康等细节），"
        "并给出它值得长期记住的程度：0（问候、闲聊）到 1（过敏、孩子的名字、生日）。只输出 JSON："
        '{{"note": "……", "importance": 0.8, "remember": true}}；纯粹的废话 "remember" 为 false。'
    ),
}

SUMMARY_SYSTEM = {
    "en": (
        "You keep the long-term memory of {persona}, a chat persona. Summarize the conversation "
        "below in at most five short factual sentences: who the user is, what they shared, "
        "preferences, plans and promises, and details worth remembering. Reply with the summary "
        "only."
    ),
    "zh": (
        "你负责记录聊天角色「{persona}」的长期记忆。请把下面的对话总结成不超过五句简短、客观的话："
        "用户是谁、分享了什么、喜好、计划和约定，以及值得记住的细节。只输出总结。"
    ),
}


PROFILE_SYSTEM = {
    "en": (
        "You keep the long-term memory of {persona}, a chat persona. From the conversation below, "
        "extract lasting facts about the USER only (not {persona}): name, home city, job, family "
        "and pets' names, allergies and health, birthday, strong preferences. Reply with JSON "
        'only: {{"facts": [{{"key": "home", "value": "Hangzhou"}}]}}. Keys are short snake_case '
        "English words (name, home, hometown, job, car, phone, partner, school, diet, allergy, "
        "pet_name, birthday, favourite_food, favourite_drink, team, instrument, computer, "
        "commute, ...); values "
        "keep the user's language. A changed fact uses the same key with the new value. "
        'No fact: {{"facts": []}}.'
    ),
    "zh": (
        "你负责记录聊天角色「{persona}」的长期记忆。请从下面的对话中只提取关于【用户】（不是{persona}）"
        "的长期事实：名字、居住城市、职业、家人和宠物的名字、过敏和健康、生日、明确的喜好。"
        '只输出 JSON：{{"facts": [{{"key": "home", "value": "杭州"}}]}}。key 用简短的英文'
        "snake_case（name、home、hometown、job、car、phone、partner、school、diet、allergy、pet_name、"
        "birthday、favourite_food、favourite_drink、team、instrument、computer、commute 等），"
        "value 保留用户的语言。"
        '事实变了就用同一个 key 写新值。没有事实时输出 {{"facts": []}}。'
    ),
}


def _prompt(system: str, human: str) -> ChatPromptTemplate:
    from langchain_core.prompts import ChatPromptTemplate

    return ChatPromptTemplate.from_messages([("system", system), ("human", human)])


def condense_prompt(locale: str) -> ChatPromptTemplate:
    """Prompt taking ``persona`` and ``interaction``; the model returns one factual line."""
    return _prompt(CONDENSE_SYSTEM.get(locale, CONDENSE_SYSTEM["zh"]), "{interaction}")


def profile_prompt(locale: str) -> ChatPromptTemplate:
    """Prompt taking ``persona`` and ``conversation``; the model returns profile facts as JSON."""
    return _prompt(PROFILE_SYSTEM.get(locale, PROFILE_SYSTEM["zh"]), "{conversation}")


def summary_prompt(locale: str) -> ChatPromptTemplate:
    """Prompt taking ``persona`` and ``conversation``; the model returns a short summary."""
    return _prompt(SUMMARY_SYSTEM.get(locale, SUMMARY_SYSTEM["zh"]), "{conversation}")
