"""The Critical path tab: a cluster's what-ifs and each step's path as the session computed them, and
clicking a collective on the path shows its slices in the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.generated import generated_cluster
from tests.views.main_window_fixture import open_and_wait
from timelineview.viewstate.jump_target import JumpTarget

SLOW_CARD = 2


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "critical", 4, seed=6, steps=3, tasks_per_step=60,
                             slow_card=SLOW_CARD, slow_factor=1.6)


@pytest.fixture
def opened(qtbot, window, cluster_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    open_and_wait(qtbot, window, cluster_dir)
    view = window.cluster.analysis.widgets["critical_path"]
    qtbot.waitUntil(lambda: bool(view.steps), timeout=10_000)
    return window


def test_the_tab_shows_the_sessions_what_ifs_and_paths(opened):
    view = opened.cluster.analysis.widgets["critical_path"]
    doc = opened.cluster.shown.session.critical_path.document()
    assert view.changes.topLevelItemCount() == len(doc["what_if"]) > 0
    slow = next(w for w in doc["what_if"] if w["kind"] == "card_at_median")
    assert slow["target"] == f"rank {SLOW_CARD}" and slow["gain_us"] > 0
    assert view.step_choice.count() == len(doc["critical_path"])
    assert view.path.topLevelItemCount() == len(doc["critical_path"][0]["segments"])
    assert f"rank {SLOW_CARD}" in view.shares.text()
    on_path = sum(f"rank {SLOW_CARD}" in s["cards"] for s in doc["critical_path"])
    assert f"rank {SLOW_CARD} in {on_path} of {len(doc['critical_path'])} steps" in view.summary.text()


def test_choosing_a_what_if_shows_each_steps_prediction(opened):
    view = opened.cluster.analysis.widgets["critical_path"]
    result = opened.cluster.shown.session.critical_path
    w = next(i for i, x in enumerate(result.what_if) if x.change.kind == "card_at_median")
    view.changes.setCurrentItem(view.changes.topLevelItem(w))
    for k, step in enumerate(view.steps):
        predicted_ms = result.what_if[w].predicted_step_ns[k] / 1e6
        assert f"{predicted_ms:.3f} ms if rank {SLOW_CARD} computes" in view.step_choice.itemText(k)
        assert f"({step['step_us'] / 1000:.3f} ms;" in view.step_choice.itemText(k)


def test_clicking_a_collective_on_the_path_shows_it(opened, qtbot):
    view = opened.cluster.analysis.widgets["critical_path"]
    segments = view.steps[0]["segments"]
    j = next(i for i, s in enumerate(segments) if s["kind"] == "collective")
    with qtbot.waitSignal(view.jumpRequested) as sent:
        view.open_segment(j)
    target: JumpTarget = sent.args[0]
    card = opened.timeline.ctx.card_by_number(target.card)
    assert card is not None and card.store.card == segments[j]["card"]
    sel = opened.timeline.ctx.selection
    s = card.store.slices
    assert sel is not None and card.store.strings[s.name[sel.index]] == segments[j]["name"]
    assert target.start_ns <= s.end[sel.index] and s.start[sel.index] < target.end_ns
