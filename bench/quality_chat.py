"""``python -m bench quality``: LoCoMo at the engine's default budget, imported or chatted.

``--protocol replay`` (the default) imports each session with its own times, then asks the
questions one after another (each a decay tick). ``--protocol chat`` replays the conversation
through the reply path:

Per conversation one fresh store; for every interaction unit (two consecutive turns, as in the
replay protocol) the engine first retrieves for the first turn's text (one decay tick), then
records the unit with the session's time (the engine's clock is set to it); at each session
boundary the summary and clean-up jobs run on the engine's clock. The questions come after the
whole chat, a day after its last session. By default each question is asked of the store as the
chat left it (a fresh copy per question), so no question's decay tick changes what the next one
finds; ``--ticking-questions`` asks them one after another on the live store instead.

Every retriever gets the same budget: the active window plus the default memory slots (10 + 7).
The flat baselines show the last 10 units verbatim plus the best 7 of the rest by one flat
ranking (BM25, dense or their RRF): the usual chatbot memory. The engine runs its default
configuration, then with forgetting off (temporary and summary decay coefficients 1.0), then
the ablations asked for. The relevance floor is probed on the same stores: the memory slots
filled for LoCoMo's adversarial questions (category 5: nothing answers them) and for 50 unrelated
chit-chat queries (:mod:`bench.chitchat`).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from rich.table import Table

from bench.chitchat import CHITCHAT, CHITCHAT_APART
from bench.engine import ACTIVE_CAPACITY, BUDGET, MEMORY_SLOTS, Clock, Engine, Recalled, Settings
from bench.locomo import CATEGORY_NAMES, Conversation, Question, evidence_recall
from bench.quality import PERSONA, flat_rankings, persona_folder
from bench.recall import Ranking, Score, merge, rrf, share
from memory.domain.sentences import sentences as sentences_of

Results = dict[str, dict[int, Score]]
Variant = tuple[str, bool, tuple[tuple[str, object], ...]]
"""``(label, forgetting, retrieval overrides)`` of one engine row."""
VARIANTS: dict[str, Variant] = {
    "default": ("engine default ({provider}), forgetting on", True, ()),
    "off": ("engine default ({provider}), forgetting off", False, ()),
    "floor": ("engine, relevance floor on ({provider})", True, (("relevance_floor", True),)),
    "no-bonus": (
        "engine, no recency / importance bonus ({provider})",
        True,
        (("recency_weight", 0.0), ("importance_weight", 0.0)),
    ),
    "no-caps": ("engine, no layer caps ({provider})", True, (("caps", {"summary": 7, "static": 7}),)),
    "score": ("engine, score fusion ({provider})", True, (("fusion", "score"),)),
    "quota": ("engine, seed quota mode 3+2+2 ({provider})", True, (("mode", "quota"),)),
    "no-bridge": ("engine, no bilingual keyword bridge ({provider})", True, (("bridge", False),)),
    "no-time": ("engine, no time windows ({provider})", True, (("time_windows", False),)),
}
"""The engine rows ``--variants`` can ask for, by name."""


def summary_holds_evidence(question: Question, summary: str) -> bool:
    """A summary holds a question's evidence when it keeps a sentence of an evidence turn."""
    return any(s in summary for text in question.evidence for s in sentences_of(text) if len(s) >= 20)


def run_chat(
    conv: Conversation, provider: str, work: Path, variant: Variant, *, ticking: bool, replay: bool = False
) -> Score:
    """Chat one conversation into a fresh engine (``replay``: import it, session by session), then
    score its answers to the questions."""
    _, forgetting, overrides = variant
    folder = persona_folder(work)
    settings = Settings(
        PERSONA, folder, locale="en", provider=provider, forgetting=forgetting, retrieval=overrides
    )
    clock = Clock(conv.sessions[0][0])
    engine = Engine(settings, clock, Path(tempfile.mkdtemp(dir=work)))
    probes = {
        "adversarial": list(conv.adversarial),
        "chit-chat": list(CHITCHAT),
        "apart": list(CHITCHAT_APART),
    }
    try:
        for date, units in conv.sessions:
            if replay:
                engine.import_turns((u.user_input, u.response, u.timestamp) for u in units)
            for unit in [] if replay else units:
                clock.moment = unit.timestamp
                engine.chat_turn(unit.user_input, unit.response, user_id=None, timestamp=unit.timestamp)
            clock.moment = max(date, units[-1].timestamp)
            engine.run_jobs()
        counts = engine.counts()
        clock.moment = clock() + timedelta(days=1)
        queries = [q.question for q in conv.questions]
        recalled = [engine.recall(q) for q in queries] if ticking else engine.recall_each(queries)
        probed = {name: engine.recall_each(texts) for name, texts in probes.items()}
    finally:
        engine.discard()
    score = Score(held=counts.hot, units=counts.recorded, summaries=counts.summary)
    for question, memories in zip(conv.questions, recalled, strict=True):
        score.add(question.category, *evidence_recall(question, memories.text))
        score.shown.append(memories.shown)
        _count_summaries(score, question, memories)
    score.slots = {name: [float(len(r.memories)) for r in results] for name, results in probed.items()}
    return score


