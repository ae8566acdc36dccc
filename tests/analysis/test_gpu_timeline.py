"""MindSpore GPU timelines (``gpu_timeline_display_<dev>.json``): cumulative step markers and
one level of operator per execution (metrics.md §1, §3, §7).

The GPU generator writes its ``Steps`` lane with every step N starting where step 1 starts (step N
covers steps 1..N), each operator on the ``Ops`` lane and, again, its CUDA kernel on a
``Stream #<id>`` lane with the operator's name in ``args.op_full_name``. Its summary counts the
operators once (``op_exe_times``), not their kernels.
"""

import json
from pathlib import Path

import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
T0 = 1_600_000_000_000.0  # µs
STEP_US = [141_000.0, 164_000.0, 150_000.0, 155_000.0, 148_000.0]
OPS_PER_STEP = 20
OP_US = 6_500.0
KERNEL_US = 5_000.0
DISPATCH_US = 200.0  # between operators


def gpu_trace() -> tuple[list[dict], list[tuple[float, float]]]:
    """Events of a GPU timeline with cumulative step markers, and the real step windows (µs)."""
    events = [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU Op"}}]
    events += [{"ph": "M", "name": "thread_name", "pid": 0, "tid": tid, "args": {"name": tid}}
               for tid in ("Steps", "Ops", "Stream #7")]
    windows = []
    start = T0
    for k, length in enumerate(STEP_US, 1):
        windows.append((start, start + length))
        events.append({"name": str(k), "ph": "X", "pid": 0, "tid": "Steps", "ts": T0,
                       "dur": start + length - T0})  # every step starts at step 1's start
        t = start + 1_000.0
        for j in range(OPS_PER_STEP):
            full = f"Default/network/MatMul-op{j}"
            events.append({"name": full.split("/")[-1], "ph": "X", "pid": 0, "tid": "Ops", "ts": t,
                           "dur": OP_US})
            events.append({"name": "volta_sgemm_128x64_nn", "ph": "X", "pid": 0, "tid": "Stream #7",
                           "ts": t + 500.0, "dur": KERNEL_US,
                           "args": {"type": "cuLaunchKernel", "op_full_name": full,
                                    "block_dim": "128,1,1", "grid_dim": "8,1,1"}})
            t += OP_US + DISPATCH_US
        start += length
    return events, windows


@pytest.fixture
def gpu_card(tmp_path):
    events, windows = gpu_trace()
    path = tmp_path / "gpu_timeline_display_0.json"
    path.write_text(json.dumps(events))
    [store] = load(path)
    return store, windows


def test_cumulative_steps_become_the_time_between_step_ends(gpu_card):
    store, windows = gpu_card
    session = AnalysisSession([store])
    steps = session.analyse(0, ("steps",)).steps
    assert [s.step for s in steps] == [1, 2, 3, 4, 5]
    got = [t for s in steps for t in (s.start / 1000.0, s.end / 1000.0)]
    assert got == pytest.approx([t for window in windows for t in window])  # approx takes a flat sequence
    assert any("step markers overlap" in w for w in store.report.warnings)
    doc = session.card_documents[0]
    assert [st["dur_us"] for st in doc["steps"]] == pytest.approx(STEP_US)


def test_no_slow_step_or_host_bound_finding_from_cumulative_markers(gpu_card):
    store, _ = gpu_card
    rules = {f.rule for f in AnalysisSession([store]).findings}
    assert "slow_step" not in rules
    assert "host_bound" not in rules


def test_markers_that_neither_tile_nor_nest_are_a_warning(tmp_path):
    events = [{"name": "1", "ph": "X", "pid": 0, "tid": "Steps", "ts": 0.0, "dur": 500.0},
              {"name": "2", "ph": "X", "pid": 0, "tid": "Steps", "ts": 100.0, "dur": 100.0},  # inside step 1
              {"name": "Add-op1", "ph": "X", "pid": 0, "tid": "Ops", "ts": 10.0, "dur": 50.0}]
    path = tmp_path / "gpu_timeline_display_0.json"
    path.write_text(json.dumps(events))
    [store] = load(path)
    steps = AnalysisSession([store]).analyse(0, ("steps",)).steps
    assert [(s.start, s.end) for s in steps] == [(0, 500_000), (100_000, 200_000)]  # as written
    assert any("do not tile" in w for w in store.report.warnings)


def test_an_operator_and_its_kernel_count_once(gpu_card):
    store, _ = gpu_card
    doc = AnalysisSession([store]).card_documents[0]
    n_ops = OPS_PER_STEP * len(STEP_US)
    by_name = doc["operators"]["by_name"]
    assert sum(row["count"] for row in by_name) == n_ops
    assert sum(row["total_us"] for row in by_name) == pytest.approx(n_ops * OP_US)
    assert doc["compute_us"] == pytest.approx(n_ops * OP_US)
    assert {row["name"] for row in by_name} == {f"MatMul-op{j}" for j in range(OPS_PER_STEP)}


# MindSpore 2.x GPU: the operator lane is "GpuOps" and every event carries its tid as text ("GpuOps",
# "Stream #7") while the producer writes its thread names for the numbers those map to (100002, 7):
# no lane of the events has a thread name.
OP_NAMES_2X = [f"Op{j}-op{j}" for j in range(19)]
KERNEL_NAMES_2X = [f"kernel_{k}" for k in range(12)]


def gpu_2x_trace() -> tuple[list[dict], list[tuple[str, float]]]:
    """A MindSpore 2.x GPU timeline and its operator executions (name, µs), kernels launched twice for
    some operators (a kernel is not an execution of its own)."""
    events = [{"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU Op"}},
              {"ph": "M", "name": "thread_name", "pid": 0, "tid": 100000, "args": {"name": "Steps"}},
              {"ph": "M", "name": "thread_name", "pid": 0, "tid": 100002, "args": {"name": "GpuOps"}},
              {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "Stream #7"}}]
    executions = []
    t = T0
    for step in range(1, 4):
        step_start = t
        for j in range(len(OP_NAMES_2X) + step * 3):  # 22, 25, 28 executions
            name = OP_NAMES_2X[j % len(OP_NAMES_2X)]
            dur = 40.0 + 3 * j
            events.append({"name": name, "ph": "X", "pid": 0, "tid": "GpuOps", "ts": t, "dur": dur})
            executions.append((name, dur))
            for k in range(1 + j % 2):  # one or two kernels per operator
                events.append({"name": KERNEL_NAMES_2X[(j + k) % len(KERNEL_NAMES_2X)], "ph": "X", "pid": 0,
                               "tid": "Stream #7", "ts": t + 2.0 + 15.0 * k, "dur": 12.0,
                               "args": {"type": "cuLaunchKernel", "op_full_name": f"Default/{name}",
                                        "block_dim": "128,1,1", "grid_dim": "8,1,1"}})
            t += dur + 10.0
        events.append({"name": str(step), "ph": "X", "pid": 0, "tid": "Steps", "ts": step_start,
                       "dur": t - step_start})
    return events, executions


