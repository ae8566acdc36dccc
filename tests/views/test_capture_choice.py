"""A folder holding two captures of the same cards (level0/ and level1/ of one job): the window asks which
to open and opens that one; headless, it opens the first and names the other."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.views.main_window_fixture import LOAD_TIMEOUT_MS, shown_main_window
from timelineview.synthetic import cluster_specs, generate_cluster


@pytest.fixture(scope="module")
def job(tmp_path_factory) -> Path:
    one = tmp_path_factory.mktemp("capture") / "ranks"
    generate_cluster(one, cluster_specs(2, seed=7, steps=2, tasks_per_step=20))
    job = tmp_path_factory.mktemp("job")
    for level in ("level0", "level1"):
        shutil.copytree(one, job / level)
    return job


def _read_from(window) -> set[Path]:
    """The capture folders the cards on screen were read from."""
    return {Path(p).parents[2] for c in window.timeline.cards for p in c.store.paths}


def test_the_window_asks_which_capture_and_opens_the_one_chosen(qtbot, settings, job):
    window = shown_main_window(qtbot, settings, interactive=True)
    window.open_paths([job], remember=False)
    choice = window.capture_choice
    assert choice is not None and choice.isVisible() and window.worker is None  # nothing loads before the answer
    assert [choice.list.item(i).text() for i in range(choice.list.count())] == ["level0", "level1"]
    choice.list.setCurrentRow(1)
    with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS):
        choice.accept()
    assert window.paths == [job / "level1"]
    assert _read_from(window) == {job / "level1"} and len(window.timeline.cards) == 2


def test_headless_the_first_capture_opens_and_the_other_is_named(qtbot, window, job):
    with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS):
        window.open_paths([job], remember=False)
    assert _read_from(window) == {job / "level0"}
    assert str(job / "level1") in window.last_message and "not opened" in window.last_message
