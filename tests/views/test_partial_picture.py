"""A load shows its first part before it ends: cards on the timeline before
``loadFinished``, the span not loaded yet marked, a window chosen meanwhile kept, the final store
that of a plain load."""

from __future__ import annotations

import pytest

from tests.model.tracefile import dump_events, reference_slices, slice_set, x_event
from tests.views.main_window_fixture import open_and_wait
from timelineview.model.load import partial_load
from timelineview.model.load.chunked import decode_tasks

N_EVENTS = 90_000


@pytest.fixture
def trace(tmp_path):
    events = [x_event(f"op{i % 89}", 1 + i % 2, i % 4, 500.0 + i * 0.8, 0.4) for i in range(N_EVENTS)]
    return dump_events(events, tmp_path / "big.json"), events


def test_the_timeline_shows_the_decoded_part_until_the_load_ends(qtbot, window, trace, monkeypatch):
    path, events = trace
    monkeypatch.setattr(partial_load, "FIRST_PICTURE_S", 0.0)
    monkeypatch.setattr(partial_load, "MIN_INTERVAL_S", 0.0)
    monkeypatch.setattr(decode_tasks, "TASK_BYTES", 256 << 10)  # many tasks: pictures between them
    tl = window.timeline
    seen = []  # (slices shown, unloaded span, window) at each picture
    real = tl.show_partial

    def recording(cards, unloaded):
        real(cards, unloaded)
        seen.append((sum(len(c.store.slices) for c in tl.cards), tl.ctx.unloaded,
                     (tl.viewport.t0, tl.viewport.t1), slice_set(tl.cards[0].store)))
        if len(seen) == 1:  # the user zooms into the first picture while the rest loads
            vp = tl.viewport
            tl.set_range(vp.t0 + vp.span // 10, vp.t0 + vp.span // 5)

    monkeypatch.setattr(tl, "show_partial", recording)
    with qtbot.waitSignal(window.loadFinished, timeout=120_000):
        window.open_paths([path], remember=False)
    assert len(seen) >= 2
    for shown, unloaded, _, slices in seen:
        assert 0 < shown < N_EVENTS
        assert slices == reference_slices(events[:shown])  # exactly the file's first events
        assert unloaded is not None and unloaded.end > unloaded.start
        origin_ns = 500_000
        assert unloaded.start == origin_ns + (shown - 1) * 800 + 400  # where the loaded part ends
    chosen = seen[1][2]
    assert chosen == seen[-1][2] == (tl.viewport.t0, tl.viewport.t1)  # the zoom survived the pictures
    assert tl.ctx.unloaded is None  # the final store replaced the picture
    [card] = tl.cards
    assert slice_set(card.store) == reference_slices(events)
    assert card.steps is not None  # analysed, unlike the pictures


def test_a_load_without_partial_pictures_fits_the_window(qtbot, window, tmp_path):
    events = [x_event("a", 1, 1, float(i), 0.5) for i in range(200)]
    path = dump_events(events, tmp_path / "small.json")
    open_and_wait(qtbot, window, path)
    vp = window.timeline.viewport
    assert vp.t0 <= 0 and vp.t1 >= 199_500 and window.timeline.ctx.unloaded is None
