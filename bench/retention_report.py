"""The tables of ``python -m bench retention``, both halves side by side: facts recalled over
time, updated facts, and which turns changed the user's profile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from bench.engine import ACTIVE_CAPACITY, BUDGET
from bench.recall import share

Results = dict[str, dict[str, Any]]
"""Per half: its probe points and, per retriever, what :mod:`bench.retention` measured."""


def _found(rows: Sequence[dict[str, Any]], field: str = "new") -> int:
    return sum(r[field] is not None for r in rows)


def _split(rows: Sequence[dict[str, Any]]) -> str:
    parts = ([r for r in rows if not r["cross_language"]], [r for r in rows if r["cross_language"]])
    return " / ".join(f"{100.0 * _found(p) / len(p):.0f}%" if p else "-" for p in parts)


def _retrievers(results: Results) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (half, label, row)
        for half, rows in results.items()
        for label, row in rows.items()
        if label != "points"
    ]


def render_facts(results: Results) -> Table:
    """Share of fact questions whose fact is shown, per checkpoint, per half and retriever."""
    labels = [p["label"] for p in next(iter(results.values()))["points"] if p["kind"] == "facts"]
    table = Table(title=f"Retention: personal facts recalled by later questions (budget {BUDGET})")
    for column in ("half", "retriever"):
        table.add_column(column)
    for label in labels:
        table.add_column(label, justify="right")
        table.add_column(f"{label} same / other language", justify="right")
        table.add_column(f"{label} as current", justify="right")
    for half, retriever, row in _retrievers(results):
        probes = row["probes"]
        table.add_row(
            half,
            retriever,
            *(
                cell
                for n in labels
                for cell in (
                    share(_found(probes[n]), len(probes[n])),
                    _split(probes[n]),
                    share(_found(probes[n], "new_current"), len(probes[n])),
                )
            ),
        )
    table.caption = (
        "Each half is its own user: facts stated in the first turns (half zh, half en, each followed by "
        "small talk), each asked in both languages; @N = N turns after the last fact. A question counts "
        f"when its fact's key is shown: profile facts, the active window ({ACTIVE_CAPACITY}) and the "
        "temporary and summary memories of the default quotas; 'as current': shown not marked as history "
        "(no fact changed). Each question runs on a fresh copy of the "
        f"store. Flat: top {BUDGET} of every turn so far by RRF(USE + E5 + BM25 over jieba words)."
    )
    table.caption_justify = "left"
    return table


def render_updates(results: Results) -> Table:
    """Per half and retriever: the newest value shown as current, an old value shown as current."""
    labels = [p["label"] for p in next(iter(results.values()))["points"] if p["kind"] == "updates"]
    table = Table(title="Updated facts: the newest value shown as current; an old one shown as current")
    for column in ("half", "retriever"):
        table.add_column(column)
    for label in labels:
        table.add_column(f"{label} new as current", justify="right")
        table.add_column(f"{label} old as current", justify="right")
    for half, retriever, row in _retrievers(results):
        cells: list[str] = []
        for label in labels:
            rows = row["probes"][label]
            cells += [
                share(_found(rows, "new_current"), len(rows)),
                share(sum(r["old_current"] for r in rows), len(rows)),
            ]
        table.add_row(half, retriever, *cells)
    table.caption = (
        "Updates (some facts twice), then statements that are no update, each followed by small talk; "
        "each update's 2 questions (zh, en) ask for the newest value. 'as current' = shown and not marked "
        "as history (flat search marks nothing)."
    )
    table.caption_justify = "left"
    return table


def render_profile(results: Results) -> Table:
    """Per half: the turns of each kind whose statement became a slot's value (the engine's rows)."""
    table = Table(title="Turns whose statement became a slot's value in the profile (now or before)")
    for column in ("half", "updates", "statements that are no update", "small talk", "facts"):
        table.add_column(column, justify="right")
    for half, _, row in _retrievers(results):
        if "recorded_as_slot" not in row:
            continue
        changed, turns = row["recorded_as_slot"], row["turns"]
        kinds = ("update", "statement", "small talk", "fact")
        table.add_row(half, *(share(changed.get(k, 0), turns.get(k, 0)) for k in kinds))
    table.caption = (
        "Targets on the held-out half: updates detected, statements about someone else, negated, wished, "
        "planned or asked <= 5 % recorded as updates; facts: the slot facts among them set a slot."
    )
    table.caption_justify = "left"
    return table


def render(results: Results) -> list[Table]:
    """Every table of the run."""
    return [render_facts(results), render_updates(results), render_profile(results)]
