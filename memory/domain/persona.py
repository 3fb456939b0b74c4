"""What a persona is: its id, name, description, locale, folder and name for the user (:mod:`memory.personas`
reads and makes the folders)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STATIC_DIR = "static_memories"
"""The folder of a persona's preset memories."""


@dataclass(frozen=True)
class Persona:
    """A persona's identity: folder name, display name, description, locale, folder, and what it
    calls the user (``addresses_user_as``: a query naming it asks about the user)."""

    id: str
    name: str
    description: str
    locale: str | None
    folder: Path
    addresses_user_as: tuple[str, ...] = ()

    @property
    def static_dir(self) -> Path:
        """Where its static memories live."""
        return self.folder / STATIC_DIR
