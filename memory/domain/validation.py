"""Checks at the public edge: every bad argument gets an error naming it."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

from memory.errors import InputTooLargeError, InputTypeError, InvalidInputError

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_PERSONA = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")


def clean_text(argument: str, value: object, max_chars: int) -> str:
    """Validate a text argument and drop control characters (newlines and tabs stay).

    Raises:
        InputTypeError: not a ``str`` (``None`` included).
        InvalidInputError: empty or whitespace-only, or holding lone surrogates.
        InputTooLargeError: longer than ``max_chars``.
    """
    if not isinstance(value, str):
        raise InputTypeError(argument, "a str", value)
    if len(value) > max_chars:
        raise InputTooLargeError(
            argument,
            f"is {len(value)} characters; the limit is {max_chars}. Raise max_text_chars in the config "
            "(or PERSONA_MEMORY__MAX_TEXT_CHARS) to accept longer texts",
        )
    if _SURROGATE.search(value):
        raise InvalidInputError(argument, "contains lone surrogates (not valid Unicode text)")
    cleaned = _CONTROL.sub("", value)
    if not cleaned.strip():
        raise InvalidInputError(argument, "must not be empty or whitespace-only")
    return cleaned


MAX_USER_ID_CHARS = 256
"""The longest user id (an e-mail address is at most 254 characters)."""
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a user id may not hold: control, format (zero-width spaces, direction
marks), surrogate, private-use and unassigned characters, line and paragraph separators: an id
holding one would display as another user's."""
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters a
renderer shows as nothing, whatever their category (variation selectors, fillers, joiners)."""
_BLANK = frozenset({"\u2800"})
"""Assigned, non-ignorable characters that still render as empty space (the blank braille cell)."""


def _invisible(char: str) -> bool:
    """Whether ``char`` would not show in a rendered user id (a space other than U+0020 counts:
    it reads as a plain space)."""
    point = ord(char)
    category = unicodedata.category(char)
    return (
        category in _INVISIBLE
        or (category == "Zs" and char != " ")
        or char in _BLANK
        or any(low <= point <= high for low, high in _IGNORABLE)
    )


def check_user_id(value: object) -> str | None:
    """``None`` or a non-empty str of at most :data:`MAX_USER_ID_CHARS` visible characters,
    stripped and NFC-normalised (the composed and decomposed spellings of one name are one user).

    Visible: no control, format, private-use, unassigned or default-ignorable character, no
    space but U+0020, no blank-rendering character; so no two accepted ids that differ only in
    what a screen does not show."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputTypeError("user_id", "a string (or none: the persona's shared memory)", value)
    user_id = unicodedata.normalize("NFC", value.strip()) if not _SURROGATE.search(value) else ""
    if not user_id or any(_invisible(c) for c in user_id):
        raise InvalidInputError(
            "user_id",
            "must be a non-empty string of visible characters (or none: the persona's shared memory)",
        )
    if len(user_id) > MAX_USER_ID_CHARS:
        raise InvalidInputError("user_id", f"is {len(user_id)} characters; the limit is {MAX_USER_ID_CHARS}")
    return user_id


_KEY = re.compile(r"^[\w.-]{1,64}$")


def check_key(value: object) -> str | None:
    """``None`` or a profile key: 1-64 word characters, '.' or '-' (e.g. ``home_city``, ``过敏``)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputTypeError("key", "a string (or none)", value)
    key = value.strip()
    if not _KEY.match(key):
        raise InvalidInputError("key", f"{value!r} must be 1-64 letters, digits, '_', '.' or '-'")
    return key


def is_key(value: str) -> bool:
    """Whether a string is a usable profile key (see :func:`check_key`)."""
    return bool(_KEY.match(value))


def check_memory_id(value: object) -> str:
    """A memory id: a non-empty str."""
    if not isinstance(value, str):
        raise InputTypeError("memory_id", "a str", value)
    if not value.strip():
        raise InvalidInputError("memory_id", "must not be empty")
    return value


def check_top_k(value: object) -> int:
    """A positive int."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputTypeError("top_k", "an int", value)
    if value <= 0:
        raise InvalidInputError("top_k", f"must be >= 1, got {value}")
    return value


def check_persona(value: object) -> str:
    """A persona name usable as a folder and collection name."""
    if not isinstance(value, str):
        raise InputTypeError("persona", "a str", value)
    if not _PERSONA.match(value) or "__" in value:
        raise InvalidInputError(
            "persona",
            f"{value!r} must be 1-63 letters, digits, '-' or '_' (starting alphanumeric, no '__': "
            "it separates the parts of collection names)",
        )
    return value


def check_timestamp(value: object, now: datetime) -> datetime:
    """An aware datetime (naive ones are rejected: their zone is unknown); ``None`` means now."""
    if value is None:
        return now
    if not isinstance(value, datetime):
        raise InputTypeError("timestamp", "a date and time with a zone (or none: now)", value)
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInputError("timestamp", "needs a time zone, e.g. 2026-11-01T09:30:00+08:00")
    return value.astimezone(UTC)
