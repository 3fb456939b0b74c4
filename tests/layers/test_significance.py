"""Decay, boost and forgetting arithmetic; lazy decay equals eager decay."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.store import fill
from memory import Layer, MemoryConfig
from memory.domain.importance import importance
from memory.domain.slots import slot_of
from memory.layers.decay_rules import (
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


@given(st.text(max_size=300))
def test_importance_is_in_range_for_any_text(text: str) -> None:
    assert 0.0 <= importance(text) <= 1.0


def test_a_stated_fact_outweighs_small_talk_in_both_languages() -> None:
    facts = [
        "我对花生过敏",
        "我家的猫叫年糕",
        "I'm allergic to shellfish",
        "My daughter Lily starts school on Sept 1",
    ]
    chatter = ["哈哈哈", "今天天气不错", "lol that's funny", "Good morning"]
    assert min(importance(t) for t in facts) > max(importance(t) for t in chatter)


@pytest.mark.parametrize(
    ("told", "asked"),
    [
        ("我对花生过敏", "谁对花生过敏"),
        ("我家有三只猫", "你家有多少只猫"),
        ("我在杭州工作", "你在杭州怎么工作"),
        ("I work at a bakery near the station", "Why do you work at a bakery near the station"),
    ],
)
def test_asking_weighs_less_than_telling_in_both_languages(told: str, asked: str) -> None:
    """The importance scorer and the slot classifier share one question test: a question without
    a question mark, or capitalised, is one too."""
    assert importance(asked) <= 0.6 * importance(told)
    assert slot_of(asked) is None


def test_an_important_memory_starts_more_significant(make_manager) -> None:
    manager = make_manager()
    ids = fill(manager, ["我对花生过敏，吃了会起疹子", "哈哈哈", *[f"第{i}句" for i in range(10)]])
    allergy, laugh = (manager.inspector.entry(i) for i in ids[:2])
    assert allergy is not None and laugh is not None and allergy.layer == laugh.layer == Layer.TEMPORARY
    assert allergy.significance > 0.5 > laugh.significance > 0.1
