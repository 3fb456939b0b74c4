"""``python -m bench importance``: the rule-based importance scorer against a labelled set.

``bench/importance_labels.jsonl`` holds 130 chat lines (about half Chinese, half English),
each labelled important (a lasting fact worth remembering) or not (greetings, small talk,
passing moods) by a person. Precision, recall and F1 of "important" at three thresholds, per
language, and the lines the scorer gets most wrong.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from memory.domain.importance import importance

LABELS = Path(__file__).with_name("importance_labels.jsonl")
THRESHOLDS = (0.3, 0.5, 0.7)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def load() -> list[tuple[str, bool]]:
    """The labelled lines."""
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(str(r["text"]), bool(r["important"])) for r in rows]


def measure(rows: list[tuple[str, bool]], threshold: float) -> dict[str, float]:
    """Precision, recall and F1 of "important" at a threshold."""
    predicted = [(importance(text) >= threshold, label) for text, label in rows]
    tp = sum(1 for p, label in predicted if p and label)
    fp = sum(1 for p, label in predicted if p and not label)
    fn = sum(1 for p, label in predicted if not p and label)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "n": float(len(rows))}


def run() -> dict[str, Any]:
    """Every figure, by language and threshold."""
    rows = load()
    languages = {
        "all": rows,
        "zh": [r for r in rows if _CJK.search(r[0])],
        "en": [r for r in rows if not _CJK.search(r[0])],
    }
    results: dict[str, Any] = {
        f"{lang} @{t}": measure(subset, t) for lang, subset in languages.items() for t in THRESHOLDS
    }
    misses = sorted(rows, key=lambda r: abs(importance(r[0]) - (1.0 if r[1] else 0.0)), reverse=True)
    results["worst"] = [(text, label, round(importance(text), 2)) for text, label in misses[:8]]
    return results


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench importance``."""
    argparse.ArgumentParser(prog="python -m bench importance", description=__doc__).parse_args(argv)
    results = run()
    table = Table(title=f"Importance scorer on {len(load())} labelled lines (important = a lasting fact)")
    for column in ("lines", "n", "precision", "recall", "F1"):
        table.add_column(column, justify="left" if column == "lines" else "right")
    for label, row in results.items():
        if label != "worst":
            table.add_row(label, f"{row['n']:.0f}", *(f"{row[k]:.2f}" for k in ("precision", "recall", "f1")))
    worst = "; ".join(
        f"{text!r} (labelled {label}, scored {score})" for text, label, score in results["worst"]
    )
    table.caption = f"most wrong: {worst}"
    Console(width=140).print(table)
    return 0
