"""The Details dock on a summary folder: it describes the timeline's cards, so it shows only with the timeline
(a card's trace loaded), and hides on the analysis tabs, the heat map, Compare and a card's pyramid — where it
showed another card's figures or an empty 'click a slice' over a third of the window."""

from __future__ import annotations

import pytest

from .test_summary_tabs import TIMEOUT_MS, _open


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))


def _number(session, card: str) -> int:
    return next(i for i, c in enumerate(session.cards) if c.card == card)


def _tab(tabs, title: str) -> int:
    return next(i for i in range(tabs.count()) if tabs.tabText(i) == title)


def test_the_dock_shows_only_with_the_timeline_it_describes(qtbot, window, summaries):
    assert _open(qtbot, window, summaries.whole)
    tab, dock = window.cluster, window.dock
    tabs = tab.tabs
    assert not window.timeline.cards  # a fresh summary: nothing on the timeline
    for title in ("Heat map", "Compare", "Diagnosis", "Operators", "Communication", "Cluster comparison"):
        tabs.setCurrentIndex(_tab(tabs, title))
        assert not dock.isVisible(), title
    # rank 3's trace loaded from its pyramid: the Timeline tab shows it, and the dock with it
    rank3, rank10 = _number(tab.summary, "rank 3"), _number(tab.summary, "rank 10")
    tab.drill([rank3])
    assert tab.overview.showing_pyramid and not dock.isVisible()
    tab.overview.want_trace()
    qtbot.waitUntil(lambda: window.worker is None and not tab.overview.showing_pyramid, timeout=TIMEOUT_MS)
    assert tabs.currentIndex() == 0 and dock.isVisible()
    assert [c.store.card for c in window.timeline.cards] == ["rank 3"]
    metrics = window.details.area.metrics  # the dock speaks of the card on screen
    assert [metrics.horizontalHeaderItem(i).text() for i in range(metrics.columnCount())] == ["rank 3"]
    # rank 10 from its pyramid: the timeline still holds rank 3, so the dock goes (here and on every other tab)
    tab.drill([rank10])
    assert tab.overview.showing_pyramid and not dock.isVisible()
    for title in ("Diagnosis", "Communication", "Operators", "Heat map", "Compare"):
        tabs.setCurrentIndex(_tab(tabs, title))
        assert not dock.isVisible(), title
    # back to rank 3's timeline: the dock is back
    tab.drill([rank3])
    assert not tab.overview.showing_pyramid and tabs.currentIndex() == 0 and dock.isVisible()
    # a dock the user closed stays closed when the timeline comes back
    dock.hide()
    tabs.setCurrentIndex(_tab(tabs, "Diagnosis"))
    tabs.setCurrentIndex(0)
    assert not dock.isVisible()
