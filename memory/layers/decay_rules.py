"""Significance rules: initial value, decay, boost, and lazy decay on a tick clock.

Every ``retrieve()`` is one tick of a scope's decay clock. An entry stores the significance it
had at the tick of its last change; its value at a later tick is derived, never rewritten::

    value(now) = significance * coefficient ** (now - changed_at)

An untouched entry is forgotten at the first tick where that value falls below the threshold;
:func:`forget_tick` gives that tick so forgetting is one indexed query.
"""

from __future__ import annotations

import math


def decay_significance(current: float, coefficient: float) -> float:
    """One tick of decay: ``s * c``."""
    return current * coefficient


def boost_significance(current: float) -> float:
    """A recall: halfway to 1, ``s + (1 - s) / 2``."""
    return current + (1.0 - current) / 2.0


def significance_at(significance: float, changed_at: int, now: int, coefficient: float) -> float:
    """The lazily decayed value at tick ``now`` of an entry last changed at ``changed_at``."""
    elapsed = max(0, now - changed_at)
    return significance * coefficient**elapsed


def forget_tick(significance: float, changed_at: int, coefficient: float, threshold: float) -> int | None:
    """The first tick at which an untouched entry's value is below ``threshold``.

    ``None`` when it never falls below (coefficient 1 or threshold 0).
    """
    if significance < threshold:
        return changed_at
    if coefficient >= 1.0 or threshold <= 0.0:
        return None
    ticks = max(0, math.floor(math.log(threshold / significance) / math.log(coefficient)))
    # The logarithm can be off by one in floating point; settle on the exact rule.
    while significance * coefficient**ticks >= threshold:
        ticks += 1
    while ticks > 0 and significance * coefficient ** (ticks - 1) < threshold:
        ticks -= 1
    return changed_at + ticks


def recall_at(significance: float, changed_at: int, now: int, coefficient: float) -> float:
    """The value stored for an entry recalled at tick ``now``.

    The entry decays up to the tick before ``now`` and is then boosted: the recall is the
    tick's event for it, in place of that tick's decay.
    """
    before = significance_at(significance, changed_at, now - 1, coefficient)
    return boost_significance(before)
