"""Decay, boost and forgetting arithmetic; lazy decay equals eager decay."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from memory import MemoryConfig
from memory.significance import (
    boost_significance,
    decay_significance,
    forget_tick,
    recall_at,
    significance_at,
)

coefficients = st.floats(min_value=0.5, max_value=0.999)
values = st.floats(min_value=0.01, max_value=1.0)


def test_initial_significance_is_one_half() -> None:
    config = MemoryConfig()
    assert config.temporary.initial_significance == config.summary.initial_significance == 0.5


def test_decay_multiplies_by_coefficient() -> None:
    assert decay_significance(0.5, 0.95) == 0.5 * 0.95


def test_boost_goes_halfway_to_one() -> None:
    assert boost_significance(0.5) == 0.75
    assert boost_significance(0.0) == 0.5
    assert boost_significance(1.0) == 1.0


def test_default_temporary_entry_is_forgotten_after_32_untouched_ticks() -> None:
    # 0.5 * 0.95**31 = 0.102 >= 0.1 ; 0.5 * 0.95**32 = 0.097 < 0.1
    assert forget_tick(0.5, 0, 0.95, 0.1) == 32


def test_no_forgetting_with_coefficient_one() -> None:
    assert forget_tick(0.5, 3, 1.0, 0.1) is None


@given(values, st.integers(0, 200), coefficients)
def test_lazy_decay_equals_eager_decay(start: float, ticks: int, coefficient: float) -> None:
    eager = start
    for _ in range(ticks):
        eager = decay_significance(eager, coefficient)
    assert math.isclose(significance_at(start, 10, 10 + ticks, coefficient), eager, rel_tol=1e-9)


@given(values, coefficients, st.floats(min_value=0.001, max_value=0.5), st.integers(0, 1000))
def test_forget_tick_is_first_tick_below_threshold(
    start: float, coefficient: float, threshold: float, changed_at: int
) -> None:
    tick = forget_tick(start, changed_at, coefficient, threshold)
    assert tick is not None
    assert significance_at(start, changed_at, tick, coefficient) < threshold
    if tick > changed_at:
        assert significance_at(start, changed_at, tick - 1, coefficient) >= threshold


@given(values, st.integers(0, 50), st.integers(1, 50), coefficients)
def test_recall_decays_until_the_tick_before_then_boosts(
    start: float, changed_at: int, gap: int, coefficient: float
) -> None:
    now = changed_at + gap
    eager = start
    for _ in range(gap - 1):
        eager = decay_significance(eager, coefficient)
    assert math.isclose(
        recall_at(start, changed_at, now, coefficient), boost_significance(eager), rel_tol=1e-9
    )


@given(st.lists(st.booleans(), min_size=1, max_size=80), coefficients)
def test_lazy_schedule_matches_eager_simulation(recalls: list[bool], coefficient: float) -> None:
    """An entry recalled on some ticks and left alone on others: lazy bookkeeping == eager loop."""
    eager = 0.5
    stored, changed_at = 0.5, 0
    for tick, recalled in enumerate(recalls, start=1):
        if recalled:
            eager = boost_significance(eager)
            stored, changed_at = recall_at(stored, changed_at, tick, coefficient), tick
        else:
            eager = decay_significance(eager, coefficient)
        lazy = significance_at(stored, changed_at, tick, coefficient)
        assert math.isclose(lazy, eager, rel_tol=1e-9)
