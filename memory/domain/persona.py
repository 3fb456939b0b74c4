"""What a persona is: its id, name, description, locale and folder (:mod:`memory.personas`
reads and makes the folders)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STATIC_DIR = "static_memories"
"""The folder of a persona's preset memories."""


@dataclass(frozen=True)
class Persona:
    """A persona's identity: folder name, display name, description, locale."""

    id: str
    name: str
    description: str
    locale: str | None
    folder: Path

    @property
    def static_dir(self) -> Path:
        """Where its static memories live."""
        return self.folder / STATIC_DIR
