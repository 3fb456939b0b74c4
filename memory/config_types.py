"""The strict field types and the base of every config section.

Types are strict where a config file can be wrong in a quiet way: an integer field refuses a
bool (``capacity = true``), a bool refuses anything but a bool or a true/false word
(``ssl = "maybe"``), and floats must be finite (``inf``, ``nan``). Assignment is validated too,
so a bad value never gets in; :class:`memory.errors.ConfigError` names the field.
"""

from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError

from memory.errors import ConfigError


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got the bool {value}")
    return value


_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off"}


def _bool_word(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"expected true or false, got {value!r}")


Int = Annotated[int, BeforeValidator(_no_bool)]
Float = Annotated[float, BeforeValidator(_no_bool), Field(allow_inf_nan=False)]
Bool = Annotated[bool, BeforeValidator(_bool_word)]


def config_error(error: ValidationError, prefix: str = "") -> ConfigError:
    """The first problem of a pydantic error as a :class:`ConfigError` naming the field."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"] if part != "__root__")
    field = f"{prefix}.{path}" if prefix and path else (prefix or path or "config")
    return ConfigError(field, first["msg"].removeprefix("Value error, "))


def is_number(annotation: Any) -> bool:
    """Whether a field's type is a number (int or float, possibly optional)."""
    if get_origin(annotation) is Annotated:
        return is_number(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        return any(is_number(a) for a in get_args(annotation) if a is not type(None))
    return annotation in (int, float)


class Section(BaseModel):
    """A config section: unknown fields refused, every assignment validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_attribute_docstrings=True)
    _name: str = PrivateAttr(default="")

    def __setattr__(self, name: str, value: Any) -> None:
        field = type(self).model_fields.get(name)
        if field is not None and isinstance(value, str) and is_number(field.annotation):
            where = f"{self._name}.{name}".lstrip(".")
            raise ConfigError(where, f"expected a number, got the text {value!r}")
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            raise config_error(exc, self._name) from None
