"""``python -m bench quality --protocol chat``: LoCoMo replayed through the reply path.

Per conversation one fresh store; for every interaction unit (two consecutive turns, as in the
replay protocol) the engine first retrieves for the first turn's text (one decay tick), then
records the unit with the session's time (the engine's clock is set to it); at each session
boundary the summary and clean-up jobs run on the engine's clock. The questions come after the
whole chat, a day after its last session. By default each question is asked of the store as the
chat left it (a fresh copy per question), so no question's decay tick changes what the next one
finds; ``--ticking-questions`` asks them one after another on the live store instead.

Every retriever gets the same budget: the active window plus the default RAG quotas (10 + 3+2+2).
The engine runs its default configuration, then with forgetting off (temporary and summary decay
coefficients 1.0); the flat baselines return the top ``BUDGET`` interaction units of the whole
conversation.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from rich.table import Table

from bench.engine import ACTIVE_CAPACITY, BUDGET, DEFAULT_QUOTAS, Clock, Engine, Settings
from bench.locomo import CATEGORY_NAMES, Conversation, evidence_recall
from bench.quality import PERSONA, flat_rankings, flat_scores, persona_folder
from bench.recall import Score, merge, rrf

Results = dict[str, dict[int, Score]]


def run_chat(conv: Conversation, provider: str, work: Path, *, forgetting: bool, ticking: bool) -> Score:
    """Chat one conversation into a fresh default engine, then score its answers to the questions."""
    settings = Settings(PERSONA, persona_folder(work), locale="en", provider=provider, forgetting=forgetting)
    clock = Clock(conv.sessions[0][0])
    engine = Engine(settings, clock, Path(tempfile.mkdtemp(dir=work)))
    try:
        for date, units in conv.sessions:
            for unit in units:
                clock.moment = unit.timestamp
                engine.chat_turn(unit.user_input, unit.response, user_id=None, timestamp=unit.timestamp)
            clock.moment = max(date, units[-1].timestamp)
            engine.run_jobs()
        counts = engine.counts()
        clock.moment = clock() + timedelta(days=1)
        queries = [q.question for q in conv.questions]
        recalled = [engine.recall(q) for q in queries] if ticking else engine.recall_each(queries)
    finally:
        engine.discard()
    score = Score(held=counts.hot, units=counts.recorded, summaries=counts.summary)
    for question, memories in zip(conv.questions, recalled, strict=True):
        score.add(question.category, *evidence_recall(question, memories.text))
        score.shown.append(memories.shown)
    return score


def evaluate(
    convs: list[Conversation],
    providers: list[str],
    work: Path,
    log: Callable[[str], None],
    ticking: bool,
) -> tuple[Results, Table]:
    """The flat baselines and the engine (forgetting on, then off) at the default budget."""
    bm25 = [flat_rankings(c, None) for c in convs]
    results: Results = flat_scores(convs, [BUDGET], None, bm25)
    for name in providers:
        results.update(flat_scores(convs, [BUDGET], name, bm25))
        dense = [flat_rankings(c, name) for c in convs]
        fused = [[rrf(dq, bq) for dq, bq in zip(d, b, strict=True)] for d, b in zip(dense, bm25, strict=True)]
        label = f"window {ACTIVE_CAPACITY} + flat RRF({name}+BM25) top {BUDGET - ACTIVE_CAPACITY}"
        results[label] = {BUDGET: merge([score_window(c, r) for c, r in zip(convs, fused, strict=True)])}
        for forgetting in (True, False):
            label = f"engine default ({name}), forgetting {'on' if forgetting else 'off'}"
            started = time.perf_counter()
            results[label] = {
                BUDGET: merge(
                    [run_chat(c, name, work, forgetting=forgetting, ticking=ticking) for c in convs]
                )
            }
            log(f"{label}: {time.perf_counter() - started:.1f}s")
    return results, render(results, ticking)


def score_window(conv: Conversation, rankings: list[list[int]]) -> Score:
    """A chatbot's usual memory: the last ``ACTIVE_CAPACITY`` units verbatim, plus the best of
    the rest by a flat ranking, ``BUDGET`` in all (nothing forgotten)."""
    score = Score(units=len(conv.units), held=len(conv.units))
    window = set(range(max(0, len(conv.units) - ACTIVE_CAPACITY), len(conv.units)))
    for question, ranking in zip(conv.questions, rankings, strict=True):
        shown = [*sorted(window), *[i for i in ranking if i not in window][: BUDGET - len(window)]]
        text = "\n".join(conv.units[i].text for i in shown)
        score.add(question.category, *evidence_recall(question, text))
        score.shown.append(len(shown))
    return score


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f}% ({part}/{whole})" if whole else "-"


def render(results: Results, ticking: bool) -> Table:
    """The chat-protocol table."""
    table = Table(
        title=f"LoCoMo evidence recall (%), chat protocol, budget {BUDGET}, categories 1-4",
        caption_justify="left",
    )
    table.add_column("retriever")
    table.add_column(f"R@{BUDGET}", justify="right")
    for name in CATEGORY_NAMES.values():
        table.add_column(name, justify="right")
    table.add_column("all found", justify="right")
    table.add_column("mean shown", justify="right")
    table.add_column("hot after chat", justify="right")
    table.add_column("summaries", justify="right")
    for label, by_budget in results.items():
        score = by_budget[BUDGET]
        engine = label.startswith("engine")
        kept = "100% (all kept)"
        table.add_row(
            label,
            f"{score.mean():.1f}",
            *(f"{score.mean(c):.1f}" for c in CATEGORY_NAMES),
            f"{score.all_found():.1f}",
            f"{score.mean_shown():.1f}",
            _pct(score.held, score.units) if engine else kept,
            str(score.summaries) if engine else "-",
        )
    quotas = "+".join(str(v) for v in DEFAULT_QUOTAS.values())
    table.caption = "\n".join(
        [
            f"Budget {BUDGET} = active window {ACTIVE_CAPACITY} + default RAG quotas {quotas} "
            "(temporary+summary+static); the LoCoMo persona has no static memories, so the engine "
            f"shows at most {BUDGET - DEFAULT_QUOTAS.get('static', 0)}; flat baselines return the "
            f"top {BUDGET} of all interaction units (nothing forgotten); 'window + flat' is the usual "
            f"chatbot memory: the last {ACTIVE_CAPACITY} units plus the flat ranking's best of the rest.",
            "Chat: retrieve(first turn) then record, per unit, clock at the session's time; summary "
            "and clean-up jobs at each session boundary. Forgetting off = temporary and summary "
            "decay coefficients 1.0.",
            (
                "Questions tick: asked one after another on the live store (each a decay tick)."
                if ticking
                else "Questions do not tick: each is asked of a fresh copy of the store as the chat "
                "left it (its own tick changes nothing the next question sees)."
            ),
            "hot after chat = live active + temporary over interactions recorded (debug_state); "
            "an evidence turn counts when its verbatim text is among the memories shown.",
        ]
    )
    return table
