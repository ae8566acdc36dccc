"""A jump on a summarised card marks its target span as the card's area selection: on its pyramid (the marked
pixels, a click and Escape: ``tests/views/timeline/test_coverage_lanes.py``), and on its trace once that is
loaded — as a jump on a loaded trace marks it."""

from __future__ import annotations

import pytest

from tests.views.cluster.test_summary_card_timeline import _open, summary  # noqa: F401

pytest.importorskip("distributed")


def test_a_jump_marks_its_span_on_the_pyramid_then_on_the_trace(qtbot, window, summary):  # noqa: F811
    from timelineview.views.analysis_tabs.jump import jump_to
    from timelineview.viewstate.jump_target import JumpTarget

    tab = _open(qtbot, window, summary)
    card = tab.summary.cards[2]
    t0 = card.manifest["pyramid"]["t0"]
    step = card.manifest["steps"][1]
    a, b = step["start"] + 1_000_000, step["end"] - 1_000_000  # a finding's evidence inside a step
    assert jump_to(tab, JumpTarget(2, a, b))
    ctx = window.timeline.ctx
    sel = ctx.area_selection
    assert tab.overview.showing_pyramid and ctx.origin == t0  # relative 0: the card's first slice
    assert (sel.t0, sel.t1, sel.cards) == (a - t0, b - t0, [2])
    assert [r.card for r in ctx.layout.rows if sel.y0 <= r.y < sel.y1] == [2] * len(ctx.layout.rows)
    # another card's pyramid: not marked
    tab.drill([1])
    assert ctx.area_selection is None
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
