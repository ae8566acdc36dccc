"""MindSpore GPU timelines (``gpu_timeline_display_<dev>.json``): cumulative step markers and
one level of operator per execution (metrics.md §1, §3, §7).

The GPU generator writes its ``Steps`` lane with every step N starting where step 1 starts (step N
covers steps 1..N), each operator on the ``Ops`` lane and, again, its CUDA kernel on a
``Stream #<id>`` lane with the operator's name in ``args.op_full_name``. Its summary counts the
operators once (``op_exe_times``), not their kernels.
"""

import json

import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

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
    got = [((s.start / 1000.0), (s.end / 1000.0)) for s in steps]
    assert got == pytest.approx(windows)
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
