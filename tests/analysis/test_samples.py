"""Producer cross-check on the real sample traces in ../shared/samples (skipped when absent).

The producers computed their ``Overlap Analysis`` lanes from the same tasks, so our compute,
communication and pure-communication totals must agree within 0.5 %.
"""

import csv
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


def test_cann_per_iteration_time_between_files_is_uncaptured_not_free(cann):
    """The producer's Free (its Overlap Analysis lanes) is measured inside each iteration file; the
    time between the files is not captured (metrics.md §3), so the card's free_us is the producer's."""
    doc = card_document(cann)
    assert doc["free_us"] == pytest.approx(doc["file_overlap"]["free_us"], rel=0.005)
    busy = doc["compute_us"] + doc["communication_us"] - doc["overlapped_us"]
    assert doc["uncaptured_us"] > 100 * doc["free_us"]  # ten iterations out of a longer run
    assert doc["free_us"] + busy + doc["uncaptured_us"] == pytest.approx(doc["span_us"], abs=0.01)
    assert doc["idle_gap_free_us"] <= doc["free_us"] + 1e-6
    for step in doc["steps"]:
        step_busy = step["compute_us"] + step["communication_us"] - step["overlapped_us"]
        assert step["window_free_us"] + step_busy + step["uncaptured_us"] == \
            pytest.approx(step["span_us"], abs=0.01)


def _producer_step_table(rank: int) -> dict[int, dict[str, float]]:
    path = SAMPLES / "torch_npu" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv"
    with path.open(newline="") as f:
        return {int(row["Step"]): {k: float(v) for k, v in row.items() if k != "Step"} for row in csv.DictReader(f)}


def test_torch_npu_stage_and_free_match_step_trace_time_csv(torch_npu):
    """The producer's Stage is the busy part of the step, its Free (our free_us) the idle time inside
    that Stage and its Preparing our step interval (metrics.md §3); the step window's free time is larger."""
    doc = stats_document(torch_npu)
    for card in doc["cards"]:
        producer = _producer_step_table(card["rank"])
        for step in card["steps"]:
            want = producer[step["step"]]
            assert step["stage_us"] == pytest.approx(want["Stage"], rel=0.005)
            assert step["free_us"] == pytest.approx(want["Free"], rel=0.005)
            assert step["step_interval_us"] == pytest.approx(want["Preparing"], rel=0.005)
            assert step["window_free_us"] > 1.5 * want["Free"]  # the step window holds the step interval too


def test_gpu_sample_counts_the_operator_not_its_kernel():
    """The GPU sample holds one operator on its ``Ops`` lane and one CUDA kernel of another on a stream
    lane: the kernel is not an operator execution of its own (metrics.md §7)."""
    [store] = load(SAMPLES / "misc" / "gpu_timeline_display_0.json")
    by_name = card_document(store)["operators"]["by_name"]
    assert [(row["name"], row["count"]) for row in by_name] == [("Default/InitDataSetQueue-op0", 1)]
