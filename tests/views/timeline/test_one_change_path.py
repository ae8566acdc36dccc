"""One change path: nothing in ``timelineview/views`` outside ``views/timeline/`` writes the timeline widget's
state (its ``ctx`` and the attributes the widget sets on itself); they call the widget's methods, which end
in ``TimelineWidget.changed``. An AST scan of the source, so a new direct write fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import timelineview

VIEWS = Path(timelineview.__file__).parent / "views"
TIMELINE = VIEWS / "timeline"
WIDGET_FILES = ("widget.py", "navigation.py", "search.py")
MUTATORS = {"add", "update", "append", "extend", "remove", "clear", "discard", "pop", "insert", "setdefault",
            "symmetric_difference_update", "difference_update", "intersection_update", "sort"}
TIMELINE_NAME = re.compile(r"(^|_)(timeline|tl)$")  # how the views name a TimelineWidget they hold


def widget_state_attributes() -> set[str]:
    """Every attribute the widget (and its mixins) assigns on ``self``: its state."""
    names = {"ctx"}
    for name in WIDGET_FILES:
        for node in ast.walk(ast.parse((TIMELINE / name).read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    names.add(t.attr)
    return names


def _chain(node: ast.AST) -> list[str]:
    """The names of an attribute / subscript chain, outermost last: ``a.b[c].d`` -> [a, b, d]."""
    out = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            out.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        out.append(node.id)
    return out[::-1]


def writes_timeline_state(target: ast.AST, state: set[str]) -> bool:
    """Whether an assigned (or mutated) expression is the timeline's state: anything under a ``.ctx``, or a
    state attribute of something named like a timeline widget."""
    chain = _chain(target)
    if len(chain) < 2:
        return False
    if "ctx" in chain[1:]:
        return True
    return any(TIMELINE_NAME.search(owner) and attr in state for owner, attr in zip(chain, chain[1:], strict=False))


def offending_lines(source: str, state: set[str]) -> list[int]:
    """Lines of ``source`` that assign to, or call a mutating method of, the timeline's state."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            targets = [node.func.value]
        else:
            continue
        if any(writes_timeline_state(t, state) for t in targets):
            found.append(node.lineno)
    return found


def test_the_scan_finds_direct_writes():
    state = widget_state_attributes()
    assert {"ctx", "collapsed", "lane_filter", "layout_builder"} <= state
    written = """
def toggle(self):
    self.timeline.ctx.plane_colours = True
    tl = self.timeline
    tl.collapsed = set()
    tl.collapsed |= {("process", 0, 1)}
    timeline.ctx.matches, timeline.ctx.match_cum = {}, {}
    timeline.layout_builder = None
    self.timeline.ctx.marks.append((1, 2))
    timeline.collapsed.discard(("card", 0))
"""
    assert offending_lines(written, state) == [3, 5, 6, 7, 8, 9, 10]
    read = """
def fine(self):
    n = len(self.timeline.ctx.cards)
    self.collapsed = set()  # the caller's own state
    self.timeline.set_plane_colours(True)
    self.timeline.collapse_all(True)
    rows = [r for r in timeline.ctx.layout.rows]
"""
    assert offending_lines(read, state) == []


def test_nothing_outside_the_timeline_writes_its_state():
    state = widget_state_attributes()
    bad = []
    for path in sorted(VIEWS.rglob("*.py")):
        if TIMELINE in path.parents:
            continue
        for line in offending_lines(path.read_text(encoding="utf-8"), state):
            bad.append(f"{path.relative_to(VIEWS.parent)}:{line}")
    assert bad == [], "write the timeline's state through its methods: " + ", ".join(bad)
