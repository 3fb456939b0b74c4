"""The command line: demo, import, reindex, state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory import InputTypeError, InvalidInputError, Layer, MemoryConfig, MemoryManager
from memory.cli import main
from memory.demo import load_sample
from memory.personas import SAMPLES


def test_sample_dialogue_is_long_enough_to_overflow() -> None:
    sample = load_sample()
    assert len(sample["interactions"]) >= 40
    assert len(sample["questions"]) >= 6
    assert len({i["day"] for i in sample["interactions"]}) > 3


def test_karin_has_at_least_twenty_static_memories(tmp_path: Path) -> None:
    config = MemoryConfig()
    config.personas_dir = str(SAMPLES)
    config.data_dir = str(tmp_path / "store")
    config.archive_dir = str(tmp_path / "archive")
    manager = MemoryManager("karin", config)
    try:
        assert len(manager.inspector.entries(Layer.STATIC)) >= 20
        assert manager.persona.locale == "zh"
    finally:
        manager.close()


def test_a_new_persona_is_made_listed_and_opened_without_a_personas_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memory", "--data-dir", str(tmp_path / "d"), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)

    assert run("personas", "list").stdout.split() == ["karin", "(shipped", "with", "the", "package)"]
    assert run("state", "--persona", "karin").returncode == 0  # the shipped one, no folder needed
    made = run("personas", "new", "mika", "--locale", "en")
    assert made.returncode == 0 and (tmp_path / "personas" / "mika" / "persona.toml").is_file()
    assert run("personas", "new", "mika").returncode == 2  # never over a folder that exists
    assert "mika" in run("personas", "list").stdout
    assert json.loads(run("state", "--persona", "mika").stdout)["static_count"] == 0  # the template: none
    memories = tmp_path / "personas" / "mika" / "static_memories" / "about.md"
    memories.write_text(
        memories.read_text() + "I grew up in Kamakura.\n\nI play the cello.\n", encoding="utf-8"
    )
    assert json.loads(run("state", "--persona", "mika").stdout)["static_count"] == 2
    refused = run("personas", "new", "../escape")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert not (tmp_path / "escape").exists()


def test_demo_runs_and_finds_every_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "--personas-dir",
            str(SAMPLES),
            "--data-dir",
            str(tmp_path / "demo"),
            "demo",
            "--persona",
            "karin",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "rag_text" in out and "per-memory scores" in out and "engine state" in out
    total = len(load_sample()["questions"])
    assert f"{total}/{total} questions found their memory" in out
    tail = out[out.index("questions found their memory") :]
    assert "engine state" not in tail and tail.count("found") > total  # the verdict comes last


def _jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _args(tmp_path: Path, *rest: str) -> list[str]:
    return ["--personas-dir", str(SAMPLES), "--data-dir", str(tmp_path / "d"), *rest]


def test_import_command_keeps_timestamps_and_layer_rules(tmp_path, capsys) -> None:
    lines = [
        json.dumps(
            {"user_input": f"第{i}句", "response": "嗯", "timestamp": f"2026-01-{i + 1:02d}T08:00:00+00:00"},
            ensure_ascii=False,
        )
        for i in range(15)
    ]
    assert (
        main(_args(tmp_path, "import", str(_jsonl(tmp_path / "in.jsonl", lines)), "--persona", "karin")) == 0
    )
    assert "imported 15" in capsys.readouterr().out
    main(_args(tmp_path, "state", "--persona", "karin"))
    state = json.loads(capsys.readouterr().out)
    assert (state["active_count"], state["temporary_count"]) == (10, 5)


def test_import_with_bad_line_imports_nothing_and_names_the_line(tmp_path, capsys) -> None:
    lines = ['{"user_input": "好", "response": "嗯"}', "{not json", '{"user_input": "x"}']
    code = main(_args(tmp_path, "import", str(_jsonl(tmp_path / "bad.jsonl", lines)), "--persona", "karin"))
    err = capsys.readouterr().err
    assert code == 2 and "line 2" in err and "line 3" in err
    assert "--skip-invalid" in err and "skip_invalid=True" not in err  # advice a shell user can follow
    main(_args(tmp_path, "state", "--persona", "karin"))
    assert json.loads(capsys.readouterr().out)["interactions_recorded"] == 0


def test_import_skip_invalid_reports_and_continues(tmp_path, capsys) -> None:
    lines = ['{"user_input": "好", "response": "嗯"}', "{not json"]
    assert (
        main(
            _args(
                tmp_path,
                "import",
                str(_jsonl(tmp_path / "bad.jsonl", lines)),
                "--persona",
                "karin",
                "--skip-invalid",
            )
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "skipped line 2" in captured.err and "imported 1" in captured.out


def test_reindex_rebuilds_the_vector_index_from_sqlite(tmp_path, capsys) -> None:
    config = MemoryConfig()
    config.personas_dir = str(SAMPLES)
    config.data_dir = str(tmp_path / "d" / "memory_store")
    config.archive_dir = str(tmp_path / "d" / "archive")
    config.active.capacity = 1
    manager = MemoryManager("karin", config)
    manager.record_interaction_sync("Deployed 3-node redis cluster, config at /opt/redis/", "好")
    manager.record_interaction_sync("最后一句", "嗯")
    manager.close()
    assert main(_args(tmp_path, "reindex", "--persona", "karin")) == 0
    assert "reindexed" in capsys.readouterr().out
    manager = MemoryManager("karin", config)
    try:
        assert len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 1
        assert "/opt/redis/" in manager.retrieve("redis 集群的配置在哪里")[1]
    finally:
        manager.close()


def _records(n: int) -> list[str]:
    return [
        json.dumps(
            {
                "user_input": f"第{i}天：今天练了吉他 🎸",
                "response": "好厉害～",
                "timestamp": f"2026-03-{i + 1:02d}T20:00:00+08:00",
                "user_id": "u42",
            },
            ensure_ascii=False,
        )
        for i in range(n)
    ]


def test_importing_the_same_file_twice_adds_nothing(tmp_path, capsys) -> None:
    path = _jsonl(tmp_path / "in.jsonl", _records(14))
    assert main(_args(tmp_path, "import", str(path), "--persona", "karin")) == 0
    assert "imported 14 interactions" in capsys.readouterr().out
    main(_args(tmp_path, "state", "--persona", "karin"))
    before = json.loads(capsys.readouterr().out)
    assert main(_args(tmp_path, "import", str(path), "--persona", "karin")) == 0
    assert "imported 0 interactions" in capsys.readouterr().out
    main(_args(tmp_path, "state", "--persona", "karin"))
    after = json.loads(capsys.readouterr().out)
    assert after["interactions_recorded"] == before["interactions_recorded"] == 14
    assert after["users"]["u42"] == before["users"]["u42"]
    config = MemoryConfig(personas_dir=str(SAMPLES), data_dir=str(tmp_path / "d" / "memory_store"))
    config.archive_dir = str(tmp_path / "d" / "archive")
    with MemoryManager("karin", config) as manager:
        window = manager.inspector.entries(Layer.ACTIVE, "u42")
    assert [e.created_at for e in window] == sorted(e.created_at for e in window) and len(window) == 10


@pytest.mark.parametrize("target", ["missing.jsonl", "a-folder"])
def test_import_of_a_missing_file_or_a_folder_is_a_clear_error(tmp_path, capsys, target) -> None:
    (tmp_path / "a-folder").mkdir()
    code = main(_args(tmp_path, "import", str(tmp_path / target), "--persona", "karin"))
    err = capsys.readouterr().err
    assert code == 2 and target in err and "Traceback" not in err
    assert ("does not exist" in err) if target.endswith(".jsonl") else ("is a directory" in err)


@pytest.mark.parametrize("size", ["0", "-5", "ten"])
def test_import_refuses_a_batch_size_below_one(tmp_path, capsys, size) -> None:
    path = _jsonl(tmp_path / "in.jsonl", _records(3))
    with pytest.raises(SystemExit) as exit_info:
        main(_args(tmp_path, "import", str(path), "--persona", "karin", "--batch-size", size))
    assert exit_info.value.code == 2 and "--batch-size" in capsys.readouterr().err


def test_import_interactions_checks_batch_size_before_writing(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="batch_size"):
        manager.import_interactions([{"user_input": "你好", "response": "嗯"}], batch_size=0)
    with pytest.raises(InputTypeError, match="batch_size"):
        manager.import_interactions([{"user_input": "你好", "response": "嗯"}], batch_size="5")  # type: ignore[arg-type]
    assert manager.debug_state()["interactions_recorded"] == 0


def test_import_help_documents_the_jsonl_keys(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    out = capsys.readouterr().out
    assert all(key in out for key in ("user_input", "response", "timestamp", "user_id", "我对花生过敏"))


def test_help_answers_without_loading_the_config_or_the_store() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HELP_IMPORTS], capture_output=True, text=True, timeout=120, check=True
    )
    assert "bulk import interactions" in done.stdout
    assert done.stdout.splitlines()[-1] == "[]"  # pydantic alone took a third of a second


HELP_IMPORTS = """
import sys
from memory.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
print(sorted(m for m in ("pydantic", "chromadb", "langchain_core", "numpy", "jieba") if m in sys.modules))
"""


def test_an_unknown_persona_names_the_absolute_folder_searched(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(
        ["--personas-dir", "personas", "--data-dir", str(tmp_path / "d"), "state", "--persona", "nobody"]
    )
    err = capsys.readouterr().err
    assert code == 2 and str(tmp_path / "personas") in err and "Traceback" not in err
    assert "shipped: karin" in err


def test_forget_user_erases_only_with_confirmation(tmp_path, capsys) -> None:
    config = MemoryConfig()
    config.personas_dir = str(SAMPLES)
    config.data_dir = str(tmp_path / "d" / "memory_store")
    config.archive_dir = str(tmp_path / "d" / "archive")
    manager = MemoryManager("karin", config)
    manager.record_interaction_sync("我的小名叫豆豆", "好可爱～", user_id="u7")
    manager.record_interaction_sync("我喜欢下雨天", "嗯嗯", user_id="u8")
    manager.close()
    assert main(_args(tmp_path, "forget-user", "u7", "--persona", "karin")) == 2
    assert "--yes" in capsys.readouterr().err
    assert main(_args(tmp_path, "forget-user", "u7", "--persona", "karin", "--yes")) == 0
    assert "erased 1 memories" in capsys.readouterr().out
    manager = MemoryManager("karin", config)
    try:
        assert "豆豆" not in manager.retrieve("我的小名", user_id="u7")[0]
        assert "下雨天" in manager.retrieve("我喜欢什么天气", user_id="u8")[0]
    finally:
        manager.close()


def test_the_common_options_work_after_the_command_too(tmp_path, capsys) -> None:
    after = ["--personas-dir", str(SAMPLES), "--data-dir", str(tmp_path / "d")]
    assert main(["state", "--persona", "karin", *after]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["persona"] == "karin" and Path(state["store"]["database"]).is_relative_to(tmp_path)


def test_state_into_a_pipe_closed_early_ends_quietly(tmp_path) -> None:
    import subprocess
    import sys

    command = (
        f"{sys.executable} -m memory --personas-dir {SAMPLES} --data-dir {tmp_path / 'd'} "
        "state --persona karin | true"  # the reader is gone before the state is written
    )
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("blocked", "command", "extra"),
    [
        ("fastapi", "main(['serve', '--persona', 'karin'])", "server"),
        ("mcp", "main(['mcp', '--persona', 'karin'])", "server"),
        ("langgraph", "MemoryManager('karin', MemoryConfig()).as_store()", "langgraph"),
    ],
)
def test_a_missing_extra_is_one_line_naming_the_install(
    tmp_path, blocked: str, command: str, extra: str
) -> None:
    script = (
        f"import sys; sys.modules[{blocked!r}] = None\n"  # as if the extra were not installed
        "from memory import MemoryConfig, MemoryManager\nfrom memory.cli import main\n"
        f"sys.exit({command})\n"
    )
    env = {**os.environ, "PERSONA_MEMORY__DATA_DIR": str(tmp_path / "d")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert f"pip install 'persona-memory[{extra}]'" in done.stderr
    if "main(" in command:
        assert done.returncode == 2 and "Traceback" not in done.stderr
