"""Data shipped with the package: the sample dialogue and the small-talk background."""

from __future__ import annotations

import importlib.resources
import json

BACKGROUND_FILE = "background.json"


def _background(key: str) -> list[str]:
    text = (importlib.resources.files(__name__) / BACKGROUND_FILE).read_text(encoding="utf-8")
    return [str(s) for s in json.loads(text)[key]]


def background_sentences() -> list[str]:
    """The packaged small-talk sentences (E5's common direction, part of the floor's background)."""
    return _background("sentences")


def floor_sentences() -> list[str]:
    """The relevance floor's background: the small talk of :func:`background_sentences`, then
    what keeps a conversation going without asking for anything ("Talk to me", "你觉得呢？"), the
    bar of a query that does not speak of the user."""
    return background_sentences() + _background("conversation")