def _count_summaries(score: Score, question: Question, memories: Recalled) -> None:
    for layer, text in memories.memories:
        if layer == "summary":
            score.summaries_shown += 1
            score.summaries_with_evidence += summary_holds_evidence(question, text)


def evaluate(
    convs: list[Conversation],
    providers: list[str],
    work: Path,
    log: Callable[[str], None],
    ticking: bool,
    variants: list[Variant],
    *,
    replay: bool = False,
) -> tuple[Results, Table]:
    """The window + flat baselines and the engine variants at the default budget (``replay``: the
    conversation imported, the questions ticking in turn, instead of chatted)."""
    bm25 = [flat_rankings(c, None) for c in convs]
    results: Results = {}
    results[f"window {ACTIVE_CAPACITY} + flat BM25 top {MEMORY_SLOTS}"] = _window(convs, bm25)
    for name in providers:
        dense = [flat_rankings(c, name) for c in convs]
        fused = [[rrf(dq, bq) for dq, bq in zip(d, b, strict=True)] for d, b in zip(dense, bm25, strict=True)]
        window = f"window {ACTIVE_CAPACITY} + flat"
        results[f"{window} dense ({name}) top {MEMORY_SLOTS}"] = _window(convs, dense)
        results[f"{window} RRF({name}+BM25) top {MEMORY_SLOTS}"] = _window(convs, fused)
        for variant in variants:
            label = variant[0].format(provider=name)
            started = time.perf_counter()
            results[label] = {
                BUDGET: merge(
                    [
                        run_chat(c, name, work, variant, ticking=ticking or replay, replay=replay)
                        for c in convs
                    ]
                )
            }
            log(f"{label}: {time.perf_counter() - started:.1f}s")
    return results, render(results, ticking or replay, replay)


def _window(convs: list[Conversation], rankings: list[list[Ranking]]) -> dict[int, Score]:
    return {BUDGET: merge([score_window(c, r) for c, r in zip(convs, rankings, strict=True)])}


def score_window(conv: Conversation, rankings: list[Ranking]) -> Score:
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


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.2f}" if values else "-"


def render(results: Results, ticking: bool, replay: bool = False) -> Table:
    """The results table of either protocol."""
    protocol = "replay (import, then ask)" if replay else "chat"
    table = Table(
        title=f"LoCoMo evidence recall (%), {protocol} protocol, budget {BUDGET}, categories 1-4",
        caption_justify="left",
    )
    table.add_column("retriever")
    table.add_column(f"R@{BUDGET}", justify="right")
    for name in CATEGORY_NAMES.values():
        table.add_column(name, justify="right")
    table.add_column("all found", justify="right")
    table.add_column("hot after chat", justify="right")
    table.add_column("summaries shown (with evidence)", justify="right")
    table.add_column("slots filled: adversarial / chit-chat / written apart", justify="right")
    for label, by_budget in results.items():
        score = by_budget[BUDGET]
        engine = label.startswith("engine")
        table.add_row(
            label,
            f"{score.mean():.1f}",
            *(f"{score.mean(c):.1f}" for c in CATEGORY_NAMES),
            f"{score.all_found():.1f}",
            share(score.held, score.units) if engine else "100% (all kept)",
            f"{score.summaries_shown} ({score.summaries_with_evidence})" if engine else "-",
            " / ".join(_mean(score.slots.get(name, [])) for name in ("adversarial", "chit-chat", "apart"))
            if engine
            else f"{MEMORY_SLOTS} / {MEMORY_SLOTS} / {MEMORY_SLOTS}",
        )
    table.caption = "\n".join(
        [
            f"Budget {BUDGET} = active window {ACTIVE_CAPACITY} + {MEMORY_SLOTS} memory slots for every "
            f"row; 'window + flat' is the usual chatbot memory: the last {ACTIVE_CAPACITY} units plus "
            f"a flat ranking's best {MEMORY_SLOTS} of the rest (nothing forgotten, no floor: it always "
            "fills its slots).",
            (
                "Replay: each session bulk-imported with its own times"
                if replay
                else "Chat: retrieve(first turn) then record, per unit, clock at the session's time"
            )
            + "; summary and clean-up jobs at each session boundary. Forgetting off = temporary and "
            "summary decay coefficients 1.0.",
            (
                "Questions tick: asked one after another on the live store (each a decay tick)."
                if ticking
                else "Questions do not tick: each is asked of a fresh copy of the store as the chat "
                "left it (its own tick changes nothing the next question sees)."
            ),
            "hot after chat = live active + temporary over interactions recorded (debug_state); "
            "an evidence turn counts when its verbatim text is among the memories shown; a summary "
            "holds evidence when it keeps a sentence (>= 20 characters) of an evidence turn; slots "
            "filled = memories shown beside the active window, mean per probe query.",
        ]
    )
    return table
