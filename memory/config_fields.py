"""Setting config fields from TOML tables and environment strings, with type coercion."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Any

from memory.errors import ConfigError


def parse_env_value(raw: str) -> Any:
    """JSON when the value parses as JSON, else the raw string."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def set_field(target: Any, key: str, value: Any) -> None:
    """Set ``key`` on a config dataclass (recursing into sections); ConfigError names the field."""
    names = {f.name: f for f in dataclasses.fields(target)}
    if key not in names:
        raise ConfigError(key, f"unknown field (known: {', '.join(sorted(names))})")
    current = getattr(target, key)
    if dataclasses.is_dataclass(current):
        if not isinstance(value, dict):
            raise ConfigError(key, "must be a table of fields")
        for sub_key, sub_value in value.items():
            try:
                set_field(current, sub_key, sub_value)
            except ConfigError as exc:
                raise ConfigError(f"{key}.{exc.field}", str(exc).split(": ", 1)[1]) from exc
        return
    setattr(target, key, _coerce(key, current, value))


def _coerce(key: str, current: Any, value: Any) -> Any:
    if isinstance(current, bool):
        if isinstance(value, str):
            value = value.strip().lower() in {"1", "true", "yes", "on"}
        return bool(value)
    if isinstance(current, Enum):
        return value
    if isinstance(current, dict):
        if not isinstance(value, dict):
            raise ConfigError(key, "must be a table")
        return {**current, **value}
    try:
        if isinstance(current, int):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        if isinstance(current, float):
            return float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(key, f"must be a {type(current).__name__}, got {value!r}") from exc
    return str(value)
