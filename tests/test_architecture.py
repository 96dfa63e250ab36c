"""Guard tests of the package layout, read from the source (AST only: nothing of the project is imported; about a
second for the whole package).

- Only the front ends import a UI toolkit: ``app.py``, ``views/`` and ``regintel/ui/`` may import streamlit or
  gradio; the engine packages stay usable from the CLI, the worker and the benchmarks without them.
- ``regintel/text`` is a leaf: it imports nothing from the rest of ``regintel``.
- No import cycle between the top-level packages and modules of ``regintel`` (``regintel.chat``,
  ``regintel.graph``, ``regintel.runtime`` ...), counting imports inside functions too: an import moved into a
  function to dodge a cycle still is one.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = REPO_ROOT / "regintel"
UI_TOOLKITS = {"streamlit", "gradio"}
# Cycles between top-level packages that are known and waiting for a refactor, as sets of package names, e.g.
# frozenset({"chat", "extraction"}), each with a comment saying what breaks it. Keep it empty: a new cycle is a
# function in the wrong package; an entry that no longer is a cycle fails the test until it is removed.
KNOWN_CYCLES: set[frozenset[str]] = set()


@dataclass(frozen=True)
class Import:
    path: Path  # the importing file
    line: int
    module: str  # absolute dotted name of what is imported ("regintel.graph.store", "streamlit")

    def where(self) -> str:
        return f"{self.path.relative_to(REPO_ROOT)}:{self.line} imports {self.module}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=None)
def imports_of(path: Path) -> tuple[Import, ...]:
    return tuple(imports_in(path.read_text(encoding="utf-8"), path))


def imports_in(source: str, path: Path) -> list[Import]:
    """Every import statement of a file, at any depth (module level, functions, classes, conditionals), resolved
    to absolute module names; ``from package import name`` also yields ``package.name`` (it may be a module)."""
    tree = ast.parse(source, filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(path, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append(Import(path, node.lineno, module))
            found += [Import(path, node.lineno, f"{module}.{alias.name}") for alias in node.names if alias.name != "*"]
    return found


def python_files(*roots: Path) -> list[Path]:
    files: list[Path] = []
    for root in roots:
        files += [root] if root.is_file() else sorted(root.rglob("*.py"))
    return files


def top_level(module: str) -> str | None:
    """``regintel.chat.engine`` -> ``chat``; ``regintel.config`` -> ``config``; None outside regintel or when the
    name is not a package or module of regintel (``from regintel import something_in_init``)."""
    parts = module.split(".")
    if parts[0] != "regintel" or len(parts) < 2:
        return None
    name = parts[1]
    return name if (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file() else None


def package_graph() -> dict[str, dict[str, list[Import]]]:
    """Top-level package -> imported top-level package -> the imports that make the edge."""
    graph: dict[str, dict[str, list[Import]]] = defaultdict(lambda: defaultdict(list))
    for path in python_files(PACKAGE):
        source = top_level(_module_name(path))
        if source is None:
            continue
        for imp in imports_of(path):
            target = top_level(imp.module)
            if target is not None and target != source:
                graph[source][target].append(imp)
    return graph


def strongly_connected(graph: dict[str, dict[str, list[Import]]]) -> list[set[str]]:
    """Tarjan's algorithm: the groups of packages that import each other, directly or through others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, {})):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def describe_cycle(group: set[str], graph: dict[str, dict[str, list[Import]]]) -> str:
    """One cycle through the group, then every import between its packages (the edges to cut)."""
    start = min(group)
    path, seen = [start], {start}
    while True:  # walk inside the group until a package repeats: that closes a cycle
        nxt = min(t for t in graph[path[-1]] if t in group)
        if nxt in seen:
            cycle = path[path.index(nxt):] + [nxt]
            break
        path.append(nxt)
        seen.add(nxt)
    lines = [f"{' -> '.join(cycle)} (packages in the cycle: {', '.join(sorted(group))})"]
    for source in sorted(group):
        for target in sorted(t for t in graph[source] if t in group):
            by_line: dict[tuple[Path, int], Import] = {}
            for imp in graph[source][target]:  # "from regintel.graph import queries": show regintel.graph.queries
                known = by_line.get((imp.path, imp.line))
                if known is None or len(imp.module) > len(known.module):
                    by_line[(imp.path, imp.line)] = imp
            lines += [f"    {imp.where()}" for imp in by_line.values()]
    return "\n".join(lines)


def test_only_the_front_ends_import_a_ui_toolkit():
    allowed = {REPO_ROOT / "app.py", *python_files(REPO_ROOT / "views"), *python_files(PACKAGE / "ui")}
    violations = [
        imp.where()
        for path in python_files(REPO_ROOT / "app.py", REPO_ROOT / "views", PACKAGE)
        if path not in allowed
        for imp in imports_of(path)
        if imp.module.split(".")[0] in UI_TOOLKITS
    ]
    assert not violations, "streamlit/gradio imported outside app.py, views/ and regintel/ui/:\n" + "\n".join(violations)


def test_text_is_a_leaf_package():
    violations = [
        imp.where()
        for imp in (i for path in python_files(PACKAGE / "text") for i in imports_of(path))
        if imp.module.split(".")[0] == "regintel" and not imp.module.startswith("regintel.text")
    ]
    assert python_files(PACKAGE / "text"), "regintel/text is missing"
    assert not violations, "regintel/text imports from the rest of regintel:\n" + "\n".join(violations)


def test_no_import_cycles_between_packages():
    graph = package_graph()
    assert {"chat", "graph", "retrieval"} <= set(graph), "the package graph was not read"
    groups = strongly_connected(graph)
    unexpected = [g for g in groups if frozenset(g) not in KNOWN_CYCLES]
    assert not unexpected, "import cycles between regintel packages (module- or function-level imports):\n" + \
        "\n".join(describe_cycle(g, graph) for g in unexpected)
    stale = [sorted(known) for known in KNOWN_CYCLES if set(known) not in groups]
    assert not stale, f"KNOWN_CYCLES lists cycles that are gone, remove them: {stale}"


def test_the_guard_sees_function_level_and_relative_imports():
    """The checks would be blind if imports inside functions or relative imports were missed."""
    sample = "def f():\n    from regintel.graph import store\n    import regintel.llm.router\n"
    found = {i.module for i in imports_in(sample, PACKAGE / "chat" / "sample.py")}
    assert {"regintel.graph", "regintel.graph.store", "regintel.llm.router"} <= found
    relative = imports_in("from .store import GraphStore\nfrom .. import config\n", PACKAGE / "graph" / "queries.py")
    assert [i.module for i in relative] == ["regintel.graph.store", "regintel.graph.store.GraphStore",
                                            "regintel", "regintel.config"]
    assert [top_level(i.module) for i in relative] == ["graph", "graph", None, "config"]
