"""Every fenced Python example in the README runs as written (in a fresh process, in a scratch
folder holding the repo's personas), with the offline fake chat model where one needs a model."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = [
    textwrap.dedent(block)
    for block in re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
]


def test_the_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_a_readme_example_runs_as_written(number: int, tmp_path: Path) -> None:
    (tmp_path / "personas").symlink_to(REPO / "personas")
    (tmp_path / "example.py").write_text(EXAMPLES[number], encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERSONA_MEMORY__")}
    done = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, f"example {number}:\n{EXAMPLES[number]}\n{done.stderr[-2000:]}"
