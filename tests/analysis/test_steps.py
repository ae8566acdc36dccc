"""Step windows and phases (metrics.md §3)."""

import csv
import io
import re

import pytest

from timelineview.analysis.cluster.comparison import BAR_PARTS, COLUMNS, FREE_AFTER_INTERVAL, to_csv
from timelineview.analysis.derived import derive
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.steps import find_steps, step_metrics
from timelineview.analysis.summary import format_text

from . import reference as ref
from .cluster.cluster_factory import make_cluster
from .factory import COMM, HW, HW2, Layout, Sl, build_store

ST = "Ascend Hardware/Step Trace(Model ID:2)"
PY = "Python/Thread 1"


def steps_of(store):
    d = derive(store)
    return d, find_steps(store, d)


def test_step_trace_with_fp_bp_args():
    slices = [
        Sl(ST, "Iteration 2", 100_000, 100_000, args={"FP Start": 105.5, "BP End": "170.25"}),
        Sl(ST, "Iteration 1", 0, 100_000, args={"FP Start": 3.0, "BP End": 80.0}),
        Sl(ST, "FP_BP Time 1", 3_000, 77_000),
        Sl(ST, "Iteration Refresh 1", 80_000, 20_000),
        Sl("Ascend Hardware/Step Trace(Model ID:9)", "Iteration 1", 0, 10),  # another model: fewer steps
        Sl(HW, "MatMul", 1_000, 50_000, "AI_CORE"),
        Sl(PY, "ProfilerStep#7", 0, 300_000),  # ignored: Step Trace wins
    ]
    _, steps = steps_of(build_store(slices))
    assert [(s.step, s.start, s.end, s.fp, s.bp, s.source) for s in steps] == [
        (1, 0, 100_000, 3_000, 80_000, "step_trace"),
        (2, 100_000, 200_000, 105_500, 170_250, "step_trace"),
    ]


def test_fallback_phases_from_tasks():
    # step [0, 100): GetNext at 2 is a data-input op; first real compute at 10.
    # comm ops start at 40 and 70 (the last): bp = last compute end <= 70 -> 60.
    slices = [
        Sl(PY, "ProfilerStep#3", 0, 100),
        Sl(PY, "ProfilerStep#4", 100, 100),
        Sl(HW, "IteratorGetNext", 2, 3, "AI_CPU"),
        Sl(HW, "MatMul", 10, 20, "AI_CORE"),
        Sl(HW2, "Add", 30, 30, "AI_VECTOR_CORE"),
        Sl(HW, "Late", 65, 10, "AI_CORE"),  # ends after the last comm start: not bp
        Sl(COMM, "hcom_allReduce_1", 40, 10),
        Sl(COMM, "hcom_allReduce_2", 70, 25),
        # step 4: no communication -> bp = end of the last compute task in the step
        Sl(HW, "Conv", 120, 30, "AI_CORE"),
        Sl(HW, "Relu", 160, 15, "AI_CORE"),
    ]
    store = build_store(slices)
    d, steps = steps_of(store)
    assert [(s.step, s.fp, s.bp, s.source) for s in steps] == [(3, 10, 60, "profiler_step"),
                                                               (4, 120, 175, "profiler_step")]
    m = step_metrics(store, d, steps[0])
    assert (m["step_interval_us"], m["fp_bp_us"], m["tail_us"]) == (0.01, 0.05, 0.04)
    assert m["step"] == 3 and m["start_ns"] == 0 and m["dur_us"] == 0.1


def test_steps_with_tasks_crossing_boundaries_are_clipped():
    compute = [(0, 1500), (1400, 2600), (2900, 4100), (4500, 5000)]
    comm = [(1800, 3200), (3900, 4600)]
    slices = [Sl(PY, f"ProfilerStep#{k + 1}", k * 2000, 2000) for k in range(3)]
    slices += [Sl(HW, f"op{k}", s, e - s, "AI_CORE") for k, (s, e) in enumerate(compute)]
    slices += [Sl(COMM, f"hcom_{k}", s, e - s) for k, (s, e) in enumerate(comm)]
    store = build_store(slices)
    d, steps = steps_of(store)
    for st in steps:
        m = step_metrics(store, d, st)
        want = ref.metrics(compute, comm, st.start, st.end)
        want["window_free_us"] = want.pop("free_us")  # a step's free_us is the producer's Free (below)
        for key, value in want.items():
            assert m[key] == pytest.approx(value) if value is not None else m[key] is None, key
        # the producer's Free: the free time of the Stage, [first task start, last task end] in the step
        inside = [(a, b) for a, b in compute + comm if a < st.end and b > st.start]
        a, b = max(st.start, min(x for x, _ in inside)), min(st.end, max(y for _, y in inside))
        assert m["free_us"] == pytest.approx(ref.metrics(compute, comm, a, b)["free_us"])
        assert m["stage_us"] == pytest.approx((b - a) / 1000)
        assert m["step_interval_us"] + m["fp_bp_us"] + m["tail_us"] == pytest.approx(m["dur_us"])
    # step 2 = [2000, 4000): the first compute *starting* in it is at 2900
    assert steps[1].fp == 2900


