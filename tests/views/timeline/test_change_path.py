"""One change path: each user action recomputes the details panel once and emits each signal once."""

from __future__ import annotations

import pytest
from PySide6 import QtCore

from timelineview.views.panels.details_panel import DetailsPanel
from timelineview.viewstate.timeline.lane_layout import LANE, LANE_PAD, SLICE_ROW_H

SIGNALS = ("windowChanged", "layoutChanged", "selectionChanged", "searchChanged")


@pytest.fixture
def panel(qtbot, timeline):
    p = DetailsPanel(timeline)
    qtbot.addWidget(p)
    p.show()
    return p


@pytest.fixture
def computed(panel, monkeypatch):
    """Names of the panel's computations, in call order."""
    calls: list[str] = []
    for owner, name in ((panel.slice, "show_slice"), (panel.slice, "show_instant"),
                        (panel.area, "show_area"), (panel.area, "show_overview")):
        real = getattr(owner, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, spy)
    return calls


@pytest.fixture
def emitted(timeline):
    """Signal names the timeline emits, in order."""
    seen: list[str] = []
    for name in SIGNALS:
        getattr(timeline, name).connect(lambda *_, n=name: seen.append(n))
    return seen


def _slice_point(tl, card_no: int, i: int) -> QtCore.QPoint:
    card = tl.ctx.card_by_number(card_no)
    s = card.store.slices
    tl.reveal_slice(card_no, i)
    row = tl.ctx.layout.find(LANE, card_no, int(s.lane[i]))
    y = tl.ctx.scene_y(row.y + LANE_PAD + int(s.depth[i]) * SLICE_ROW_H + SLICE_ROW_H / 2)
    x = tl.ctx.scene_x(int(s.start[i] + s.dur[i] // 2) - tl.ctx.card_shift(card))
    return QtCore.QPoint(int(x), int(y))


def _longest(card) -> int:
    return int(card.store.slices.dur.argmax())


def test_a_click_on_a_slice_computes_the_details_once(qtbot, timeline, cards, computed, emitted):
    timeline.show_all()
    i = _longest(cards[0])
    pos = _slice_point(timeline, 0, i)
    computed.clear()
    emitted.clear()
    qtbot.mouseClick(timeline.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert timeline.ctx.selection is not None and timeline.ctx.selection.index == i
    assert computed == ["show_slice"]
    assert emitted == ["selectionChanged"]


def test_a_click_on_a_step_computes_the_area_once(qtbot, timeline, cards, computed, emitted):
    timeline.show_all()
    card = cards[0]
    row = timeline.ctx.layout.find("steps", 0)
    mid = int(card.steps.start[0] + card.steps.end[0]) // 2 - timeline.ctx.card_shift(card)
    pos = QtCore.QPoint(int(timeline.ctx.scene_x(mid)), int(timeline.ctx.scene_y(row.y + 5)))
    computed.clear()
    emitted.clear()
    qtbot.mouseClick(timeline.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert timeline.ctx.area_selection is not None
    assert computed == ["show_area"]
    assert emitted == ["selectionChanged"]


def test_an_area_drag_computes_once_when_released(qtbot, timeline, computed, emitted):
    timeline.show_all()
    vp = timeline.canvas.viewport()
    computed.clear()
    emitted.clear()
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(300, 120))
    for x in (350, 400, 450):
        qtbot.mouseMove(vp, QtCore.QPoint(x, 300))
    assert timeline.ctx.area_selection is not None and computed == [] and emitted == []
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(500, 300))
    assert computed == ["show_area"]
    assert emitted == ["selectionChanged"]


def test_clearing_computes_once_and_only_when_something_was_selected(qtbot, timeline, computed, emitted):
    timeline.select_area(0, 1_000_000, rows_of_card=1)
    computed.clear()
    emitted.clear()
    timeline.clear_selection()
    timeline.clear_selection()
    assert computed == ["show_overview"] and emitted == ["selectionChanged"]


def test_each_kind_of_change_bumps_its_own_counter_and_signal(qtbot, timeline, emitted):
    ctx = timeline.ctx
    gen, search_gen = ctx.generation, ctx.search_generation
    timeline.set_range(1_000, 2_000_000)
    assert emitted == ["windowChanged"] and (ctx.generation, ctx.search_generation) == (gen, search_gen)
    emitted.clear()
    timeline.toggle_group(("process", 0, 0))
    assert emitted == ["layoutChanged"] and ctx.generation == gen + 1
    emitted.clear()
    timeline.run_search("matmul")
    assert emitted == ["searchChanged"] and ctx.search_generation == search_gen + 1 and ctx.generation == gen + 1
    emitted.clear()
    timeline.set_scroll(40)
    assert emitted == [] and ctx.scroll_y == 40 and timeline.scrollbar.value() == 40
    timeline.toggle_mark()  # nothing selected: nothing to mark
    assert ctx.marks == [] and emitted == []


def test_collapse_all_closes_every_process_and_expand_all_opens_every_group(qtbot, timeline, cards, emitted):
    timeline.toggle_group(("card", 1))  # a collapsed card: its processes are closed too, for when it opens
    emitted.clear()
    timeline.collapse_all(True)
    every = {("process", c.number, p) for c in cards for p in range(len(c.store.processes))}
    assert timeline.collapsed == every and emitted == ["layoutChanged"]
    assert not [r for r in timeline.ctx.layout.rows if r.kind == LANE]
    timeline.collapse_all(False)
    assert timeline.collapsed == set()
    lanes = {(r.card, r.lane) for r in timeline.ctx.layout.rows if r.kind == LANE}
    assert lanes == {(c.number, int(ln)) for c in cards for ln in range(len(c.store.lanes))
                     if c.lanes_with_slices()[ln] or c.lanes_with_instants()[ln]}


def test_plane_colours_relayout_once_and_only_on_a_change(qtbot, timeline, emitted):
    gen = timeline.ctx.generation
    timeline.set_plane_colours(True)
    assert timeline.ctx.plane_colours and emitted == ["layoutChanged"] and timeline.ctx.generation == gen + 1
    timeline.set_plane_colours(True)
    assert emitted == ["layoutChanged"]
    timeline.set_plane_colours(False)
    assert not timeline.ctx.plane_colours and timeline.ctx.generation == gen + 2
