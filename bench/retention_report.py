"""The two tables of ``python -m bench retention``: facts recalled over time, and updated facts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from rich.table import Table

from bench.engine import ACTIVE_CAPACITY, BUDGET
from bench.retention_facts import FACTS, UPDATES

Results = dict[str, dict[str, Any]]


class Point(Protocol):
    """A probe point (see :class:`bench.retention.ProbePoint`)."""

    @property
    def turn(self) -> int: ...

    @property
    def label(self) -> str: ...


def _share(rows: Sequence[dict[str, Any]]) -> str:
    found = sum(r["new"] is not None for r in rows)
    return f"{100.0 * found / len(rows):.0f}% ({found}/{len(rows)})" if rows else "-"


def _split(rows: Sequence[dict[str, Any]]) -> str:
    same = [r for r in rows if not r["cross_language"]]
    cross = [r for r in rows if r["cross_language"]]
    return " / ".join(f"{100.0 * sum(r['new'] is not None for r in part) / len(part):.0f}%" if part else "-"
                      for part in (same, cross))  # fmt: skip


def render_facts(results: Results, points: Sequence[Point]) -> Table:
    """Share of fact questions whose fact is shown, per checkpoint, per retriever."""
    last = points[-1].label
    table = Table(
        title=f"Retention: personal facts recalled by one user's later questions (budget {BUDGET})",
        caption_justify="left",
    )
    table.add_column("retriever")
    for point in points:
        table.add_column(point.label, justify="right")
        table.add_column(f"{point.label} same / cross lang", justify="right")
    table.add_column("hot / recorded", justify="right")
    table.add_column(f"summaries {last}", justify="right")
    for label, result in results.items():
        probes, counts = result["probes"], result["counts"]
        hot = " · ".join(
            f"{counts[p.label]['active'] + counts[p.label]['temporary']}/{counts[p.label]['recorded']}"
            for p in points
            if p.label in counts
        )
        table.add_row(
            label,
            *(cell for p in points for cell in (_share(probes[p.label]), _split(probes[p.label]))),
            hot or "all kept",
            str(counts[last]["summary"]) if last in counts else "-",
        )
    questions = sum(len(f.probes) for f in FACTS)
    table.caption = "\n".join(
        [
            f"{len(FACTS)} facts stated in the first {2 * len(FACTS)} turns (half zh, half en, each followed "
            f"by small talk), {questions} questions, each fact asked in both languages; then small talk. "
            "Reply path per turn: retrieve(user text), then record; summary job every 20 turns, clean-up "
            "every 240. @N = N turns after the last fact; hot = live active + temporary (debug_state) "
            "at each @N.",
            "A question counts when its fact's key is in the user's memories shown: the active window "
            f"({ACTIVE_CAPACITY}) plus the temporary and summary memories of the default quotas (the "
            "persona's 2 static memories also take budget but are not searched for keys). Each question "
            "runs on a fresh copy of the store: questions do not tick. Forgetting off = temporary and "
            f"summary decay 1.0. Flat: top {BUDGET} of every turn so far by RRF(USE + E5 + BM25 over jieba "
            "words).",
        ]
    )
    return table


def _cells(rows: Sequence[dict[str, Any]]) -> tuple[str, str, str]:
    n = len(rows)
    new = sum(r["new"] is not None for r in rows)
    old = sum(r["old"] is not None for r in rows)
    current = [r.get("old_current", r["old"]) for r in rows]
    pairs = zip(current, rows, strict=True)
    first = sum(c is not None and (r["new"] is None or c < r["new"]) for c, r in pairs)
    return f"{new}/{n}", f"{old}/{n}", f"{first}/{n}"


def render_updates(results: Results, points: Sequence[Point]) -> Table:
    """Per updated fact and retriever: new value shown, old value shown, old value ranked first."""
    table = Table(title="Updated facts: is the new value recalled, is the old one presented as current?")
    table.add_column("fact: old -> new")
    table.add_column("retriever")
    for point in points:
        for name in ("new shown", "old shown", "old first"):
            table.add_column(f"{point.label} {name}", justify="right")
    old = {f.name: f.key for f in FACTS}
    for update in UPDATES:
        for label, result in results.items():
            cells: list[str] = []
            for point in points:
                cells += _cells([r for r in result["probes"][point.label] if r["fact"] == update.name])
            table.add_row(f"{update.name}: {old[update.name]} -> {update.key}", label, *cells)
        table.add_section()
    table.caption = (
        "Each update is stated once (then small talk); its 2 questions (zh, en) are asked "
        + " and ".join(f"{p.label.lstrip('+')}" for p in points)
        + " turns after the last update. Ranked list: the active window newest first, then the RAG "
        "memories by the retriever's score (flat: RRF rank); the engine's profile facts first. 'old "
        "first' = the old value is shown, not marked as history, above the new one or without it "
        "(presented as current)."
    )
    table.caption_justify = "left"
    return table
