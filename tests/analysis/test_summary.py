"""The stats documents of metrics.md §5, the producer-lane totals and the text form."""

import json
import re

from timelineview.analysis.file_overlap import file_overlap
from timelineview.analysis.summary import card_document, format_text, stats_document
from timelineview.analysis.vocabulary import label

from .cluster.cluster_factory import make_cluster
from .factory import COMM, HW, Layout, Sl, build_store

CARD_KEYS = [
    "card", "rank", "path", "events", "start_ns", "lanes", "span_us", "compute_us", "communication_us",
    "overlapped_us", "pure_communication_us", "free_us", "uncaptured_us", "overlap_ratio", "idle_gap_count",
    "idle_gap_total_us", "idle_gap_max_us", "idle_gap_communication_us", "idle_gap_free_us",
    "clock_offset_us", "steps", "file_overlap", "load", "communication", "operators", "kernels", "memory",
]
STEP_KEYS = [
    "step", "start_ns", "dur_us", "span_us", "compute_us", "communication_us", "overlapped_us",
    "pure_communication_us", "window_free_us", "uncaptured_us", "overlap_ratio", "idle_gap_count",
    "idle_gap_total_us", "idle_gap_max_us", "idle_gap_communication_us", "idle_gap_free_us", "stage_us", "free_us",
    "step_interval_us", "fp_bp_us", "tail_us",
]
# a trace without step markers: its one step is the "whole trace" window (metrics.md §5)
WHOLE_TRACE_STEP_KEYS = [STEP_KEYS[0], "window", *STEP_KEYS[1:]]
OA = "Overlap Analysis"


def card_with_producer_lanes():
    return build_store([
        Sl(HW, "MatMul", 0, 4000, "AI_CORE"),
        Sl(HW, "Add", 6000, 2000, "AI_CORE"),
        Sl(COMM, "hcom_allReduce_1", 3000, 4000),
        Sl(f"{OA}/Computing", "Computing", 0, 4000),
        Sl(f"{OA}/Computing", "Computing", 6000, 2000),
        Sl(f"{OA}/Computing", "Computing", 6000, 2000),  # duplicate from merged files: counted once
        Sl(f"{OA}/Communication", "Communication", 3000, 4000),
        Sl(f"{OA}/Communication(Not Overlapped)", "Communication(Not Overlapped)", 4000, 2000),
    ], Layout(extra_lanes=[f"{OA}/Free", "HCCL/Plane 0"]), paths=("a/x_1.json", "a/x_2.json"))


def test_card_document_shape():
    store = card_with_producer_lanes()
    doc = card_document(store)
    assert list(doc) == CARD_KEYS
    assert [list(s) for s in doc["steps"]] == [WHOLE_TRACE_STEP_KEYS]
    assert doc["steps"][0]["window"] == "whole trace" and doc["steps"][0]["fp_bp_us"] is None
    assert doc["events"] == 8 and doc["lanes"] == 5  # lanes holding slices only
    assert doc["path"] == "a" and doc["rank"] == 0 and doc["clock_offset_us"] == 0.0
    assert doc["compute_us"] == 6.0 and doc["pure_communication_us"] == 2.0 and doc["free_us"] == 0.0
    assert doc["file_overlap"] == {"compute_us": 6.0, "communication_us": 4.0, "pure_communication_us": 2.0,
                                   "free_us": 0.0}
    assert doc["load"]["dropped_events"] == 0 and doc["load"]["truncated"] is False
    assert doc["memory"] is None  # no memory records beside the card
    json.dumps(doc)  # plain JSON types only


def test_file_overlap_absent_is_none():
    assert file_overlap(build_store([Sl(HW, "a", 0, 5, "AI_CORE")])) is None


def test_min_gap_changes_idle_gaps():
    store = build_store([Sl(HW, "a", 0, 1000, "AI_CORE"), Sl(HW, "b", 1500, 1000, "AI_CORE")])
    assert card_document(store)["idle_gap_count"] == 0
    assert card_document(store, min_gap_ns=500)["idle_gap_count"] == 1


def test_stats_document_and_text():
    stores = make_cluster(3, compute_us=[1000, 1000, 1500], offsets_ns=[0, 2000, 0])
    doc = stats_document(stores, min_gap_ns=1000)
    assert list(doc) == ["schema", "cards", "slow_cards", "links", "slow_links", "operators_across_cards",
                         "pipeline_stages", "memory_imbalance", "findings", "critical_path", "what_if"]
    json.dumps(doc)
    text = format_text(doc)
    assert text.index("Cards") < text.index("Steps of rank 0") < text.index("Slow cards")
    # the text tables head each quantity with the vocabulary's label (and unit), never its JSON key
    assert "Compute (µs)" in text and "rank 2" in text.split("Slow cards")[1]
    assert "Compute" in text.split("Slow cards")[1] and "compute_us" not in text
    clock = next(line for line in text.splitlines() if line.startswith("Clock offset (µs)"))
    assert clock.split()[3:] == ["0.000", "2.000", "0.000"]


def test_text_with_fewer_than_three_cards():
    doc = stats_document([card_with_producer_lanes()])
    text = format_text(doc)
    assert "needs at least 3 cards" in text and "file: Compute (µs)" in text


def test_empty_stats():
    assert stats_document([]) == {"schema": "timelineview.stats/3", "cards": [], "slow_cards": [], "links": [],
                                  "slow_links": [],
                                  "operators_across_cards": [], "pipeline_stages": [], "memory_imbalance": [],
                                  "findings": [],
                                  "critical_path": [], "what_if": []}


def test_text_says_which_free_each_column_is():
    doc = stats_document([card_with_producer_lanes()])
    text = format_text(doc)
    steps_header = next(line for line in text.splitlines() if line.startswith("Step "))
    # each column is headed by its quantity's label ("Free" is only the producer's Free; the step window's free
    # time has its own name; a step's length is the "Step time" of diff and the window), and the note under the
    # table says which Free each is
    assert re.split(r"\s{2,}", steps_header.strip()) == ["Step", *(label(k) for k in (
        "step_time_us", "compute_us", "communication_us", "overlapped_us", "pure_communication_us", "stage_us",
        "free_us", "window_free_us", "idle_gap_count", "idle_gap_total_us", "step_interval_us", "fp_bp_us", "tail_us"))]
    assert label("free_us") == "Free" and label("window_free_us") == "Window free"
    assert "Free: time inside the Stage" in text and "(the producer's Free)" in text
    assert "Stage: first task start to last task end inside the step (the producer's Stage)" in text
    assert "Window free: time in the whole window where neither compute nor communication runs, the step interval " \
           "included." in text
