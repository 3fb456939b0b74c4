"""All tunable values of the engine, in one place (pydantic-settings).

``MemoryConfig()`` gives the defaults with ``PERSONA_MEMORY__SECTION__FIELD`` environment
variables applied (``PERSONA_MEMORY__FIELD`` for top-level fields); ``MemoryConfig.from_toml``
reads a TOML file laid out like ``config/default.toml`` and the environment overrides it. Every
value is checked at construction and on assignment; :class:`~memory.errors.ConfigError` names
the field (``active.capacity``).
"""

from __future__ import annotations

import contextvars
import os
import tomllib
import warnings
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from memory.config_sections import (
    ActiveConfig,
    EmbeddingConfig,
    RetrievalConfig,
    RetrievalMode,
    ServerConfig,
    StoreConfig,
    StoreMode,
    SummaryConfig,
    TemporaryConfig,
)
from memory.config_types import Int, config_error, is_number
from memory.errors import ConfigError, ConfigFileError

__all__ = [
    "ActiveConfig",
    "EmbeddingConfig",
    "MemoryConfig",
    "RetrievalConfig",
    "RetrievalMode",
    "ServerConfig",
    "StoreConfig",
    "StoreMode",
    "SummaryConfig",
    "TemporaryConfig",
]

ENV_PREFIX = "PERSONA_MEMORY__"
_FROM_FILE: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("_FROM_FILE", default=None)
_USE_ENV: contextvars.ContextVar[bool] = contextvars.ContextVar("_USE_ENV", default=True)
_SECTIONS = ("active", "temporary", "summary", "retrieval", "embedding", "store", "server")


