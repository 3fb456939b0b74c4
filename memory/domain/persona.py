"""Persona folders: ``personas/<name>/persona.toml`` and ``static_memories/``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from memory.errors import PersonaNotFoundError, StaticMemoryError

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


def load_persona(personas_dir: Path, persona: str) -> Persona:
    """Read a persona folder.

    Raises:
        PersonaNotFoundError: no such folder (the message lists the personas found).
        StaticMemoryError: ``persona.toml`` is not valid TOML.
    """
    folder = personas_dir / persona
    if not folder.is_dir():
        known = (
            sorted(p.name for p in personas_dir.iterdir() if p.is_dir()) if (personas_dir.is_dir()) else []
        )
        found = ", ".join(known) or "none"
        raise PersonaNotFoundError(
            f"persona {persona!r} not found in {personas_dir.resolve()} (found: {found});"
            " create the folder, or point personas_dir at the folder holding it (config personas_dir,"
            " environment PERSONA_MEMORY__PERSONAS_DIR, or --personas-dir)"
        )
    meta: dict[str, object] = {}
    toml_path = folder / "persona.toml"
    if toml_path.exists():
        try:
            meta = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise StaticMemoryError(f"{toml_path}: not valid TOML ({exc})") from exc
    locale = meta.get("locale")
    return Persona(
        id=persona,
        name=str(meta.get("name") or persona),
        description=str(meta.get("description") or ""),
        locale=str(locale) if locale else None,
        folder=folder,
    )
