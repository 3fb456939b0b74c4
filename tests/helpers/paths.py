"""Where things are, for tests that run the checkout's files or child scripts."""

from __future__ import annotations

from pathlib import Path

HELPERS = Path(__file__).resolve().parent
"""The folder of the child scripts tests run (``crash_child.py``, ``erase_child.py``, ...)."""
REPO = HELPERS.parents[1]
"""The checkout."""
