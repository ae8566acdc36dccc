"""Clock offsets and slow cards (metrics.md §4)."""

import numpy as np

from timelineview.analysis.cluster.clock_offsets import clock_offsets
from timelineview.analysis.cluster.slow_cards import slow_cards
from timelineview.analysis.summary import stats_document

from .cluster_factory import make_cluster


def test_planted_clock_offsets_recovered_within_1us():
    planted = [0, 250_000, -1_300_000_000, 17_123_456, 999]
    stores = make_cluster(5, steps=12, offsets_ns=planted, jitter_ns=400, seed=3)
    got = clock_offsets(stores)
    assert np.all(np.abs(got - np.array(planted)) <= 1000), got


def test_offsets_are_relative_to_the_first_card_and_reported_in_us():
    stores = make_cluster(3, offsets_ns=[5_000_000, 5_250_000, 4_000_000])
    doc = stats_document(list(reversed(stores)))  # cards come back in rank order
    assert [c["card"] for c in doc["cards"]] == ["rank 0", "rank 1", "rank 2"]
    assert [c["clock_offset_us"] for c in doc["cards"]] == [0.0, 250.0, -1000.0]


def test_offsets_by_order_when_names_differ():
    names = [lambda k, c=c: f"card{c}_allreduce_{k}" for c in range(3)]
    stores = make_cluster(3, steps=5, offsets_ns=[0, 40_000, -70_000], comm_names=names)
    assert clock_offsets(stores).tolist() == [0, 40_000, -70_000]


def flagged(doc):
    return sorted((f["card"], f["metric"]) for f in doc["slow_cards"])


def test_planted_slow_compute_card_is_the_only_one_flagged():
    stores = make_cluster(5, compute_us=[1000, 1010, 1300, 995, 1005], interval_us=[50, 52, 49, 51, 50])
    doc = stats_document(stores)
    assert flagged(doc) == [("rank 2", "compute_us")]
    entry = doc["slow_cards"][0]
    assert set(entry) == {"card", "metric", "value", "median", "z", "steps_above", "steps", "threshold",
                          "z_required", "by_op_type"}  # by_op_type: the op types carrying its excess (§7.1)
    assert entry["value"] > entry["median"] * 1.05
    assert entry["value"] > entry["threshold"] and entry["steps_above"] * 2 >= entry["steps"] > 0


def test_planted_data_wait_card_is_flagged_on_step_interval():
    stores = make_cluster(4, interval_us=[50, 50, 400, 52])
    assert flagged(stats_document(stores)) == [("rank 2", "step_interval_us")]


def test_homogeneous_cluster_and_small_clusters_flag_nothing():
    stores = make_cluster(6, compute_us=[1000, 1003, 998, 1001, 1002, 999])
    assert stats_document(stores)["slow_cards"] == []
    assert slow_cards(stats_document(make_cluster(2, compute_us=[1000, 5000]))["cards"]) == []


def test_slow_card_rule_on_plain_documents():
    def card(name, v):
        return {"card": name, "steps": [{"span_us": 10.0, "compute_us": v, "pure_communication_us": 1.0,
                                         "step_interval_us": 0.0}]}
    # median 100.5, MAD 1.0, z_6 = 2.94 -> threshold 100.5 + max(5.025, 2.94 x 1.4826) = 105.525
    values = {"a": 100, "b": 100, "c": 101, "d": 99, "e": 104.9, "f": 120}
    docs = [card(k, v) for k, v in values.items()]
    assert [(f.card, f.metric, f.median) for f in slow_cards(docs)] == [("f", "compute_us", 100.5)]
    # with a wide spread the MAD term wins: z_5 (2.88) x 1.4826 x MAD
    values = {"a": 100, "b": 110, "c": 90, "d": 100, "e": 129}  # MAD 10 -> threshold 142.7
    assert slow_cards([card(k, v) for k, v in values.items()]) == []
