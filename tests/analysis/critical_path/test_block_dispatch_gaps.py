"""A compute block on the critical path says how much of it the card computed and how much were dispatch
gaps (metrics.md §12): a block spans from its first task to where the card had got by its launch, gaps
included, so calling all of it "compute" overstates what the card computed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from timelineview.analysis.critical_path.document import analyse_critical_path, block_split
from timelineview.analysis.critical_path.graph import build_graph
from timelineview.analysis.critical_path.inputs import CardTimeline, empty_transfers
from timelineview.analysis.critical_path.replay import ReplayInputs, replay
from timelineview.analysis.critical_path.step_lanes import COMPUTE, DISPATCH_GAP, step_lanes
from timelineview.analysis.critical_path.text import critical_path_text

STEP = (0, 1000)  # ns, one step on both cards
# card 0 launches the all-reduce last: its two blocks are the path's compute
LATE_TASKS = [(0, 100), (300, 400), (450, 500), (610, 700), (800, 850), (900, 950)]
LATE_OP = (520, 600)
EARLY_TASKS = [(0, 150), (650, 700)]
EARLY_OP = (200, 600)


def card(name: str, tasks: list[tuple[int, int]], op: tuple[int, int], at: int = 0) -> CardTimeline:
    """A card of one step whose times are ``at`` ns later than written."""
    starts = np.array([a for a, _ in tasks], np.int64) + at
    ends = np.array([b for _, b in tasks], np.int64) + at
    busy = float((ends - starts).sum())
    return CardTimeline(name, None, 0, np.array([1]), np.array([STEP[0] + at]), np.array([STEP[1] + at]), starts,
                        ends, np.array([[busy]]), np.array([op[0] + at], np.int64), np.array([op[1] + at], np.int64),
                        ["hcom_allReduce_1"], empty_transfers())


def in_window(tasks: list[tuple[int, int]], a: float, b: float) -> float:
    """Task time inside [a, b) (the reference: the tasks do not overlap)."""
    return float(sum(max(0.0, min(e, b) - max(s, a)) for s, e in tasks))


@pytest.fixture
def graph():
    return build_graph([card("late", LATE_TASKS, LATE_OP), card("early", EARLY_TASKS, EARLY_OP)], ["MatMul"])


def test_each_block_on_the_path_splits_into_its_compute_and_its_gaps(graph):
    doc = analyse_critical_path(graph, []).document()["critical_path"][0]
    blocks = [s for s in doc["segments"] if s["kind"] == "compute"]
    assert [s["card"] for s in blocks] == ["late", "late"]
    # by hand: block 0 computed 100 + 100 + 50 and waited 200 + 50 between its tasks, block 1 computed
    # 90 + 50 + 50 and waited 100 + 50
    assert [s["compute_us"] for s in blocks] == pytest.approx([0.25, 0.19])
    for s in blocks:
        a = s["start_ns"]
        b = a + s["dur_us"] * 1000
        assert s["compute_us"] * 1000 == pytest.approx(in_window(LATE_TASKS, a, b))
        assert s["dispatch_gap_us"] == pytest.approx(s["dur_us"] - s["compute_us"])
    assert blocks[0]["dispatch_gap_us"] == pytest.approx(0.25)
    # block 1 waited for the all-reduce and begins at its first task (the 10 ns before it are a wait to
    # launch): its gaps are the two between its tasks
    assert [s["start_ns"] for s in blocks] == [0, 610]
    assert blocks[1]["dispatch_gap_us"] == pytest.approx(0.15)
    # the path's compute never exceeds the card's; its gaps are what share_by_op_type prices as "dispatch gap"
    split = block_split(doc["segments"])
    assert split.compute_us * 1000 <= in_window(LATE_TASKS, *STEP)
    assert split.dispatch_gap_us / doc["step_us"] == pytest.approx(doc["share_by_op_type"]["dispatch gap"], abs=1e-4)


def test_times_since_the_epoch_give_the_same_path_to_the_ns():
    """A real trace's ns since the epoch (~1.7e18) are float64 in steps of 256 ns: the path is the same as
    at 0, its compute exact and its segments' starts the tasks' own instants."""
    at = 1_736_408_883_687_808_123
    g = build_graph([card("late", LATE_TASKS, LATE_OP, at), card("early", EARLY_TASKS, EARLY_OP, at)], ["MatMul"])
    doc = analyse_critical_path(g, []).document()["critical_path"][0]
    blocks = [s for s in doc["segments"] if s["kind"] == "compute"]
    assert [s["start_ns"] - at for s in blocks] == [0, 610]
    assert [s["compute_us"] for s in blocks] == [0.25, 0.19]
    assert [s["dispatch_gap_us"] for s in blocks] == [0.25, 0.15]
    assert doc["step_us"] == 1.0


def test_the_text_prints_a_paths_compute_and_gaps(graph):
    doc = analyse_critical_path(graph, []).document()
    split = block_split(doc["critical_path"][0]["segments"])
    text = critical_path_text(doc)
    def grouped(us: float) -> str:  # the text tables' spelling: digits grouped with a space, three decimals
        return f"{us:,.3f}".replace(",", " ")

    assert f"computing {grouped(split.compute_us)} µs, dispatch gaps {grouped(split.dispatch_gap_us)} µs" in text
    step = doc["critical_path"][0]
    assert f"step {step['step']} ({grouped(step['step_us'])} µs)" in text


def test_the_lanes_draw_a_blocks_gaps_apart_from_its_compute(graph):
    tl = replay(graph, ReplayInputs.measured(graph))
    lanes = step_lanes(graph, tl, 0)
    late = graph.cards.index("late")
    assert lanes.total(late, COMPUTE) == pytest.approx(in_window(LATE_TASKS, *STEP))
    blocks = float((tl.ready[0, :, late] - tl.block_start[0, :, late]).sum())
    assert lanes.total(late, DISPATCH_GAP) == pytest.approx(blocks - in_window(LATE_TASKS, *STEP))


SAMPLE = Path(__file__).resolve().parents[3].parent / "shared" / "samples" / "torch_npu"


def producer_computing_us(rank_folder: Path) -> dict[int, float]:
    """Per step, the card's compute time as the producer's own step_trace_time.csv states it (µs)."""
    rows = (rank_folder / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").read_text().splitlines()
    head = rows[0].split(",")
    step, computing = head.index("Step"), head.index("Computing")
    return {int(r.split(",")[step]): float(r.split(",")[computing]) for r in rows[1:] if r.strip()}


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="../shared/samples is absent")
def test_on_the_sample_a_paths_compute_is_at_most_its_cards():
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load

    doc = AnalysisSession(load(SAMPLE, cache=False)).stats_document()
    computing = {f"rank {r}": producer_computing_us(SAMPLE / f"rank{r}_ascend_pt") for r in (0, 1)}
    assert doc["critical_path"]
    for step in doc["critical_path"]:
        per_card: dict[str, float] = {}
        for s in step["segments"]:
            if s["kind"] == "compute":
                per_card[s["card"]] = per_card.get(s["card"], 0.0) + s["compute_us"]
                assert s["compute_us"] + s["dispatch_gap_us"] == pytest.approx(s["dur_us"], abs=0.002)
        assert per_card
        for name, on_path in per_card.items():
            # the producer's own Computing of the card in that step (its figures carry ns digits), and the
            # card's compute in the step as the document's per-card metrics (§3) give it
            assert on_path <= computing[name][step["step"]] + 0.01
            own = next(c for c in doc["cards"] if c["card"] == name)
            in_step = next(x["compute_us"] for x in own["steps"] if x["step"] == step["step"])
            assert on_path <= in_step + 0.0005 * len(step["segments"])  # each segment's µs rounded to the ns
