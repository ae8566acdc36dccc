"""The step broken down for ``diff NPU GPU`` (metrics.md §13): computation, communication, free and the
host launch overhead (free time ended by work launched after it began), on a hand-built Kineto trace
whose figures are worked out by hand below."""

from __future__ import annotations

import json

import pytest

from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.analysis.diff.step_breakdown import card_breakdown
from timelineview.analysis.session import AnalysisSession
from timelineview.commands.diff import format_text
from timelineview.model import load

T0 = 1_700_000_000_000  # µs
CPU, GPU, STREAM, NCCL_STREAM = 4242, 0, 7, 20
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
# (name, stream, launched at, start, dur) in µs from T0; steps [0, 1000) and [1000, 2000)
KERNELS = [
    ("gemm_a", STREAM, 10, 100, 200),  # [100, 300)
    ("gemm_b", STREAM, 50, 400, 100),  # gap [300, 400): queued at 50, before it began: the device's own
    ("gemm_c", STREAM, 650, 700, 200),  # gap [500, 700): launched at 650, after it began: the host's
    ("gemm_d", STREAM, 1050, 1100, 300),  # gap [900, 1100) across the step boundary, launched at 1050
    (NCCL, NCCL_STREAM, 1200, 1300, 400),  # [1300, 1700): 100 under gemm_d, 300 not hidden
    ("gemm_f", STREAM, 1900, 1950, 50),  # gap [1700, 1950): launched at 1900
]
# By hand, per step (µs):
#   step 1 [0, 1000): compute 200 + 100 + 200 = 500, communication 0, free 1000 − 500 = 500,
#                     host launch overhead [500, 700) + [900, 1000) = 300
#   step 2 [1000, 2000): compute 300 + 50 = 350, pure communication 300, free 1000 − 650 = 350,
#                     host launch overhead [1000, 1100) + [1700, 1950) = 350
EXPECTED = {"computation_us": 425.0, "communication_us": 150.0, "free_us": 425.0, "host_launch_overhead_us": 325.0}


def kineto_run(kernels=KERNELS) -> dict:
    events = [{"ph": "M", "name": "process_labels", "pid": GPU, "tid": 0, "args": {"labels": "GPU 0"}}]
    for number, start in ((1, 0), (2, 1000)):
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{number}", "pid": CPU,
                       "tid": CPU, "ts": T0 + start, "dur": 1000})
    for corr, (name, stream, launch, start, dur) in enumerate(kernels, 1):
        events += [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": CPU, "tid": CPU, "ts": T0 + launch - 2,
             "dur": 10, "args": {"Input Dims": [[32, 64], [64, 16]]}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": CPU, "tid": CPU,
             "ts": T0 + launch, "dur": 5, "args": {"correlation": corr}},
            {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": CPU, "tid": CPU, "ts": T0 + launch},
            {"ph": "X", "cat": "kernel", "name": name, "pid": GPU, "tid": stream, "ts": T0 + start, "dur": dur,
             "args": {"correlation": corr, "stream": stream}},
            {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": GPU, "tid": stream, "ts": T0 + start,
             "bp": "e"},
        ]
    return {"distributedInfo": {"rank": 0}, "traceEvents": events}


def _session(tmp_path, name: str, trace: dict) -> AnalysisSession:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "host_1.1700000000.pt.trace.json").write_text(json.dumps(trace))
    return AnalysisSession(load(folder))


def test_the_mean_step_by_hand(tmp_path):
    session = _session(tmp_path, "gpu", kineto_run())
    assert card_breakdown(session, 0).document() == pytest.approx(EXPECTED)


def test_work_queued_ahead_has_no_launch_overhead(tmp_path):
    """Every kernel launched long before the device reaches it: the gaps are the device's, not the host's."""
    early = [(name, stream, 0, start, dur) for name, stream, _, start, dur in KERNELS]
    breakdown = card_breakdown(_session(tmp_path, "gpu", kineto_run(early)), 0)
    assert breakdown.host_launch_overhead_us == 0.0
    assert breakdown.free_us == pytest.approx(EXPECTED["free_us"])


def test_diff_puts_both_runs_side_by_side(tmp_path):
    base = _session(tmp_path, "base", kineto_run())
    early = [(name, stream, 0, start, dur) for name, stream, _, start, dur in KERNELS]
    new = _session(tmp_path, "new", kineto_run(early))
    doc = diff_runs(base, new).document()["step_breakdown"]
    assert doc["base"] == pytest.approx(EXPECTED)
    assert doc["new"] == pytest.approx({**EXPECTED, "host_launch_overhead_us": 0.0})
    assert doc["delta"] == pytest.approx({"computation_us": 0.0, "communication_us": 0.0, "free_us": 0.0,
                                          "host_launch_overhead_us": -325.0})


def test_diff_text_shows_the_breakdown(tmp_path):
    base = _session(tmp_path, "base", kineto_run())
    early = [(name, stream, 0, start, dur) for name, stream, _, start, dur in KERNELS]
    text = format_text(diff_runs(base, _session(tmp_path, "new", kineto_run(early))))
    table = text[text.index("Step breakdown"):].splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in table[3:6]}  # after the title, the header and its rule
    assert [float(v.replace(" ", "")) for v in rows["base"]] == [425.0, 150.0, 425.0, 325.0]
    assert [float(v.replace(" ", "")) for v in rows["new"]] == [425.0, 150.0, 425.0, 0.0]
    assert float(rows["delta"][3]) == -325.0


def test_a_run_without_framework_operators_has_no_breakdown(tmp_path):
    """The breakdown goes with the framework operators (a framework profiler's runs): the Ascend diff
    document keeps its keys."""
    no_ops = kineto_run()
    no_ops["traceEvents"] = [e for e in no_ops["traceEvents"] if e.get("cat") != "cpu_op"]
    base, new = _session(tmp_path, "base", no_ops), _session(tmp_path, "new", no_ops)
    assert "step_breakdown" not in diff_runs(base, new).document()
