"""End to end on generated traces (timelineview.synthetic): file -> loader -> analysis vs ground truth.

The expected values come from the generator's ground truth, merged here with a plain sort-and-sweep.
"""

import numpy as np
import pytest

from timelineview.analysis.derived import derive
from timelineview.analysis.steps import find_steps
from timelineview.analysis.summary import stats_document
from timelineview.model import load

synthetic = pytest.importorskip("timelineview.synthetic", reason="synthetic generator not in this checkout")

# Step Trace args are JSON floats: epoch µs keep only ~0.25 µs once parsed.
ARG_TOLERANCE_NS = 250
LAYOUTS = ["msprof", "msprof_per_iteration", "mindspore_gen_c", "mindspore_gen_b"]


def covered_ns(starts, durs) -> int:
    """Plain-Python union length."""
    total, cur_s, cur_e = 0, None, None
    for s, d in sorted(zip(starts.tolist(), durs.tolist(), strict=True)):
        e = s + d
        if cur_e is None or s > cur_e:
            total += (cur_e - cur_s) if cur_e is not None else 0
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + ((cur_e - cur_s) if cur_e is not None else 0)


@pytest.fixture(scope="module", params=LAYOUTS)
def cluster(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    specs = synthetic.cluster_specs(8, seed=5, steps=5, slow_card=2, slow_data_card=5, with_duplicates=True)
    truths = synthetic.generate_cluster(out, specs, request.param,
                                        options=synthetic.WriteOptions(step_trace=True))
    stores = sorted(load(out), key=lambda s: s.rank)
    return request.param, truths, stores


def test_totals_match_ground_truth(cluster):
    _, truths, stores = cluster
    doc = stats_document(stores)
    categories = list(synthetic.CATEGORIES)
    for truth, card in zip(truths, doc["cards"], strict=True):
        for category, key in (("compute", "compute_us"), ("comm_op", "communication_us")):
            sel = truth.category == categories.index(category)
            want = covered_ns(truth.start_ns[sel], truth.dur_ns[sel])
            assert card[key] * 1000 == pytest.approx(want, abs=0.5), (card["card"], key)


def test_clock_offsets_match_ground_truth(cluster):
    _, truths, stores = cluster
    doc = stats_document(stores)
    planted = np.array([t.clock_offset_ns for t in truths]) - truths[0].clock_offset_ns
    got = np.array([c["clock_offset_us"] * 1000 for c in doc["cards"]])
    assert np.all(np.abs(got - planted) <= 1000)


def test_steps_match_ground_truth(cluster):
    _, truths, stores = cluster
    for truth, store in zip(truths, stores, strict=True):
        steps = find_steps(store, derive(store))
        if not truth.step_source:
            assert [s.source for s in steps] == ["whole_card"]
            continue
        assert [s.source for s in steps] == [truth.step_source] * len(truth.step_start_ns)
        assert [s.start for s in steps] == truth.step_start_ns.tolist()
        assert [s.end for s in steps] == truth.step_end_ns.tolist()
        assert np.abs(np.array([s.fp for s in steps]) - truth.step_fp_ns).max() <= ARG_TOLERANCE_NS
        assert np.abs(np.array([s.bp for s in steps]) - truth.step_bp_ns).max() <= ARG_TOLERANCE_NS


def test_slow_cards_flagged_on_the_right_metric(cluster):
    layout, _, stores = cluster
    flagged = sorted((f["card"], f["metric"]) for f in stats_document(stores)["slow_cards"])
    if layout == "mindspore_gen_b":  # no step markers: one whole-card step, the data wait is invisible
        assert flagged == [("rank 2", "compute_us")]
    else:
        assert flagged == [("rank 2", "compute_us"), ("rank 5", "step_interval_us")]
