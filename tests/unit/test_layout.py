"""The layout's rules, read from the source: the agent (``graph/``) never imports a door (``doors/``), and no module
of either, nor of ``memory/`` (the stores and their language rules), takes part in an import circle. Every import
counts, the ones inside functions too: a circle that only closes at run time is still a circle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("graph", "nodes", "memory", "prompts", "doors")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _imported(tree: ast.Module, name: str, is_package: bool, known: set[str]) -> Iterator[str]:
    """The first-party modules ``name`` imports: ``from a import b`` is ``a.b`` when that is a module, else ``a``."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            if target in known and target != name:
                yield target


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: set(_imported(ast.parse(path.read_text()), name, path.name == "__init__.py", known))
            for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _in(name: str, *packages: str) -> bool:
    return name.split(".")[0] in packages


def test_the_agent_never_imports_a_door() -> None:
    graph = import_graph()
    assert any(_in(m, "doors") for m in graph), "the doors package is missing"
    leaks = sorted(f"{m} imports {t}" for m, targets in graph.items() if not _in(m, "doors")
                   for t in targets if _in(t, "doors"))
    assert leaks == []


def test_no_import_circle_through_the_agent_or_its_doors() -> None:
    circles = [c for c in _cycles(import_graph()) if any(_in(m, "graph", "doors") for m in c)]
    assert circles == []


def test_no_import_circle_among_the_memory_modules() -> None:
    graph = import_graph()
    assert any(m.startswith("memory.language.") for m in graph), "the language rules are missing"
    circles = [c for c in _cycles(graph) if any(_in(m, "memory") for m in c)]
    assert circles == []


def test_the_language_rules_use_no_store() -> None:
    """``memory/language/`` is pure logic on text: of ``memory/`` it imports only itself and the errors."""
    leaks = sorted(f"{m} imports {t}" for m, targets in import_graph().items() if m.startswith("memory.language")
                   for t in targets if _in(t, "memory") and not t.startswith("memory.language")
                   and t not in ("memory", "memory.errors"))
    assert leaks == []


def test_the_check_sees_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
