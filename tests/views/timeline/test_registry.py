"""Lane kinds come from the registry alone: one more TrackKind is laid out, painted, hit and titled."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from tests.views.conftest import show_timeline
from timelineview.views.timeline.tracks import registry
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.tracks.instant_track import InstantTrackItem
from timelineview.views.timeline.tracks.registry import HeaderStyle, TrackKind, UnknownLaneKind, header_style
from timelineview.views.timeline.tracks.slice_track import SliceTrackItem
from timelineview.viewstate.timeline.hit_test import hit_at
from timelineview.viewstate.timeline.lane_layout import LANE, OVERVIEW, LaneLayout, Row
from timelineview.viewstate.timeline.view_state import IntervalRef, SliceRef, ViewState

MARKER = "marker"
MARKER_H = 14
MAGENTA = QtGui.QColor(255, 0, 255)


def marker_rows(card, process: int) -> list[Row]:
    return [Row(MARKER, card.number, 0, MARKER_H, 0, "Markers", ("marker", card.number))]


def marker_hit(state, row: Row, x: float, y: float) -> IntervalRef:
    return IntervalRef(row.card, 1_000, 2_000)


class MarkerItem(CardTrackItem):
    """Fills its rows in magenta, so a grab shows where it painted."""

    def _prepare(self) -> None:
        self.rects = [QtCore.QRect(self.ctx.area.left, int(self.ctx.scene_y(r.y)), self.ctx.area.width, r.height)
                      for r in self.ctx.visible_rows(self.card.number) if r.kind == MARKER]

    def _draw(self, p: QtGui.QPainter) -> None:
        for r in self.rects:
            p.fillRect(r, MAGENTA)


def test_the_shipped_kinds(qtbot, timeline, cards):
    per_card = [type(i) for i in timeline.canvas.card_items[:len(registry.item_classes())]]
    assert per_card == registry.item_classes()
    assert len(timeline.canvas.card_items) == len(cards) * len(per_card)
    assert registry.hit_tests()[LANE] == (registry.slice_at, registry.instant_at)  # a slice wins over a pin
    assert {SliceTrackItem, InstantTrackItem} <= set(per_card)


def test_one_registry_line_adds_a_lane_kind(qtbot, cards, monkeypatch):
    kind = TrackKind(kind=MARKER, item=MarkerItem, group=OVERVIEW, rows=marker_rows, hit=marker_hit,
                     header=HeaderStyle.SECONDARY)
    monkeypatch.setattr(registry, "TRACK_KINDS", (*registry.TRACK_KINDS, kind))
    for c in cards:
        c.offset_ns = 0
    w = show_timeline(qtbot, cards)
    rows = [r for r in w.ctx.layout.rows if r.kind == MARKER]
    assert [r.card for r in rows] == [0, 1]
    overview = [r for r in w.ctx.layout.rows if r.card == 0 and r.indent == 2 and r.y < rows[0].y]
    assert rows[0].y == overview[-1].bottom  # last in the overview group, after Steps
    assert header_style(rows[0]) is HeaderStyle.SECONDARY
    assert sum(isinstance(i, MarkerItem) for i in w.canvas.card_items) == 2
    image = w.canvas.grab().toImage()
    y = int(w.ctx.scene_y(rows[0].y + MARKER_H // 2))
    assert image.pixelColor(300, y) == MAGENTA
    assert image.pixelColor(300, int(w.ctx.scene_y(rows[0].y - 4))) != MAGENTA
    w.on_click(QtCore.QPointF(300, y), QtCore.Qt.KeyboardModifier(0))
    sel = w.ctx.area_selection
    assert (sel.t0, sel.t1, sel.cards) == (1_000, 2_000, [0])


def test_entries_are_named_fields():
    with pytest.raises(TypeError):
        TrackKind(MARKER, MarkerItem, OVERVIEW)  # positional: which one is the group?
    kind = TrackKind(kind=MARKER, item=MarkerItem, group=OVERVIEW)
    assert (kind.rows(None, 0), kind.hit, kind.hover, kind.details, kind.compact_h) == ([], None, None, None, 0)


def test_a_row_of_an_unregistered_kind_raises():
    row = Row(MARKER, 0, 0, MARKER_H, 0, "Markers", ("marker", 0))
    with pytest.raises(UnknownLaneKind, match="'marker'"):
        header_style(row)
    state = ViewState()
    state.layout = LaneLayout(rows=[row], height=MARKER_H)  # a row no entry names, under the mouse
    y = state.scene_y(MARKER_H // 2)
    with pytest.raises(KeyError, match="'marker'"):
        hit_at(state, 300, y, registry.hit_tests())
    with pytest.raises(UnknownLaneKind, match="'marker'"):
        registry.hover_text(state, 300, y)
    with pytest.raises(UnknownLaneKind, match="IntervalRef"):
        registry.details_of(IntervalRef(0, 1, 2))  # a hit, not a selection: no entry shows one
    known = Row(LANE, 0, 0, MARKER_H, 0, "Stream 1", ("lane", 0, 1))
    assert header_style(known) is HeaderStyle.LANE


def test_the_details_panel_shows_a_selection_through_its_entry(qtbot, timeline, cards, monkeypatch):
    from timelineview.views.panels.details_panel import DetailsPanel

    panel = DetailsPanel(timeline)
    qtbot.addWidget(panel)
    shown = []
    marker_view = QtWidgets.QLabel("marker details")
    panel.addWidget(marker_view)

    def marker_details(host, state, sel):
        shown.append(sel)
        return marker_view

    lane = next(k for k in registry.TRACK_KINDS if k.selects is SliceRef)
    kinds = tuple(TrackKind(kind=k.kind, item=k.item, group=k.group, rows=k.rows, hit=k.hit, hover=k.hover,
                            selects=k.selects, details=marker_details, header=k.header) if k is lane else k
                  for k in registry.TRACK_KINDS)
    monkeypatch.setattr(registry, "TRACK_KINDS", kinds)
    timeline.select_slice(0, 3)
    assert shown == [SliceRef(0, 3)] and panel.currentWidget() is marker_view
    timeline.select_area(0, 1_000_000, rows_of_card=1)  # areas: still the area statistics' entry
    assert panel.currentWidget() is panel.area and len(shown) == 1
