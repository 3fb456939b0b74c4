"""Whether a statement speaks of what a profile fact says, judged by meaning.

A statement made before a slot's current fact is shown as history when it speaks of that slot
(:func:`memory.domain.slots.mark_superseded`). Its words alone are weak evidence when the
classifier only leans to the slot: "我最喜欢的书是《三体》" leans to the favourite food, and was
shown as history once a favourite food was said after it. :class:`SameTopic` asks the
multilingual USE model too: the statement and the fact's value must be near in meaning, or the
slot classifier's regression over the statement's USE vector must be sure it is about the slot
(two statements of one slot in two languages are often far apart: "我那辆老思域又开始响了"
against "traded the Civic in for a BYD Dolphin", 0.21).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from memory.domain import slot_model
from memory.domain.slot_corpus import SLOTS
from memory.domain.slot_model import USE_DIMENSIONS

logger = logging.getLogger(__name__)

SAME_TOPIC = 0.30
"""Least cosine of the two USE vectors. On the retention bench's tune half (the statements
alone): each fact statement the classifier only leaned to its slot against the update of that
slot, 0.32 to 0.49; each other fact leaning to a slot from 0.1 against that slot's values, at
most 0.28. Two statements of one slot can be further apart (6 of its 19 such pairs, down to
0.22); where the older one set the slot, its value marks it as history without this check."""
ABOUT = 0.85
"""Least chance of the fact's slot by the vector's regression (the statement alone) for a statement
to speak of it whatever the cosine. On the retention bench's tune half and written script (the
retrained classifier): of the seven fact statements an update replaced that are further than
:data:`SAME_TOPIC` from the new value, four have 0.95 or more, the others 0.48, 0.48 and 0.03;
every other fact has at most 0.77 for a slot it leans to."""
KEPT = 4096
"""Texts whose vectors are kept in memory (a user's fact values come back in every retrieval)."""


class SameTopic:
    """Answers ``(statement, fact value)`` pairs in one batch of the USE model.

    Args:
        embed: embeds texts with vectors that begin with USE's (the cheap tier of the blend,
            or USE itself).
    """

    def __init__(self, embed: Callable[[list[str]], list[list[float]]]) -> None:
        self.embed = embed
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, asked: Sequence[tuple[str, str, str]]) -> list[bool]:
        """Per ``(statement, slot, fact value)``, whether the statement speaks of the fact; every
        one when the model fails (what the words said stands)."""
        try:
            vectors = self._vectors([text for said, _, value in asked for text in (said, value)])
        except Exception as exc:
            logger.warning("statements not compared with the profile (%s); judged by their words", exc)
            return [True] * len(asked)
        said = list(dict.fromkeys(said for said, _, _ in asked))
        chances = slot_model.shipped().head_chances(np.stack([vectors[s] for s in said])) if said else None
        sure = {s: row for s, row in zip(said, chances, strict=True)} if chances is not None else {}
        return [
            float(vectors[s] @ vectors[value]) >= SAME_TOPIC
            or (s in sure and float(sure[s][SLOTS.index(slot)]) >= ABOUT)
            for s, slot, value in asked
        ]

    def _vectors(self, texts: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for text in dict.fromkeys(texts):
                if text in self._kept:
                    self._kept.move_to_end(text)
                    found[text] = self._kept[text]
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            use = np.asarray(self.embed(missing), dtype=np.float32)[:, :USE_DIMENSIONS]
            use /= np.maximum(np.linalg.norm(use, axis=1, keepdims=True), 1e-12)
            found.update(zip(missing, use, strict=True))
            with self._lock:
                self._kept.update((t, found[t]) for t in missing)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return found
