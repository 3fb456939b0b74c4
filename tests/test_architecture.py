"""The package's shape: a small public API, no import cycle, no module importing a layer above it."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import memory

PACKAGE = Path(memory.__file__).parent

EXPORTED = [
    "ClosedError",
    "ConfigError",
    "ImportReport",
    "InputTooLargeError",
    "InputTypeError",
    "Interaction",
    "InvalidInputError",
    "Layer",
    "MemoryConfig",
    "MemoryEngineError",
    "MemoryEntry",
    "MemoryManager",
    "PersonaNotFoundError",
    "RetrievalMode",
    "RetrievalResult",
    "RetrievedMemory",
    "StoreError",
    "StoreLockedError",
    "StoreMode",
]

# The package's folders (and the modules at its top), bottom to top: a unit may import units of
# lower ranks, never one above it nor another of its own rank (inside a unit, only cycles are
# forbidden: see test_the_import_graph_has_no_cycle).
RANKS: list[set[str]] = [
    {"errors", "samples", "cache_files"},  # cache_files: the user cache of package-derived files
    {"domain", "config_types"},  # types and pure rules, no I/O; strict config field types
    {"config_sections"},
    {"config", "personas"},  # personas: the folders, and the samples that ship
    {"record"},  # SQLite / PostgreSQL, the journal, entries, profile, keyword indexes, archive
    {"index"},  # Chroma, breaker, deadlines, embeddings
    {"layers"},  # the four layers and decay
    {"summary"},
    {"write"},  # recording, import, the index sync, erasure
    {"retrieval"},  # the read path
    {"engine"},  # the composition root
    {"introspection", "integrations", "transfer"},
    {"upkeep", "surface"},
    {"manager"},
    {"server"},
    {"demo"},
    {"cli"},
    {"__main__"},
]


def _unit(module: str) -> str:
    return module.split(".")[0]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).with_suffix("")
        parts = [p for p in relative.parts if p != "__init__"]
        if parts and parts[0] == "bench":
            continue
        found[".".join(parts)] = path
    return found


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules a file imports (``from memory import x`` counts when x is a module)."""
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith("memory."):
                inner = name.removeprefix("memory.")
                while inner and inner not in modules:
                    inner = inner.rpartition(".")[0]
                if inner:
                    targets.add(inner)
    return targets


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    names = set(modules) - {""}
    return {name: _imports(path, names) - {name} for name, path in modules.items() if name}


def test_public_names_are_exactly_the_documented_ones() -> None:
    public = sorted(
        name
        for name in dir(memory)
        if not name.startswith("_") and not isinstance(getattr(memory, name), types.ModuleType)
    )
    assert memory.__all__ == EXPORTED == public
    leaked = [n for n, v in vars(memory).items() if not n.startswith("_") and n not in EXPORTED]
    assert all(isinstance(vars(memory)[n], types.ModuleType) for n in leaked)  # submodules only


def test_every_module_has_a_rank() -> None:
    ranked = set().union(*RANKS)
    units = {_unit(m) for m in _graph()}
    assert units == ranked, "a new folder or top-level module needs a place in RANKS (bottom to top)"


def test_no_folder_imports_one_above_it_or_beside_it() -> None:
    rank = {name: level for level, names in enumerate(RANKS) for name in names}
    wrong = [
        f"{module} -> {target}"
        for module, targets in _graph().items()
        for target in targets
        if _unit(module) != _unit(target) and rank[_unit(target)] >= rank[_unit(module)]
    ]
    assert wrong == []


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    visiting: set[str] = set()
    done: set[str] = set()
    cycles: list[str] = []

    def visit(module: str, path: list[str]) -> None:
        if module in done:
            return
        if module in visiting:
            cycles.append(" -> ".join([*path[path.index(module) :], module]))
            return
        visiting.add(module)
        for target in sorted(graph.get(module, ())):
            visit(target, [*path, module])
        visiting.discard(module)
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert cycles == []


def test_domain_types_import_nothing_of_the_package() -> None:
    graph = _graph()
    assert graph["domain.types"] == set() and graph["errors"] == set()


HEAVY = {
    "chromadb": "index.chroma",
    "apscheduler": "summary.scheduler",
    "psycopg": "record.postgres",
    "langgraph": "integrations.graph_store",
    "fastapi": "server.app",
    "fastapi_offline": "server.app",
    "uvicorn": "server.run",
    "starlette": "server.app",
    "mcp": "server.mcp_tools",
    "langchain_huggingface": "index.embeddings",
    "sentence_transformers": "index.embeddings",
    "torch": "index.embeddings",
    "onnx": "index.e5_graph",
    "onnxruntime": "index.e5_model",
    "sentencepiece": "index.use",
}


def test_each_heavy_dependency_has_one_importer() -> None:
    importers: dict[str, set[str]] = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots = [node.module.split(".")[0]]
            else:
                continue
            for root in roots:
                if root in HEAVY:
                    importers.setdefault(root, set()).add(name)
    assert {root: names for root, names in importers.items() if names != {HEAVY[root]}} == {}


def test_layers_are_listed_only_where_their_kinds_are_declared() -> None:
    """A tuple, list or set of two or more layers is written only in ``domain/types.py``
    (``LAYER_KINDS``); every other list of layers is derived from it, so a new layer kind is
    declared in one place and every list picks it up."""
    listed: list[str] = []
    for name, path in _modules().items():
        if name == "domain.types":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                layers = [
                    e for e in node.elts if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)
                    and e.value.id == "Layer"
                ]  # fmt: skip
                if len(layers) >= 2:
                    listed.append(f"{name}:{node.lineno}")
    assert listed == []


MAX_FILE_LINES = 300
MAX_FUNCTION_LINES = 60


def test_no_module_or_function_outgrows_what_a_reader_takes_in_at_once() -> None:
    """Every module of the package is at most 300 lines and every function at most 60."""
    long: list[str] = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_FILE_LINES:
            long.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert long == []
