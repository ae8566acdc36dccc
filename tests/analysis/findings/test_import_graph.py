"""The findings package imports its own modules without a circle, counting imports made inside functions
(a circle hidden that way still means no module can be read, or loaded, before the others)."""

from __future__ import annotations

import ast
from pathlib import Path

import timelineview.analysis.findings as findings

PACKAGE = findings.__name__


def own_imports(folder: Path, package: str) -> dict[str, set[str]]:
    """For each module of ``folder``, the modules of the same package it imports, anywhere in its text."""
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph = {}
    for name in modules:
        found = set()
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith(package + "."):
                    found.add(node.module[len(package) + 1:].split(".")[0])
                elif node.module == package:
                    found |= {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name[len(package) + 1:].split(".")[0] for a in node.names
                          if a.name.startswith(package + ".")}
        graph[name] = found & modules - {name}
    return graph


def a_circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of imports (its modules in order, the first repeated last), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (found := walk(n)):
                return found
        path.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state and (found := walk(m)):
            return found
    return []


def test_a_circle_is_found():
    assert a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert a_circle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_findings_modules_import_each_other_without_a_circle():
    graph = own_imports(Path(findings.__file__).parent, PACKAGE)
    assert {"evaluate", "links", "signals", "records"} <= set(graph)
    assert a_circle(graph) == [], " -> ".join(a_circle(graph))
