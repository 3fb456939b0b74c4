"""MemoryConfig: SPEC defaults, TOML and environment overrides, errors naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.paths import REPO
from memory import ConfigError, MemoryConfig, RetrievalMode


def test_defaults_match_spec() -> None:
    config = MemoryConfig()
    assert config.active.capacity == 10
    assert config.temporary.significance_threshold == 0.1
    assert config.temporary.decay_coefficient == 0.95
    assert config.summary.interval_seconds == 300
    assert config.summary.cleanup_interval_seconds == 3600
    assert config.summary.cleanup_ratio == 0.01
    assert config.summary.decay_coefficient == 0.98
    assert config.retrieval.mode == RetrievalMode.HYBRID  # it won on the LoCoMo dev file
    assert config.retrieval.quotas == {"temporary": 3, "summary": 2, "static": 2}
    assert config.retrieval.weights == {"static": 1.0, "summary": 0.9, "temporary": 0.8}
    assert config.retrieval.top_k == 7
    assert config.embedding.provider == "use-e5"
    assert config.data_dir == "data/memory_store"


def test_shipped_default_toml_equals_the_defaults() -> None:
    loaded = MemoryConfig.from_toml(REPO / "config" / "default.toml", use_env=False)
    assert loaded.to_dict() == MemoryConfig().to_dict()


def test_toml_overrides_fields(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        'locale = "en"\n[active]\ncapacity = 4\n[retrieval]\nmode = "weighted"\n'
        "[retrieval.quotas]\ntemporary = 5\n",
        encoding="utf-8",
    )
    config = MemoryConfig.from_toml(path, use_env=False)
    assert config.locale == "en"
    assert config.active.capacity == 4
    assert config.retrieval.mode == RetrievalMode.WEIGHTED
    assert config.retrieval.quotas == {"temporary": 5, "summary": 2, "static": 2}


def test_environment_overrides_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[active]\ncapacity = 4\n", encoding="utf-8")
    monkeypatch.setenv("PERSONA_MEMORY__ACTIVE__CAPACITY", "7")
    monkeypatch.setenv("PERSONA_MEMORY__LOCALE", "en")
    monkeypatch.setenv("PERSONA_MEMORY__TEMPORARY__DECAY_COEFFICIENT", "0.9")
    config = MemoryConfig.from_toml(path)
    assert (config.active.capacity, config.locale) == (7, "en")
    assert config.temporary.decay_coefficient == 0.9


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("active", "capacity", 0),
        ("temporary", "decay_coefficient", 0.0),
        ("temporary", "decay_coefficient", 1.5),
        ("summary", "decay_coefficient", -0.1),
        ("summary", "cleanup_ratio", 2.0),
        ("retrieval", "mode", "fuzzy"),
        ("retrieval", "top_k", 0),
        ("retrieval", "profile_chars", -1),
        ("store", "hnsw_ef_search", 10**12),
        ("server", "api_key", "   "),
        ("server", "api_key", " secret "),
        ("embedding", "provider", "openai"),
    ],
)
def test_absurd_values_raise_config_error_naming_the_field(section: str, field: str, value: object) -> None:
    config = MemoryConfig()
    with pytest.raises(ConfigError, match=f"{section}.{field}"):
        setattr(getattr(config, section), field, value)
    with pytest.raises(ConfigError, match=f"{section}.{field}"):
        MemoryConfig(**{section: {field: value}})
    assert config.validate() is config  # the refused value never got in


def test_unknown_toml_field_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[active]\ncapacityy = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="active.capacityy"):
        MemoryConfig.from_toml(path, use_env=False)


def test_non_numeric_environment_value_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONA_MEMORY__ACTIVE__CAPACITY", "many")
    with pytest.raises(ConfigError, match="active.capacity"):
        MemoryConfig.from_env()


@pytest.mark.parametrize(
    "variable",
    ["PERSONA_MEMORY__BOGUS__X", "PERSONA_MEMORY__ACTIVE__CAPACTY", "PERSONA_MEMORY__DATA_DIR__X"],
)
def test_an_environment_variable_naming_no_setting_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "3")
    with pytest.raises(ConfigError, match=variable):
        MemoryConfig()


def test_a_table_entry_named_in_the_environment_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONA_MEMORY__RETRIEVAL__QUOTAS__TEMPORARY", "4")
    monkeypatch.setenv("PERSONA_MEMORY__STORE__HEADERS__X_TOKEN", "令牌")
    assert MemoryConfig().retrieval.quotas["temporary"] == 4


def test_an_unknown_embedder_is_refused_with_every_choice_the_default_first() -> None:
    every = r"embedding\.provider.*'use-e5', 'use-multilingual' or 'huggingface'"
    with pytest.raises(ConfigError, match=every):
        MemoryConfig(embedding={"provider": "openai"})  # type: ignore[arg-type]


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


def test_a_plain_config_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERSONA_MEMORY__ACTIVE__CAPACITY", "3")
    monkeypatch.setenv("PERSONA_MEMORY__STORE__SSL", "true")
    monkeypatch.setenv("PERSONA_MEMORY__DATA_DIR", "/srv/karin")
    config = MemoryConfig()
    assert (config.active.capacity, config.store.ssl, config.data_dir) == (3, True, "/srv/karin")


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        ("[active]\ncapacity = true\n", "active.capacity"),
        ('[store]\nssl = "maybe"\n', "store.ssl"),
        ("[summary]\ninterval_seconds = inf\n", "summary.interval_seconds"),
        ("[temporary]\ndecay_coefficient = nan\n", "temporary.decay_coefficient"),
        ('[store]\nport = "8000"\n', "store.port"),  # a number in quotes: text, not a number
        ('[retrieval.quotas]\ntemporary = "3"\n', "retrieval.quotas.temporary"),
        ("[store]\nhnsw_ef_search = 1000000000000\n", "store.hnsw_ef_search"),
    ],
)
def test_types_are_strict_where_a_file_can_be_quietly_wrong(tmp_path: Path, toml: str, field: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        MemoryConfig.from_toml(path, use_env=False)


def test_a_number_given_as_text_in_code_is_refused_but_the_environment_may() -> None:
    with pytest.raises(ConfigError, match=r"retrieval\.top_k.*text"):
        MemoryConfig(retrieval={"top_k": "7"})
    config = MemoryConfig()
    with pytest.raises(ConfigError, match=r"active\.capacity.*text"):
        config.active.capacity = "5"  # type: ignore[assignment]
    assert config.active.capacity == 10


def test_the_old_persist_dir_name_still_works_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[embedding]\npersist_dir = "/srv/old"\n', encoding="utf-8")
    with pytest.warns(DeprecationWarning, match="data_dir"):
        config = MemoryConfig.from_toml(path, use_env=False)
    assert config.data_dir == "/srv/old"
    with pytest.warns(DeprecationWarning):
        config.embedding.persist_dir = "/srv/newer"  # type: ignore[misc]
    assert config.data_dir == "/srv/newer"


def test_validate_checks_without_changing_anything() -> None:
    config = MemoryConfig()
    before = config.to_dict()
    assert config.validate() is config and config.to_dict() == before
    config.retrieval.weights["cold"] = 1.0  # a dict edited in place
    with pytest.raises(ConfigError, match="weights"):
        config.validate()


def test_configs_compare_by_their_settings() -> None:
    """Comparing two configs recursed forever through the embedding section's back-reference."""
    first, second = MemoryConfig(), MemoryConfig()
    assert first == second
    second.embedding.batch_size = 8
    assert first != second and first.embedding != second.embedding
