"""Opening a cluster finds its cards once and analyses each card once."""

from __future__ import annotations

from pathlib import Path

import pytest

import timelineview.analysis.session  # noqa: F401  (loaded before counting: they bind the functions)
import timelineview.model.load.loader  # noqa: F401
import timelineview.views.jobs.load_job  # noqa: F401
from tests.analysis.call_count import count_calls
from tests.views.generated import generated_cluster
from tests.views.main_window_fixture import open_and_wait
from timelineview.analysis.classify import classify
from timelineview.model.discovery import find_cards

CARDS = 3


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "once", CARDS, seed=4, steps=2, tasks_per_step=40)


@pytest.fixture
def opened(qtbot, window, cluster_dir, tmp_path, monkeypatch):
    """Opens the cluster in the window; returns the calls of classify (by card) and find_cards (by path)."""
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    classified = count_calls(monkeypatch, classify, key=lambda store: store.card)
    found = count_calls(monkeypatch, find_cards, key=lambda path: Path(path))
    open_and_wait(qtbot, window, cluster_dir)
    return classified, found


def test_each_card_is_classified_once(opened, window):
    classified, _ = opened
    assert dict(classified) == {f"rank {r}": 1 for r in range(CARDS)}
    rows = window.cluster.view.current_rows()  # and the views show the results
    assert len(rows) == CARDS and all(r["bar"] is not None for r in rows)
    assert all(c.derived_lanes and c.steps is not None for c in window.timeline.cards)


def test_the_folder_is_searched_for_cards_once(opened, window, cluster_dir):
    _, found = opened
    assert dict(found) == {cluster_dir: 1}
    assert [c.label for c in window.cluster.view.progress_list.cards] == [f"rank {r}" for r in range(CARDS)]
    assert [c.title for c in window.timeline.cards] == [f"rank {r}" for r in range(CARDS)]
