"""Loading runs off the GUI thread: progress, Cancel, a responsive window, superseded loads."""

from __future__ import annotations

import pytest
from PySide6 import QtCore

import timelineview.model as model
from tests.views.factory import ascend_card

HANG_S = 120  # only stops a hung test
HANG_MS = HANG_S * 1000


@pytest.fixture
def slow_load(monkeypatch):
    """A loader whose first load reports progress and then runs until cancelled; later loads return one
    small card each at once."""
    calls = []

    def fake_load(sources, progress=None, cancel=None, **_options):  # card_progress, cache
        calls.append(sources)
        if len(calls) == 1:
            for k in range(HANG_S * 50):  # reports progress (throttled by the window) until cancelled
                if cancel.wait(0.02):
                    raise model.LoadCancelled()
                if progress:
                    progress((k + 1) * 1_000_000_000, 10**6 * 1_000_000_000)  # beyond 2**31: must survive signals
            raise AssertionError("never cancelled")
        return [ascend_card(f"rank {len(calls) - 1}", len(calls) - 1, steps=1, ops_per_step=10)]

    monkeypatch.setattr(model, "load_cards", fake_load)
    return calls


def test_progress_cancel_and_responsive_window(qtbot, window, slow_load, tmp_path):
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    window.open_paths([tmp_path / "big.json"])
    qtbot.waitUntil(lambda: window.progress.value() > 0, timeout=HANG_MS)
    assert window.progress.isVisible() and window.cancel_button.isVisible()
    # the GUI thread keeps running its timers while the load runs (it runs until cancelled)
    before = len(ticks)
    qtbot.waitUntil(lambda: len(ticks) - before >= 3, timeout=HANG_MS)
    assert window.worker is not None
    with qtbot.waitSignal(window.loadFinished, timeout=HANG_MS) as blocker:
        qtbot.mouseClick(window.cancel_button, QtCore.Qt.MouseButton.LeftButton)
    assert blocker.args == [False]
    assert not window.progress.isVisible() and not window.timeline.cards
    timer.stop()


def test_a_new_open_supersedes_the_running_load(qtbot, window, slow_load, tmp_path):
    window.open_paths([tmp_path / "first.json"])
    qtbot.waitUntil(lambda: len(slow_load) == 1, timeout=HANG_MS)
    with qtbot.waitSignal(window.loadFinished, timeout=HANG_MS):
        window.open_paths([tmp_path / "second.json"])
    assert [c.title for c in window.timeline.cards] == ["rank 1"]  # the first one never shows


def test_hover_reports_the_time_and_the_slice(qtbot, timeline, cards):
    texts = []
    timeline.cursorMoved.connect(texts.append)
    timeline.show_all()
    pos = QtCore.QPointF(600, 300)
    timeline.on_hover(pos)
    assert texts[-1].startswith("t = ")
    assert timeline.ctx.cursor_t == timeline.viewport.t_of(600)
    timeline.on_hover(None)
    assert texts[-1] == "" and timeline.ctx.cursor_t is None
