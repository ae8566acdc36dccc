"""The cluster comparison table, without Qt: rows agree with the stats document."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from timelineview.analysis.cluster.comparison import (
    BAR_PARTS,
    COLUMNS,
    MEMORY_COLUMNS,
    PIPELINE_COLUMNS,
    group_label,
    group_rows,
    sort_rows,
    to_csv,
)
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summary import stats_document
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

SLOW_CARD, SLOW_DATA_CARD = 3, 5


def _cluster(tmp_path_factory, pipeline: bool):
    out = tmp_path_factory.mktemp("cmp") / "cluster"
    generate_cluster(out, cluster_specs(8, seed=1, steps=3, tasks_per_step=60, slow_card=SLOW_CARD,
                                        slow_data_card=SLOW_DATA_CARD, pipeline=pipeline))
    stores = load(out)
    return stores, AnalysisSession(stores).comparison  # stats_document below: a session of its own


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    return _cluster(tmp_path_factory, pipeline=False)


@pytest.fixture(scope="module")
def pipeline_cluster(tmp_path_factory):
    return _cluster(tmp_path_factory, pipeline=True)


def test_mean_rows_are_the_stats_document_means(cluster):
    stores, cmp = cluster
    doc = stats_document(stores)
    rows = cmp.rows()
    assert [r["card"] for r in rows] == [c["card"] for c in doc["cards"]]
    for row, card in zip(rows, doc["cards"]):
        steps = card["steps"]
        assert row["steps"] == len(steps)
        assert row["step_time_us"] == pytest.approx(np.mean([s["span_us"] for s in steps]))
        for key in ("step_interval_us", "fp_bp_us", "tail_us", "compute_us", "communication_us",
                    "pure_communication_us", "free_us", "idle_gap_count", "idle_gap_total_us"):
            assert row[key] == pytest.approx(np.mean([s[key] for s in steps])), key
        ratio = sum(s["overlapped_us"] for s in steps) / sum(s["communication_us"] for s in steps)
        assert row["overlap_ratio"] == pytest.approx(ratio)
        assert row["clock_offset_us"] == pytest.approx(card["clock_offset_us"])
        # the bar splits the step: interval, then compute / pure communication / free after fp
        assert sum(row["bar"].values()) == pytest.approx(row["step_time_us"])
        assert row["bar"]["step_interval_us"] == pytest.approx(row["step_interval_us"])
    # the generated cards carry the NPU MEM counters, so their memory peaks are columns too (metrics.md §11)
    assert cmp.memory and not cmp.pipeline and cmp.columns == COLUMNS + MEMORY_COLUMNS


def test_slow_cards_are_flagged_on_their_metric(cluster):
    stores, cmp = cluster
    doc = stats_document(stores)
    flags = {(f["card"], f["metric"]) for f in cmp.slow()}
    assert flags == {(f["card"], f["metric"]) for f in doc["slow_cards"]}
    assert flags == {(f"rank {SLOW_CARD}", "compute_us"), (f"rank {SLOW_DATA_CARD}", "step_interval_us")}
    rows = {r["card"]: r for r in cmp.rows()}
    assert [f["metric"] for f in rows[f"rank {SLOW_CARD}"]["slow"]] == ["compute_us"]
    assert [f["metric"] for f in rows[f"rank {SLOW_DATA_CARD}"]["slow"]] == ["step_interval_us"]
    # drill-down goes to the step where the flagged metric is largest
    slow = rows[f"rank {SLOW_CARD}"]
    steps = next(c for c in cmp.cards if c.card == slow["card"]).steps
    worst = max(steps, key=lambda s: s["compute_us"])
    assert (slow["drill_step"], slow["start_ns"], slow["end_ns"]) == (worst["step"], worst["start_ns"], worst["end_ns"])


def test_one_step_rows_and_flags(cluster):
    stores, cmp = cluster
    doc = stats_document(stores)
    step = cmp.step_numbers()[1]
    rows = cmp.rows(step)
    for row, card in zip(rows, doc["cards"]):
        s = next(s for s in card["steps"] if s["step"] == step)
        assert row["step"] == step and row["steps"] == 1 and row["drill_step"] == step
        assert row["step_time_us"] == pytest.approx(s["span_us"])
        assert row["compute_us"] == pytest.approx(s["compute_us"])
        assert row["overlap_ratio"] == pytest.approx(s["overlap_ratio"])
    slow = {(f["card"], f["metric"]) for f in cmp.slow(step)}
    assert (f"rank {SLOW_CARD}", "compute_us") in slow
    assert (f"rank {SLOW_DATA_CARD}", "step_interval_us") in slow
    assert all(r["error"] == "no step 999 on this card" for r in cmp.rows(999))


def test_sorting_and_csv(cluster):
    _, cmp = cluster
    rows = cmp.rows()
    by_interval = sort_rows(rows, "step_interval_us", descending=True)
    assert by_interval[0]["card"] == f"rank {SLOW_DATA_CARD}"
    values = [r["step_interval_us"] for r in by_interval]
    assert values == sorted(values, reverse=True)
    assert [r["card"] for r in sort_rows(by_interval, "card")] == [r["card"] for r in rows]
    with_gap = [dict(rows[0], compute_us=None), *rows[1:]]
    assert sort_rows(with_gap, "compute_us")[-1]["card"] == rows[0]["card"]  # missing values last
    table = list(csv.DictReader(io.StringIO(to_csv(by_interval, cmp.columns))))
    assert [t["card"] for t in table] == [r["card"] for r in by_interval]
    assert float(table[0]["step_interval_us"]) == pytest.approx(by_interval[0]["step_interval_us"], abs=1e-3)
    assert table[0]["slow_metrics"] == "step_interval_us" and table[0]["step"] == "mean"


def test_pipeline_columns_stage_time_and_receive_only(pipeline_cluster):
    stores, cmp = pipeline_cluster
    assert cmp.pipeline and cmp.memory and cmp.columns == COLUMNS + PIPELINE_COLUMNS + MEMORY_COLUMNS
    for row in cmp.rows():
        assert row["pipeline_stage_us"] == pytest.approx(row["step_time_us"] - row["receive_only_us"])
        assert row["other_pure_communication_us"] == pytest.approx(
            row["pure_communication_us"] - row["receive_only_us"])
        assert row["receive_only_us"] >= 0
    receive = {r["card"]: r["receive_only_us"] for r in cmp.rows()}
    assert max(receive.values()) > 0
    # Only compute and step interval flag a card (metrics.md §4). With pipeline parallelism every card
    # waits in its receives for the slow data card, so step intervals are alike and that card shows in
    # its stage time instead; the slow-card rule does not judge stage times.
    flags = {(f["card"], f["metric"]) for f in cmp.slow()}
    assert flags == {(f"rank {SLOW_CARD}", "compute_us")}
    stage_time = {r["card"]: r["pipeline_stage_us"] for r in cmp.rows()}
    assert max(stage_time, key=stage_time.get) == f"rank {SLOW_DATA_CARD}"
    # pipeline_stage_imbalance judges what a stage itself costs, its compute (metrics.md §8; it judged the
    # stage time, which on a healthy pipeline grows along the stages by their waits in sends): the stage that
    # computes slower, not the data loader's wait
    stage = [f for f in AnalysisSession(stores).findings if f.rule == "pipeline_stage_imbalance"]
    assert [f.cards for f in stage] == [[f"rank {SLOW_CARD}"]]


def test_a_card_without_data_keeps_a_row_and_is_not_compared(cluster):
    stores, _ = cluster
    broken = stores[2]
    broken_report_error = broken.report.error
    try:
        broken.report.error = "rank 2: not a trace"
        cmp = AnalysisSession(stores).comparison
        row = next(r for r in cmp.rows() if r["card"] == "rank 2")
        assert row["error"] == "rank 2: not a trace" and row["bar"] is None and row["step_time_us"] is None
        assert {f["card"] for f in cmp.slow()} == {f"rank {SLOW_CARD}", f"rank {SLOW_DATA_CARD}"}
        assert len(BAR_PARTS) == 5  # step interval, compute, pure communication, free, not captured
    finally:
        broken.report.error = broken_report_error


def test_bars_group_to_fit_but_slow_cards_stay_alone(cluster):
    _, cmp = cluster
    rows = cmp.rows()
    assert [b["members"] for b in group_rows(rows, 8)] == [[r["number"]] for r in rows]
    bars = group_rows(rows, 5)
    assert len(bars) <= 5
    assert sorted(n for b in bars for n in b["members"]) == sorted(r["number"] for r in rows)
    alone = {b["members"][0] for b in bars if b["slow"]}
    assert alone == {SLOW_CARD, SLOW_DATA_CARD}
    group = next(b for b in bars if len(b["members"]) > 1)
    members = [r for r in rows if r["number"] in group["members"]]
    totals = [sum(r["bar"].values()) for r in members]
    assert group["range_us"] == pytest.approx((min(totals), max(totals)))
    assert group["bar"]["compute_us"] == pytest.approx(np.mean([r["bar"]["compute_us"] for r in members]))
    ranks = sorted(r["rank"] for r in members)
    assert ranks == list(range(ranks[0], ranks[-1] + 1))  # by card, between slow cards: consecutive ranks
    assert group["card"] == f"ranks {ranks[0]}–{ranks[-1]}"


def test_a_group_label_names_exactly_the_ranks_it_holds():
    assert group_label([9, 28]) == "ranks 9, 28"  # not "ranks 9–28": ranks 10..27 are elsewhere
    assert group_label([28, 9]) == "ranks 9, 28"  # in the table's order (sorted by a metric)
    assert group_label([3, 4, 5, 6]) == "ranks 3–6"
    assert group_label([7, 0, 1, 2, 9, 10]) == "ranks 0–2, 7, 9–10"
    assert group_label([1, 3, 5, 7]) == "4 cards"  # four runs: too long, the tooltip names them
    assert group_label([1, None]) == "2 cards"


def _bar_row(rank: int) -> dict:
    parts = {k: 100.0 * (rank + 1) for k, _ in BAR_PARTS}
    return {"number": rank, "rank": rank, "card": f"rank {rank}", "bar": parts, "slow": [], "step": 1, "error": ""}


def test_grouped_bars_in_a_metric_order_are_labelled_with_their_own_ranks():
    """The table sorted by a metric puts rank 9 next to rank 28: their bar is "ranks 9, 28", not "ranks 9–28"."""
    order = [9, 28, 3, 4, 5, 6, 17, 1]
    bars = group_rows([_bar_row(r) for r in order], 4)
    assert [b["members"] for b in bars] == [[9, 28], [3, 4], [5, 6], [17, 1]]
    assert [b["card"] for b in bars] == ["ranks 9, 28", "ranks 3–4", "ranks 5–6", "ranks 1, 17"]
