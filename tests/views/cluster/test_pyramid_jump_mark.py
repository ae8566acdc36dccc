"""A jump on a summarised card marks its target span: on the card's pyramid (the timeline's area colours across
the card's rows, until a click or Escape), and as the card's area selection once its trace is loaded — as a jump
on a loaded trace marks it."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui

from tests.views.cluster.test_summary_card_timeline import SPAN, _open, pyramid_view, summary  # noqa: F401

pytest.importorskip("distributed")


def _x_of(view, t_rel: float) -> float:
    plot, v = view.plot_rect(), view.viewport
    return plot.left() + (t_rel - v.t0) * plot.width() / (v.t1 - v.t0)


def _pixel(image: QtGui.QImage, x: float, y: int) -> tuple[int, int, int]:
    return QtGui.QColor(image.pixel(int(x), y)).getRgb()[:3]


def _over(base: QtGui.QColor, fill: QtGui.QColor) -> tuple[int, int, int]:
    """``fill`` (with its alpha) painted over the opaque ``base``: the reference blend, by hand."""
    a = fill.alpha() / 255
    return tuple(round(fill_c * a + base_c * (1 - a)) for fill_c, base_c in
                 zip(fill.getRgb()[:3], base.getRgb()[:3], strict=True))


def test_the_target_span_is_marked_across_the_rows_until_a_click(qtbot, pyramid_view):  # noqa: F811
    view = pyramid_view
    theme = view.theme
    # row 2 is empty over [0, 3/4 SPAN): the mark over it is the area fill over the background
    view.set_target((SPAN // 10, SPAN // 5))
    image = view.grab().toImage()
    y = view.row_y(2) + 9
    inside, outside = _x_of(view, 0.15 * SPAN), _x_of(view, 0.3 * SPAN)
    got = _pixel(image, inside, y)
    assert all(abs(a - b) <= 2 for a, b in zip(got, _over(theme.background, theme.area_fill), strict=True))
    assert _pixel(image, outside, y) == theme.background.getRgb()[:3]
    # its edges: the area edge colour at the span's start and end, on every row
    for t in (SPAN // 10, SPAN // 5):
        x = round(_x_of(view, t))
        edge = [_pixel(image, xx, view.row_y(r) + 9) for r in range(3) for xx in (x - 1, x, x + 1)]
        assert any(max(abs(a - b) for a, b in zip(px, theme.area_edge.getRgb()[:3], strict=True)) < 60 for px in edge)
    r = view.target_rect()
    assert r.top() == view.row_y(0) and r.bottom() == view.row_y(3)
    # a click (no drag) lets go of it, as on the timeline; Escape likewise
    qtbot.mouseClick(view, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(int(outside), y))
    assert view.target is None
    assert _pixel(view.grab().toImage(), inside, y) == theme.background.getRgb()[:3]
    view.set_target((SPAN // 10, SPAN // 5))
    qtbot.keyClick(view, QtCore.Qt.Key.Key_Escape)
    assert view.target is None
    # a drag pans and keeps the mark
    view.set_target((SPAN // 10, SPAN // 5))
    qtbot.mousePress(view, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(500, y))
    qtbot.mouseMove(view, QtCore.QPoint(560, y))
    qtbot.mouseRelease(view, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(560, y))
    assert view.target == (SPAN // 10, SPAN // 5)


def test_a_jump_marks_its_span_on_the_pyramid_then_on_the_trace(qtbot, window, summary):  # noqa: F811
    from timelineview.views.analysis_tabs.jump import jump_to
    from timelineview.viewstate.jump_target import JumpTarget

    tab = _open(qtbot, window, summary)
    card = tab.summary.cards[2]
    t0 = card.manifest["pyramid"]["t0"]
    step = card.manifest["steps"][1]
    a, b = step["start"] + 1_000_000, step["end"] - 1_000_000  # a finding's evidence inside a step
    assert jump_to(tab, JumpTarget(2, a, b))
    view = tab.overview.widget
    assert tab.overview.showing_pyramid and view.target == (a - t0, b - t0)
    r = view.target_rect()
    assert abs(r.left() - _x_of(view, a - t0)) < 1 and abs(r.right() - _x_of(view, b - t0)) < 1
    # another card's pyramid: not marked
    tab.drill([1])
    assert view.target is None
    # 10 µs: finer than the pyramid, so the trace loads; the span is the card's area selection there
    start = step["start"] + (step["end"] - step["start"]) // 2
    assert jump_to(tab, JumpTarget(2, start, start + 10_000))
    qtbot.waitUntil(lambda: not tab.overview.showing_pyramid and window.worker is None, timeout=60_000)
    shown, ctx = window.timeline.cards[0], window.timeline.ctx
    sel = ctx.area_selection
    assert shown.number == 2 and sel is not None
    assert (sel.t0 + ctx.card_shift(shown), sel.t1 + ctx.card_shift(shown)) == (start, start + 10_000)
    # the trace loaded: a jump on the card selects its span on the timeline
    assert jump_to(tab, JumpTarget(2, a, b))
    sel = ctx.area_selection
    assert (sel.t0 + ctx.card_shift(shown), sel.t1 + ctx.card_shift(shown)) == (a, b)
