"""The views' structure: a main window of a readable size, and what differs between loaded traces and a
summary folder said by the data shown (``views.shown_data``), not tested for in branch after branch."""

from __future__ import annotations

import ast
from pathlib import Path

import timelineview.views as views

VIEWS = Path(views.__file__).parent
MAX_MAIN_WINDOW_LINES = 400
MAX_SUMMARY_BRANCHES = 6


def _names_a_summary(node: ast.AST) -> bool:
    """Whether an expression reads a name, attribute or text that speaks of a summary."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            text = n.id
        elif isinstance(n, ast.Attribute):
            text = n.attr
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            text = n.value
        else:
            continue
        if "summar" in text.lower():
            return True
    return False


def summary_branches(source: str) -> list[int]:
    """Lines of the ``if``/``elif``/``while``, conditional expressions and comprehension filters whose
    condition speaks of a summary."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            conditions = [node.test]
        elif isinstance(node, ast.comprehension):
            conditions = node.ifs
        elif isinstance(node, ast.Match):
            conditions = [node.subject]
        else:
            continue
        lines += [c.lineno for c in conditions if _names_a_summary(c)]
    return sorted(lines)


def test_the_counter_finds_summary_branches():
    source = ("if self.summary is not None:\n    pass\n"
              "elif looks_like_summary(p):\n    pass\n"
              "x = 'a' if self.of_summary else 'b'\n"
              "y = [c for c in cards if c.summarised]\n"
              "if self.data.has_slices:\n    pass\n"
              "while report.summary():\n    break\n")
    assert summary_branches(source) == [1, 3, 5, 6, 9]


def test_the_main_window_stays_small():
    lines = (VIEWS / "main_window.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_MAIN_WINDOW_LINES


def test_few_summary_branches_in_the_views():
    found = {f"{path.relative_to(VIEWS)}:{line}": line for path in sorted(VIEWS.rglob("*.py"))
             for line in summary_branches(path.read_text(encoding="utf-8"))}
    assert len(found) <= MAX_SUMMARY_BRANCHES, sorted(found)
