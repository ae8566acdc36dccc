"""Headers describe the data set now on screen: the Compare tab's header and the window's title follow a
comparison of traces, then a summary folder, then a card of the summary drilled into and its trace loaded,
then traces again."""

from __future__ import annotations

import pytest

from tests.views.cluster.test_summary_card_timeline import CARDS, _open, _summarise
from timelineview.views.analysis_tabs.compare.compare_view import HINT
from timelineview.views.analysis_tabs.compare.open_menu import open_comparison
from timelineview.views.shown_data import NOT_COMPARABLE

pytest.importorskip("distributed")

LOAD_TIMEOUT_MS = 120_000


def test_the_compare_header_and_the_title_follow_the_data_shown(qtbot, window, tmp_path_factory):
    base = tmp_path_factory.mktemp("headers")
    folder = _summarise(base / "job", base / "s")
    traces = base / "job"
    compare = window.cluster.analysis.widgets["compare"]
    with qtbot.waitSignal(compare.comparisonReady, timeout=LOAD_TIMEOUT_MS):
        window.open_paths([traces], remember=False)
        assert open_comparison(window, [traces])  # the run with itself
    assert compare.header.text().startswith(f"Base: the run on screen ({CARDS} card(s)) · New: job ({CARDS} card(s))")
    assert window.windowTitle() == "timelineview — job"

    tab = _open(qtbot, window, folder)  # the summary: its traces are not compared
    qtbot.waitUntil(lambda: compare.header.text() == NOT_COMPARABLE, timeout=LOAD_TIMEOUT_MS)
    assert window.windowTitle() == f"timelineview — s (summary of {CARDS} cards)"

    number = tab.summary.order[0]  # a card drilled into, and its trace loaded under the summary
    tab.drill([number])
    assert tab.overview.showing_pyramid
    tab.overview.want_trace()
    assert window.worker is not None
    qtbot.waitUntil(lambda: window.worker is None, timeout=LOAD_TIMEOUT_MS)
    assert not tab.overview.showing_pyramid and window.timeline.cards[0].number == number
    assert compare.header.text() == NOT_COMPARABLE  # not the comparison of the traces shown before
    assert window.windowTitle() == f"timelineview — s (summary of {CARDS} cards)"  # the summary is shown still
    assert open_comparison(window, [traces]) and not compare.jobs.busy  # nothing to compare it with
    assert compare.header.text() == NOT_COMPARABLE

    with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS):
        window.open_paths([traces], remember=False)  # traces again: comparable, nothing compared yet
    assert compare.header.text() == HINT and window.windowTitle() == "timelineview — job"
