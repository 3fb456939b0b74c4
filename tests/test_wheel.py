"""A plain ``pip install`` of the checkout, in a new virtualenv with no extras, runs every README
Python example from an empty folder outside the checkout (nothing of the repository on the path)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.paths import REPO

EXAMPLES = [
    textwrap.dedent(block)
    for block in re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
]


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_the_readme_examples_run_from_a_plain_install(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(REPO)],
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]
    work = tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PERSONA_MEMORY__", "PYTHONPATH"))}
    env["HOME"] = str(tmp_path)  # a new user: an empty cache folder too
    for number, code in enumerate(EXAMPLES):
        (work / f"example{number}.py").write_text(code, encoding="utf-8")
        done = subprocess.run(
            [str(python), f"example{number}.py"], cwd=work, env=env,
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"example {number}:\n{code}\n{done.stderr[-2000:]}"
    command = subprocess.run(
        [str(venv / "bin" / "persona-memory"), "personas", "list"], cwd=work, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert command.returncode == 0 and "karin" in command.stdout
    served = subprocess.run(
        [str(venv / "bin" / "persona-memory"), "serve", "--persona", "karin"], cwd=work, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert served.returncode == 2 and "pip install 'persona-memory[server]'" in served.stderr
    assert "Traceback" not in served.stderr
