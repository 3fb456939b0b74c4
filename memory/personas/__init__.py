"""Persona folders: ``personas/<name>/persona.toml`` and ``static_memories/``; this package also
holds the sample personas that ship (:data:`SAMPLES`: ``karin``).

A persona is looked up in ``personas_dir`` first, then among the samples, so a plain ``pip
install`` runs the examples.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from memory.domain.persona import STATIC_DIR, Persona
from memory.errors import InvalidInputError, PersonaNotFoundError, StaticMemoryError

SAMPLES = Path(__file__).resolve().parent
"""The personas that ship with the package."""


def load_persona(personas_dir: Path, persona: str) -> Persona:
    """Read a persona folder.

    Raises:
        PersonaNotFoundError: no such folder (the message lists the personas found).
        StaticMemoryError: ``persona.toml`` is not valid TOML.
    """
    folder = personas_dir / persona
    if not folder.is_dir() and (SAMPLES / persona).is_dir():
        folder = SAMPLES / persona
    if not folder.is_dir():
        found, shipped = ", ".join(persona_names(personas_dir)) or "none", ", ".join(persona_names(SAMPLES))
        raise PersonaNotFoundError(
            f"persona {persona!r} not found in {personas_dir.resolve()} (found: {found}; "
            f"shipped: {shipped}); "
            "create the folder (`persona-memory personas new NAME`), or point personas_dir at the "
            "folder holding it (config personas_dir, environment PERSONA_MEMORY__PERSONAS_DIR, or "
            "--personas-dir)"
        )
    meta: dict[str, object] = {}
    toml_path = folder / "persona.toml"
    if toml_path.exists():
        try:
            meta = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise StaticMemoryError(f"{toml_path}: not valid TOML ({exc})") from exc
    locale, terms = meta.get("locale"), meta.get("addresses_user_as", [])
    terms = [terms] if isinstance(terms, str) else terms
    words = [t.strip() for t in terms if isinstance(t, str)] if isinstance(terms, list) else []
    if not isinstance(terms, list) or len(words) != len(terms) or not all(words):
        raise StaticMemoryError(f'{toml_path}: addresses_user_as must be a list of words, e.g. ["前辈"]')
    return Persona(
        id=persona,
        name=str(meta.get("name") or persona),
        description=str(meta.get("description") or ""),
        locale=str(locale) if locale else None,
        folder=folder,
        addresses_user_as=tuple(words),
    )


def persona_names(folder: Path) -> list[str]:
    """The persona folders in ``folder``."""
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


TEMPLATE_TOML = """name = "{name}"              # how prompts and the inspector name the persona
description = ""             # who the persona is, for the people who keep it (the engine ignores it)
locale = "{locale}"                # "zh" or "en": the language of the prompt texts and the inspector
addresses_user_as = []       # what the persona calls the user, e.g. ["前辈"]

# The persona's own memories, never forgotten, go in static_memories/: each .md or .txt file
# gives one memory per paragraph (paragraphs are separated by a blank line; a paragraph of
# headings only is skipped); a .json file holds a list of strings, or of objects with "content"
# and optional "tags". Edit them any time: the next start picks up what changed.
"""
TEMPLATE_MEMORIES = "# {name}\n\n"


def create_persona(personas_dir: Path, persona: str, *, locale: str = "zh") -> Path:
    """Make a persona folder to fill in (``persona.toml`` and one memory file); returns it.

    Raises:
        InvalidInputError: the folder exists already.
    """
    folder = personas_dir / persona
    if folder.exists():
        raise InvalidInputError("name", f"{folder.resolve()} exists already")
    (folder / STATIC_DIR).mkdir(parents=True)
    (folder / "persona.toml").write_text(TEMPLATE_TOML.format(name=persona, locale=locale), encoding="utf-8")
    (folder / STATIC_DIR / "about.md").write_text(TEMPLATE_MEMORIES.format(name=persona), encoding="utf-8")
    return folder
