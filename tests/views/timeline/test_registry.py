"""Lane kinds come from the registry alone: one more TrackKind is laid out, painted, hit and titled."""

from __future__ import annotations

from PySide6 import QtCore, QtGui

from tests.views.conftest import show_timeline
from timelineview.views.timeline.tracks import registry
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.tracks.instant_track import InstantTrackItem
from timelineview.views.timeline.tracks.registry import HeaderStyle, TrackKind, header_style
from timelineview.views.timeline.tracks.slice_track import SliceTrackItem
from timelineview.viewstate.timeline.lane_layout import LANE, OVERVIEW, Row
from timelineview.viewstate.timeline.view_state import IntervalRef

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
    kind = TrackKind(MARKER, MarkerItem, OVERVIEW, marker_rows, marker_hit, HeaderStyle.SECONDARY)
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
