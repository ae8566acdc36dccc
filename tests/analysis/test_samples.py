"""Producer cross-check on the real sample traces in ../shared/samples (skipped when absent).

The producers computed their ``Overlap Analysis`` lanes from the same tasks, so our compute,
communication and pure-communication totals must agree within 0.5 %.
"""

import json
from pathlib import Path

import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.derived import derive
from timelineview.analysis.intervals import merge
from timelineview.analysis.steps import find_steps
from timelineview.analysis.summary import card_document, stats_document
from timelineview.analysis.window import window_metrics
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
pytestmark = [pytest.mark.samples,
              pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")]
CHECKED = ("compute_us", "communication_us", "pure_communication_us")


def assert_matches_producer(doc):
    file = doc["file_overlap"]
    assert file is not None
    for key in CHECKED:
        assert file[key] > 0
        assert doc[key] == pytest.approx(file[key], rel=0.005), key


@pytest.fixture(scope="module")
def torch_npu():
    return load(SAMPLES / "torch_npu")


@pytest.fixture(scope="module")
def cann():
    stores = load(SAMPLES / "cann_per_iteration")
    assert len(stores) == 1
    return stores[0]


def test_torch_npu_matches_overlap_analysis(torch_npu):
    assert [s.rank for s in torch_npu] == [0, 1]
    doc = stats_document(torch_npu)
    for card in doc["cards"]:
        assert_matches_producer(card)
        # one span, so Free is comparable too
        assert card["free_us"] == pytest.approx(card["file_overlap"]["free_us"], rel=0.005)
        assert [s["step"] for s in card["steps"]] == [50]  # ProfilerStep#50
    # both cards ran on one host: the collectives end within a few µs of each other
    assert abs(doc["cards"][1]["clock_offset_us"]) < 100
    json.dumps(doc)


def test_cann_per_iteration_matches_overlap_analysis(cann):
    doc = card_document(cann)
    assert_matches_producer(doc)
    steps = doc["steps"]
    assert [s["step"] for s in steps] == list(range(1, 11))
    # FP Start / BP End args: FP_BP Time 1 of the step trace is 4236.1 µs
    assert steps[0]["fp_bp_us"] == pytest.approx(4236.1, abs=0.01)
    assert steps[0]["dur_us"] == pytest.approx(47587.81, abs=0.01)


def test_cann_free_is_the_sum_over_iterations(cann):
    """The per-iteration export computed Free inside each iteration's busy span only; the time
    between exported iterations is free for us (whole card) but not for the producer."""
    d = derive(cann)
    busy = merge(d.compute, d.communication)
    total = 0.0
    for st in find_steps(cann, d):
        part = busy.clip(st.start, st.end)
        total += window_metrics(d, int(part.starts[0]), int(part.ends[-1]))["free_us"]
    file_free = card_document(cann, derived=d)["file_overlap"]["free_us"]
    assert total == pytest.approx(file_free, rel=0.005)


def test_mindspore_1x_counts_match_the_summary_file():
    stores = load(SAMPLES / "mindspore_1x" / "ascend_timeline_display_1.json")
    summary = json.loads((SAMPLES / "mindspore_1x" / "ascend_timeline_summary_1.json").read_text())
    c = classify(stores[0])
    assert c.mode == "mindspore_legacy"
    assert int(c.compute.sum()) == summary["op_exe_times"]
    assert len(c.hardware_lanes) == summary["num_of_streams"]
    doc = card_document(stores[0])
    assert doc["file_overlap"] is None and doc["communication_us"] == 0