def test_mindspore_steps_lane():
    lay = Layout(pids={"Device 0": "0"}, tids={"Device 0/Steps": "100000", "Device 0/Stream 5": "5"})
    store = build_store([
        Sl("Device 0/Steps", "2", 100, 100),
        Sl("Device 0/Steps", "1", 0, 100),
        Sl("Device 0/Steps", "Model ID: 1 Iteration ID: 7", 200, 100),
        Sl("Device 0/Stream 5", "MatMul-op1", 10, 50),
    ], lay)
    _, steps = steps_of(store)
    assert [(s.step, s.start, s.source) for s in steps] == [(1, 0, "steps_lane"), (2, 100, "steps_lane"),
                                                           (7, 200, "steps_lane")]
    assert (steps[0].fp, steps[0].bp) == (10, 60)
    assert (steps[1].fp, steps[1].bp) == (100, 100)  # no compute: all tail


def test_whole_card_fallback():
    store = build_store([Sl(HW, "a", 50, 10, "AI_CORE"), Sl(COMM, "hcom_x", 70, 30)])
    d, steps = steps_of(store)
    got = [(s.step, s.start, s.end, s.source, s.has_phases, s.label) for s in steps]
    assert got == [(1, 50, 100, "whole_card", False, "whole trace")]


def test_whole_trace_window_has_no_invented_phases():
    """Without step markers nothing says where a data wait or a backward pass ends: one window named
    "whole trace" with null phases (metrics.md §3, §5), its §2 metrics those of the whole span."""
    store = build_store([Sl(HW, "GetNext", 0, 10, "AI_CPU"), Sl(HW, "a", 30, 10, "AI_CORE"),
                         Sl(COMM, "hcom_x", 60, 40)])
    d, steps = steps_of(store)
    m = step_metrics(store, d, steps[0])
    assert m["window"] == "whole trace" and m["step"] == 1
    assert (m["step_interval_us"], m["fp_bp_us"], m["tail_us"]) == (None, None, None)
    # span [0, 100): compute 20 ns, communication 40 ns, free 40 ns, all inside the Stage [0, 100); by hand
    assert (m["dur_us"], m["compute_us"], m["communication_us"], m["window_free_us"], m["free_us"]) == \
        (0.1, 0.02, 0.04, 0.04, 0.04)
    marked = build_store([Sl(HW, "a", 30, 10, "AI_CORE"), Sl(PY, "ProfilerStep#1", 0, 100)])
    d2, steps2 = steps_of(marked)
    m2 = step_metrics(marked, d2, steps2[0])
    assert "window" not in m2 and m2["step_interval_us"] == 0.03 and steps2[0].label == "Step 1"


# ------------------------------------------------------------------------------------------
# A trace without step markers is one window named "whole trace", without phases.
# Every consumer of the step objects takes the null phases as "not measured": the comparison rows
# and bars, the slow-card rule, the text tables and the CSV, never as zero or as invented values.


def unmarked_cluster(n_cards: int = 3, compute_us=None):
    """``make_cluster`` with its ProfilerStep markers removed: nothing says where steps are."""
    stores = make_cluster(n_cards, steps=2, compute_us=compute_us)
    out = []
    for c, s in enumerate(stores):
        sl = s.slices
        keep = [Sl(f"{s.processes.name[s.lanes.process[sl.lane[i]]]}/{s.lanes.name[sl.lane[i]]}",
                   s.strings[sl.name[i]], int(sl.start[i]), int(sl.dur[i]),
                   s.strings[sl.task_type[i]] if sl.task_type[i] >= 0 else None)
                for i in range(len(sl)) if not s.strings[sl.name[i]].startswith("ProfilerStep")]
        out.append(build_store(keep, card=f"rank {c}", rank=c, paths=(f"rank{c}.json",)))
    return out


