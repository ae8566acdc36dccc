"""A generated card written both ways (the ``msprof`` JSON layout and the database layout) gives the same
analysis: every metric of stats, per step, per collective and per link, and the ground truth's."""

from __future__ import annotations

import pytest

from timelineview.analysis.summary import stats_document
from timelineview.model import load
from timelineview.synthetic import CardSpec
from timelineview.synthetic.database import write_database
from timelineview.synthetic.intervals import union

METRICS = ("span_us", "compute_us", "communication_us", "overlapped_us", "pure_communication_us", "free_us",
           "idle_gap_count", "idle_gap_total_us", "idle_gap_communication_us", "idle_gap_free_us")
STEP_METRICS = (*METRICS, "stage_us", "window_free_us", "step_interval_us", "fp_bp_us", "tail_us")
OP_METRICS = ("elapse_us", "transit_us", "wait_us", "synchronization_us", "idle_us")  # the producer's
ALL_PLANES = ("transit_us", "wait_us", "synchronization_us", "idle_us")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from timelineview.synthetic import generate_card
    folder = tmp_path_factory.mktemp("gen")
    truth = generate_card(folder / "json" / "trace_view.json", CardSpec(steps=3, seed=7), "msprof")
    [from_json] = load(folder / "json" / "trace_view.json")
    write_database(from_json, folder / "db" / "ascend_pytorch_profiler_0.db")
    [from_db] = load(folder / "db")
    return truth, stats_document([from_json])["cards"][0], stats_document([from_db])["cards"][0]


def test_card_and_step_metrics_are_the_same(both):
    _, j, d = both
    assert d["load"]["warnings"] == []
    for key in METRICS:
        assert d[key] == pytest.approx(j[key]), key
    assert [s["step"] for s in d["steps"]] == [s["step"] for s in j["steps"]]
    for sj, sd in zip(j["steps"], d["steps"], strict=True):
        for key in STEP_METRICS:
            assert sd[key] == pytest.approx(sj[key]), key


def test_collectives_and_links_are_the_same(both):
    _, j, d = both
    cj, cd = j["communication"], d["communication"]
    assert [op["name"] for op in cd["comm_ops"]] == [op["name"] for op in cj["comm_ops"]]
    for oj, od in zip(cj["comm_ops"], cd["comm_ops"], strict=True):
        for key in OP_METRICS:
            assert od[key] == pytest.approx(oj[key]), key
        for key in ALL_PLANES:
            assert od["all_planes"][key] == pytest.approx(oj["all_planes"][key]), key
        assert od["bandwidth"] == oj["bandwidth"]
    assert cd["links"] == cj["links"]
    assert cd["local_links"] == cj["local_links"]


def _covered_us(truth, category: str) -> float:
    rows = truth.mask(category)
    starts, ends = union(truth.start_ns[rows], truth.start_ns[rows] + truth.dur_ns[rows])
    return float((ends - starts).sum()) / 1000


def test_the_database_card_meets_the_ground_truth(both):
    truth, _, d = both
    assert d["compute_us"] == pytest.approx(_covered_us(truth, "compute"))
    assert d["communication_us"] == pytest.approx(_covered_us(truth, "comm_op"))
