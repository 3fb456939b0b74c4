"""Which language a text is in, as far as the engine needs it: Chinese or not."""

from __future__ import annotations


def chinese_share(text: str) -> float:
    """The share of a text's letters that are Chinese characters (one half when it has none)."""
    letters = [char for char in text if char.isalpha()]
    if not letters:
        return 0.5
    return sum("\u4e00" <= char <= "\u9fff" for char in letters) / len(letters)


def in_chinese(text: str) -> bool:
    """Whether most of a text's letters are Chinese characters."""
    return chinese_share(text) > 0.5
