"""Data shipped with the package: the sample dialogue and the small-talk background."""

from __future__ import annotations

import importlib.resources
import json

BACKGROUND_FILE = "background.json"


def background_sentences() -> list[str]:
    """The packaged small-talk sentences (the relevance floor's background, E5's common
    direction)."""
    text = (importlib.resources.files(__name__) / BACKGROUND_FILE).read_text(encoding="utf-8")
    return [str(s) for s in json.loads(text)["sentences"]]