@pytest.fixture(scope="module")
def session():
    return AnalysisSession(unmarked_cluster(compute_us=[1000.0, 1000.0, 1000.0]))


def test_stats_steps_are_one_whole_trace_window_with_null_phases(session):
    doc = session.stats_document()
    for card in doc["cards"]:
        (step,) = card["steps"]
        assert step["window"] == "whole trace"
        assert step["step_interval_us"] is None and step["fp_bp_us"] is None and step["tail_us"] is None
        # the window is the card's span: its metrics are the card's own
        for key in ("span_us", "compute_us", "communication_us", "free_us", "idle_gap_count"):
            assert step[key] == pytest.approx(card[key]), key


def test_comparison_rows_show_no_phases_and_a_bar_without_step_interval(session):
    cmp = session.comparison
    assert cmp.whole_trace_only and cmp.step_numbers() == [1]
    doc = session.stats_document()
    for row, card in zip(cmp.rows(), doc["cards"], strict=True):
        assert row["window"] == "whole trace"
        assert row["step_interval_us"] is None and row["fp_bp_us"] is None and row["tail_us"] is None
        assert row["free_us"] == pytest.approx(card["free_us"])
        bar = row["bar"]
        assert [k for k, _ in BAR_PARTS] == list(bar)
        assert bar["step_interval_us"] == 0.0
        # no step interval: the bar's "free after the step interval" is the window's free time
        assert bar[FREE_AFTER_INTERVAL] == pytest.approx(card["free_us"])
        assert sum(bar.values()) == pytest.approx(card["span_us"])
    table = list(csv.DictReader(io.StringIO(to_csv(cmp.rows(), COLUMNS))))
    assert [(t["step_interval_us"], t["fp_bp_us"], t["tail_us"]) for t in table] == [("", "", "")] * 3


def test_slow_card_rule_never_flags_an_unmeasured_step_interval():
    stores = unmarked_cluster(compute_us=[1000.0, 1000.0, 1600.0])
    flagged = AnalysisSession(stores).stats_document()["slow_cards"]
    metrics = {f["metric"] for f in flagged}
    assert "step_interval_us" not in metrics and ("rank 2", "compute_us") in {(f["card"], f["metric"]) for f in flagged}


def test_text_tables_name_the_window_and_leave_phases_empty(session):
    text = format_text(session.stats_document())
    steps = text.split("Steps of rank 0 (µs)\n")[1].split("\n\n")[0].splitlines()
    header, row = re.split(r"\s{2,}", steps[0].strip()), steps[2]
    assert header[-3:] == ["Step interval", "Forward/backward", "Tail"]  # the vocabulary's labels
    assert row.startswith("whole trace") and row.split()[-3:] == ["-", "-", "-"]


def test_stage_is_the_busy_part_of_the_step_and_free_its_idle_time():
    # step [0, 10000): nothing until 1500 (step interval), compute [1500, 3000) and [5000, 6000),
    # communication [2500, 4000), then nothing until the step ends
    slices = [Sl(PY, "ProfilerStep#1", 0, 10_000), Sl(PY, "ProfilerStep#2", 10_000, 1_000),
              Sl(HW, "MatMul", 1_500, 1_500, "AI_CORE"), Sl(HW, "Add", 5_000, 1_000, "AI_CORE"),
              Sl(COMM, "hcom_allReduce_1", 2_500, 1_500), Sl(HW, "Mul", 10_200, 300, "AI_CORE")]
    store = build_store(slices)
    d, steps = steps_of(store)
    first, second = (step_metrics(store, d, s) for s in steps)
    stage = 6_000 - 1_500
    busy = ref.measure(ref.union([(1_500, 3_000), (5_000, 6_000), (2_500, 4_000)]), 1_500, 6_000)
    assert first["stage_us"] == stage / 1000
    assert first["free_us"] == (stage - busy) / 1000 == 1.0  # the producer's Free
    assert first["window_free_us"] == (10_000 - busy) / 1000  # the step window: step interval and tail included
    assert (second["stage_us"], second["free_us"]) == (0.3, 0.0)
