"""A summarised card on the one timeline: its pyramid's rows as coverage lanes under its card header, each
pixel shaded by the share of time covered (read from the level ``level_index`` picks; pixels against the
intervals given here), the header saying what the rows are and what a bucket stands for, the timeline's
navigation, hover words and area marks on it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from tests.views.conftest import show_timeline
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.pyramid import build_pyramid
from timelineview.views.timeline.tracks.coverage_track import CoverageTrackItem
from timelineview.viewstate.card_view import summary_card
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.lane_layout import CARD, COVERAGE

SPAN = 40_000_000  # 40 ms
T0 = 7_000  # the card's first slice, absolute ns
ROWS = (("Compute", (0, SPAN // 2)),  # the first half
        ("proc / lane", (SPAN // 4, SPAN // 2)),  # the second quarter
        ("proc / other", (3 * SPAN // 4, SPAN)))  # the last quarter


@pytest.fixture
def summarised(qtbot):
    """A timeline showing one summarised card of three rows."""
    pyr = build_pyramid([(name, Intervals(np.array([a + T0]), np.array([b + T0]))) for name, (a, b) in ROWS],
                        T0, T0 + SPAN)
    return show_timeline(qtbot, [summary_card(0, pyr, "rank 0  (summary)")])


def _item(tl) -> CoverageTrackItem:
    return next(i for i in tl.canvas.card_items if isinstance(i, CoverageTrackItem))


def _rows(tl) -> list:
    return [r for r in tl.ctx.layout.rows if r.kind == COVERAGE]


def _mid_y(tl, row: int) -> int:
    r = _rows(tl)[row]
    return int(tl.ctx.scene_y(r.y + r.height // 2))


def _x(tl, t_rel: float) -> float:
    return tl.ctx.scene_x(int(t_rel))


def _pixels(image: QtGui.QImage, tl, row: int, xs) -> list[tuple[int, int, int]]:
    return [QtGui.QColor(image.pixel(int(x), _mid_y(tl, row))).getRgb()[:3] for x in xs]


def _buckets_drawn(tl) -> int:
    return round(SPAN / _item(tl).sample_ns)


def test_the_card_shows_its_rows_and_the_header_says_what_they_are(summarised):
    tl = summarised
    rows = tl.ctx.layout.rows
    assert [(r.kind, r.title, r.indent) for r in rows] == [
        (CARD, "rank 0  (summary)", 0), (COVERAGE, "Compute", 1), (COVERAGE, "proc / lane", 1),
        (COVERAGE, "proc / other", 1)]
    assert rows[0].tooltip.startswith("rank 0  (summary): overview from the summary")
    assert rows[1].legend == (("compute", ""),) and rows[2].legend == ()  # a derived set's colour in the tree
    v = tl.viewport
    assert tl.ctx.origin == T0 and (v.t0, v.t1) == (-SPAN // 100, SPAN + SPAN // 100)  # all, padded 1 %
    tl.canvas.grab()
    wanted = math.ceil(tl.ctx.area.width * SPAN / (v.t1 - v.t0))
    pyr = tl.cards[0].coverage_source.pyramid
    buckets = pyr.levels[pyr.level_index(wanted)].shape[1]
    assert buckets >= wanted and _buckets_drawn(tl) == buckets  # the coarsest level with a bucket per pixel
    resolution = f"1 bucket = {format_duration(SPAN / buckets, 2)}"
    assert _item(tl).header == f"Overview from the summary, not slices · {resolution}"
    tl.set_card_note(0, "the trace is not on this machine")
    tl.canvas.grab()
    note = "the trace is not on this machine"
    assert _item(tl).header == f"Overview from the summary, not slices · {resolution} · {note}"


def test_the_pixels_follow_the_occupancy(summarised):
    tl = summarised
    image = tl.canvas.grab().toImage()
    theme = tl.ctx.theme
    left = [_x(tl, f * SPAN) for f in (0.02, 0.2, 0.3, 0.45)]  # inside the first half
    right = [_x(tl, f * SPAN) for f in (0.55, 0.7, 0.8, 0.98)]  # inside the second
    compute, lane = theme.derived["compute"].getRgb()[:3], theme.summary.getRgb()[:3]
    background, band = theme.background.getRgb()[:3], theme.band.getRgb()[:3]
    assert compute != lane
    # row 0 (plain background) covers the first half: coloured left, empty right
    assert _pixels(image, tl, 0, left) == [compute] * 4
    assert _pixels(image, tl, 0, right) == [background] * 4
    # row 1 (a band) covers [1/4, 1/2)
    assert _pixels(image, tl, 1, left) == [band, band, lane, lane]
    assert _pixels(image, tl, 1, right) == [band] * 4
    # row 2 covers the last quarter
    assert _pixels(image, tl, 2, left + right) == [background] * 6 + [lane] * 2
    # before the card's start (the padding) nothing is drawn
    assert _pixels(image, tl, 0, [_x(tl, -0.005 * SPAN)]) == [background]


def test_hover_and_click_tell_of_the_bucket_under_the_mouse(summarised):
    tl = summarised
    tl.canvas.grab()
    buckets = _buckets_drawn(tl)
    bucket = format_duration(SPAN / buckets, 2)
    x = _x(tl, 0.2 * SPAN)
    over = tl.status_text(QtCore.QPointF(x, _mid_y(tl, 0)))
    assert over.startswith("t = ") and over.endswith(f"Compute: busy 100% of its {bucket} bucket (from the summary)")
    assert "proc / lane: busy 0% of its" in tl.status_text(QtCore.QPointF(x, _mid_y(tl, 1)))
    # a click selects the bucket's span across the card's rows; a click where the row is empty clears it
    t = tl.ctx.t_at(x)
    k = math.floor(t * buckets / SPAN)
    tl.on_click(QtCore.QPointF(x, _mid_y(tl, 0)), QtCore.Qt.KeyboardModifier(0))
    sel = tl.ctx.area_selection
    assert (sel.t0, sel.t1, sel.cards) == (round(k * SPAN / buckets), round((k + 1) * SPAN / buckets), [0])
    tl.on_click(QtCore.QPointF(_x(tl, 0.7 * SPAN), _mid_y(tl, 0)), QtCore.Qt.KeyboardModifier(0))
    assert tl.ctx.area_selection is None


def test_wheel_zooms_at_the_cursor_and_the_level_gets_finer(qtbot, summarised):
    tl = summarised
    v = tl.viewport
    vp = tl.canvas.viewport()
    x = tl.ctx.area.left + 300
    t_before = v.t_of(300)
    tl.canvas.grab()
    levels = [_buckets_drawn(tl)]
    for _ in range(12):
        ev = QtGui.QWheelEvent(QtCore.QPointF(x, 100), QtCore.QPointF(vp.mapToGlobal(QtCore.QPoint(x, 100))),
                               QtCore.QPoint(0, 0), QtCore.QPoint(0, 120), QtCore.Qt.MouseButton.NoButton,
                               QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
        QtCore.QCoreApplication.sendEvent(vp, ev)
        tl.canvas.grab()
        levels.append(_buckets_drawn(tl))
    assert abs(v.t_of(300) - t_before) <= 1  # the time under the mouse stays there
    assert v.t1 - v.t0 < SPAN // 6
    assert levels[-1] == 4096 and levels[0] < levels[-1] and levels == sorted(levels)
    # A / D pan by a tenth of the window; 0 shows all again; Backspace goes back
    span = v.t1 - v.t0
    t0 = v.t0
    qtbot.keyClick(tl, QtCore.Qt.Key.Key_D)
    assert v.t0 - t0 == round(span * 0.1)
    qtbot.keyClick(tl, QtCore.Qt.Key.Key_0)
    assert (v.t0, v.t1) == (-SPAN // 100, SPAN + SPAN // 100)
    qtbot.keyClick(tl, QtCore.Qt.Key.Key_Backspace)
    assert v.t0 == t0 + round(span * 0.1)


def _over(base: QtGui.QColor, fill: QtGui.QColor) -> tuple[int, int, int]:
    """``fill`` (with its alpha) painted over the opaque ``base``: the reference blend, by hand."""
    a = fill.alpha() / 255
    return tuple(round(f * a + b * (1 - a)) for f, b in zip(fill.getRgb()[:3], base.getRgb()[:3], strict=True))


def test_a_marked_span_covers_the_cards_rows_until_a_click_or_escape(qtbot, summarised):
    tl = summarised
    theme = tl.ctx.theme
    tl.select_area(SPAN // 10, SPAN // 5, rows_of_card=0)  # what a jump to a finding's span does
    image = tl.canvas.grab().toImage()
    y = _mid_y(tl, 2)  # row 2 is empty over [0, 3/4 SPAN): the mark over it is the area fill over the background
    inside, outside = _x(tl, 0.15 * SPAN), _x(tl, 0.3 * SPAN)
    got = QtGui.QColor(image.pixel(int(inside), y)).getRgb()[:3]
    assert all(abs(a - b) <= 2 for a, b in zip(got, _over(theme.background, theme.area_fill), strict=True))
    assert QtGui.QColor(image.pixel(int(outside), y)).getRgb()[:3] == theme.background.getRgb()[:3]
    tl.on_click(QtCore.QPointF(outside, y), QtCore.Qt.KeyboardModifier(0))
    assert tl.ctx.area_selection is None
    tl.select_area(SPAN // 10, SPAN // 5, rows_of_card=0)
    qtbot.keyClick(tl, QtCore.Qt.Key.Key_Escape)
    assert tl.ctx.area_selection is None


def test_search_and_marks_work_on_a_summarised_card(qtbot, summarised):
    tl = summarised
    assert tl.run_search("matmul") == 0 and tl.match_count == 0  # no slices to find, and no error
    tl.select_area(SPAN // 10, SPAN // 5, rows_of_card=0)
    assert tl.toggle_mark() and tl.ctx.marks == [(SPAN // 10, SPAN // 5)]
    assert tl.fit_selection() and tl.viewport.t0 < SPAN // 10 < SPAN // 5 < tl.viewport.t1


def test_a_drag_on_the_ruler_pans_and_keeps_the_mark(qtbot, summarised):
    tl = summarised
    tl.set_range(SPAN // 4, SPAN // 2)
    tl.select_area(SPAN // 10, SPAN // 5, rows_of_card=0)
    vp, v = tl.canvas.viewport(), tl.viewport
    t0, ns_per_px = v.t0, v.ns_per_px
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(500, 10))  # on the time axis
    qtbot.mouseMove(vp, QtCore.QPoint(560, 10))
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(560, 10))
    assert abs((t0 - v.t0) - 60 * ns_per_px) <= ns_per_px  # dragged 60 px right: earlier time comes in
    sel = tl.ctx.area_selection
    assert (sel.t0, sel.t1) == (SPAN // 10, SPAN // 5)
