"""A lane filter belongs to the run it was chosen on: the next run opens with every lane."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.main_window_fixture import open_and_wait
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory
from timelineview.viewstate.timeline.lane_filter import ALL
from timelineview.viewstate.timeline.memory_rows import MEMORY


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    first = tmp_path_factory.mktemp("first") / "ranks"
    generate_cluster(first, cluster_specs(2, seed=1, steps=2, tasks_per_step=40))
    second = tmp_path_factory.mktemp("second") / "ranks"
    truths = generate_cluster(second, cluster_specs(2, seed=2, steps=2, tasks_per_step=40))
    write_cluster_memory(truths, MemorySpec(blocks_per_step=10, weight_blocks=5))
    return first, second


def test_the_next_run_opens_with_every_lane_and_its_memory_lanes(qtbot, window, two_runs):
    first, second = two_runs
    open_and_wait(qtbot, window, first)
    window.cluster.bar.set_lane_filter("compute")  # as the user picks it on the strip
    assert window.timeline.lane_filter == "compute"
    open_and_wait(qtbot, window, second)
    assert window.timeline.lane_filter == ALL and window.cluster.bar.lane_filter() == ALL
    memory_rows = {r.card for r in window.timeline.ctx.layout.rows if r.kind == MEMORY}
    assert memory_rows == {c.number for c in window.timeline.cards}  # each card's memory curves are on screen