class _FileSource(PydanticBaseSettingsSource):
    """The TOML file given to :meth:`MemoryConfig.from_toml` (below the environment)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_FROM_FILE.get() or {})


class MemoryConfig(BaseSettings):
    """The whole engine configuration; sections mirror ``config/default.toml``."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        validate_assignment=True,
        case_sensitive=False,
        use_attribute_docstrings=True,
    )

    active: ActiveConfig = Field(default_factory=ActiveConfig)
    temporary: TemporaryConfig = Field(default_factory=TemporaryConfig)
    summary: SummaryConfig = Field(default_factory=SummaryConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    data_dir: str = Field("data/memory_store", min_length=1, description="SQLite database + Chroma folder")
    personas_dir: str = Field(
        "personas", min_length=1, description="folder of persona folders (else the shipped ones: karin)"
    )
    archive_dir: str = Field("data/archive", min_length=1, description="JSONL log of forgotten memories")
    locale: str = Field("zh", pattern="^(zh|en)$", description="prompt language: zh or en")
    max_text_chars: Int = Field(20_000, ge=1, description="longest user_input / response / query")

    def __init__(self, **values: Any) -> None:
        if _USE_ENV.get():
            _check_environment_names()
        _refuse_text_numbers(values, type(self))
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise config_error(exc) from None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments, then the environment, then a TOML file (``from_toml``), then defaults."""
        environment = (env_settings,) if _USE_ENV.get() else ()
        return (init_settings, *environment, _FileSource(settings_cls))

    @model_validator(mode="before")
    @classmethod
    def _legacy_persist_dir(cls, data: Any) -> Any:
        embedding = data.get("embedding") if isinstance(data, dict) else None
        if isinstance(embedding, dict) and "persist_dir" in embedding:
            warnings.warn(
                "embedding.persist_dir is deprecated; use the top-level data_dir",
                DeprecationWarning,
                stacklevel=2,
            )
            embedding = dict(embedding)
            data = {**data, "embedding": embedding}
            data.setdefault("data_dir", embedding.pop("persist_dir"))
        return data

    def model_post_init(self, context: Any, /) -> None:
        """Name each section (errors say ``active.capacity``); let the legacy name reach data_dir."""
        for name in _SECTIONS:
            getattr(self, name)._name = name
        self.embedding._owner = self

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            raise config_error(exc) from None
        if name in _SECTIONS:
            getattr(self, name)._name = name
            if name == "embedding":
                self.embedding._owner = self

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], *, use_env: bool = True) -> MemoryConfig:
        """Load a config from a TOML file; the environment overrides it unless ``use_env`` is false.

        Raises:
            ConfigError: the file is missing, is not TOML, or holds an unknown or invalid field.
        """
        file = Path(path)
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except (FileNotFoundError, IsADirectoryError) as exc:
            raise ConfigFileError(
                str(file.resolve()), "no such file (given to --config or from_toml)"
            ) from exc
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigFileError(str(file.resolve()), f"not valid TOML: {exc}") from exc
        _refuse_text_numbers(data, cls)
        file_token, env_token = _FROM_FILE.set(data), _USE_ENV.set(use_env)
        try:
            return cls()
        finally:
            _FROM_FILE.reset(file_token)
            _USE_ENV.reset(env_token)

    @classmethod
    def from_env(cls) -> MemoryConfig:
        """Defaults with environment overrides applied (the same as ``MemoryConfig()``)."""
        return cls()

    def validate(self) -> MemoryConfig:  # type: ignore[override]
        """Check every value again (a dict edited in place escapes assignment checks); return self.

        Raises:
            ConfigError: naming the first bad field. Nothing is changed.
        """
        token = _USE_ENV.set(False)
        try:
            type(self).model_validate(self.to_dict())
        except ValidationError as exc:
            raise config_error(exc) from None
        finally:
            _USE_ENV.reset(token)
        return self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable view of the config."""
        return self.model_dump(mode="json")


def _refuse_text_numbers(data: Any, model: type[BaseModel], prefix: str = "") -> None:
    """A number written as text in a file or in code (``temporary = "3"``) is a mistake the
    validator would quietly convert; only the environment, which holds text only, may do that.

    Raises:
        ConfigError: naming the field (``retrieval.quotas.temporary``).
    """
    if not isinstance(data, dict):
        return
    for name, value in data.items():
        field = model.model_fields.get(name) if isinstance(name, str) else None
        if field is None:
            continue
        annotation, where = field.annotation, f"{prefix}{name}"
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            _refuse_text_numbers(value, annotation, f"{where}.")
        elif get_origin(annotation) is dict and isinstance(value, dict):
            numbers = is_number(get_args(annotation)[1])
            for key, item in value.items():
                if numbers and isinstance(item, str):
                    raise ConfigError(f"{where}.{key}", f"expected a number, got the text {item!r}")
        elif isinstance(value, str) and is_number(annotation):
            raise ConfigError(where, f"expected a number, got the text {value!r}")


def _check_environment_names() -> None:
    """Refuse a ``PERSONA_MEMORY__*`` variable that names no setting (a typo is silent otherwise).

    Raises:
        ConfigError: naming the variable.
    """
    for variable in os.environ:
        if not variable.upper().startswith(ENV_PREFIX):
            continue
        parts = variable[len(ENV_PREFIX) :].lower().split("__")
        fields = MemoryConfig.model_fields
        known = parts[0] in fields
        if known and parts[0] in _SECTIONS:
            section = fields[parts[0]].annotation
            assert isinstance(section, type) and issubclass(section, BaseModel)
            inner = section.model_fields.get(parts[1]) if len(parts) > 1 else None
            legacy = parts[:2] == ["embedding", "persist_dir"]
            is_table = inner is not None and getattr(inner.annotation, "__origin__", None) is dict
            known = (legacy and len(parts) == 2) or (inner is not None and (len(parts) == 2 or is_table))
        elif known:
            known = len(parts) == 1
        if not known:
            layout = "PERSONA_MEMORY__SECTION__FIELD, see config/default.toml"
            raise ConfigError(variable, f"no such setting (the variables are {layout})")