def test_unnamed_2x_kernel_lanes_count_each_operator_once(tmp_path):
    events, executions = gpu_2x_trace()
    path = tmp_path / "gpu_timeline_display_0.json"
    path.write_text(json.dumps(events))
    [store] = load(path)
    doc = AnalysisSession([store]).card_documents[0]
    by_name = doc["operators"]["by_name"]
    # the producer's op_exe_times and num_of_ops: executions of the operator lane and their names
    assert sum(row["count"] for row in by_name) == len(executions) == 75
    assert len(by_name) == len({n for n, _ in executions}) == 19
    assert {row["name"] for row in by_name} == set(OP_NAMES_2X)
    assert doc["compute_us"] == pytest.approx(sum(d for _, d in executions))


def _sample_captures_with_summary() -> list[tuple[Path, Path]]:
    """Every MindSpore GPU timeline among the samples with the producer's summary beside it."""
    if not SAMPLES.is_dir():
        return []
    found = []
    for display in sorted(SAMPLES.rglob("gpu_timeline_display_*.json")):
        summary = display.with_name(display.name.replace("_display_", "_summary_"))
        if summary.is_file():
            found.append((display, summary))
    return found


@pytest.mark.samples
@pytest.mark.parametrize("display, summary", _sample_captures_with_summary() or
                         [pytest.param(None, None, marks=pytest.mark.skip(reason="no GPU capture with its summary"))])
def test_sample_gpu_captures_count_what_their_summary_counts(display, summary):
    """The producer's summary counts each operator execution once (``op_exe_times``) over its distinct
    operators (``num_of_ops``)."""
    expected = json.loads(summary.read_text())
    [store] = load(display)
    by_name = AnalysisSession([store]).card_documents[0]["operators"]["by_name"]
    assert sum(row["count"] for row in by_name) == expected["op_exe_times"]
    assert len(by_name) == expected["num_of_ops"]


@pytest.mark.samples
@pytest.mark.skipif(not (SAMPLES / "misc" / "gpu_timeline_display_0.json").is_file(), reason="sample absent")
def test_sample_gpu_excerpt_counts_its_operator_not_its_kernel():
    """The excerpt holds one operator on ``Ops`` and one kernel on a stream lane named by its bare tid."""
    [store] = load(SAMPLES / "misc" / "gpu_timeline_display_0.json")
    by_name = AnalysisSession([store]).card_documents[0]["operators"]["by_name"]
    assert [(row["name"], row["count"]) for row in by_name] == [("Default/InitDataSetQueue-op0", 1)]


def test_an_ascend_stream_on_the_tid_named_ops_is_no_gpu_operator_lane(tmp_path):
    """Every MindSpore generation names its tid 0 "Ops", on Ascend too, where tid 0 can be a stream: its
    operators and those of the other streams all count (the GPU operator lane is told by its tid)."""
    events = [{"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "AICORE OP"}},
              {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "Ops"}},
              {"ph": "M", "name": "thread_name", "pid": 0, "tid": 100002, "args": {"name": "GpuOps"}}]
    durations = {0: [10.0, 20.0], 5: [30.0, 40.0, 50.0]}
    t = 0.0
    for stream, durs in durations.items():
        for k, d in enumerate(durs):
            events.append({"name": f"MatMul-op{stream}{k}", "ph": "X", "pid": 0, "tid": stream, "ts": t, "dur": d})
            t += d + 5.0
    path = tmp_path / "ascend_timeline_display_0.json"
    path.write_text(json.dumps(events))
    [store] = load(path)
    doc = AnalysisSession([store]).card_documents[0]
    assert sum(row["count"] for row in doc["operators"]["by_name"]) == 5
    assert doc["compute_us"] == pytest.approx(150.0)
