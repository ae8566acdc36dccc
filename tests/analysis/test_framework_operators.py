"""Framework operators with the device time of what they launched, and ``diff``'s side-by-side table
(metrics.md §13), on hand-built PyTorch profiler (Kineto) traces."""

from __future__ import annotations

import json

import pytest

from timelineview.analysis.diff.framework_operators import OperatorKey, framework_operators, input_shapes
from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

T0 = 1_700_000_000_000  # µs
CPU, GPU = 4242, 0
ADDMM_SHAPES = [[4096], [32, 9216], [9216, 4096], [], []]
CONV_SHAPES = [[32, 3, 224, 224], [64, 3, 11, 11], [64], [], [], [], []]


def _op(name, ts, dur, dims=None):
    args = {"Input Dims": dims} if dims is not None else {}
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": CPU, "tid": CPU, "ts": T0 + ts, "dur": dur, "args": args}


def _launch(ts, corr, kernel_ts, kernel_dur, flows=True, name="ampere_sgemm_128x64_tn"):
    events = [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": CPU, "tid": CPU, "ts": T0 + ts,
         "dur": 5, "args": {"correlation": corr}},
        {"ph": "X", "cat": "kernel", "name": name, "pid": GPU, "tid": 7, "ts": T0 + kernel_ts, "dur": kernel_dur,
         "args": {"correlation": corr, "stream": 7}},
    ]
    if flows:
        events += [{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": CPU, "tid": CPU, "ts": T0 + ts},
                   {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": GPU, "tid": 7, "ts": T0 + kernel_ts,
                    "bp": "e"}]
    return events


def gpu_run(addmm_us: int, conv_us: tuple[int, int], flows: bool = True) -> dict:
    """aten::linear → aten::addmm (one GEMM of ``addmm_us``), then aten::conv2d → aten::convolution (two
    kernels), then an aten::add that launches nothing, and a launch outside every operator."""
    events = [{"ph": "M", "name": "process_labels", "pid": GPU, "tid": 0, "args": {"labels": "GPU 0"}},
              _op("aten::linear", 0, 100, [[32, 9216], [4096, 9216], [4096]]),
              _op("aten::addmm", 10, 80, ADDMM_SHAPES),
              *_launch(20, 1, 200, addmm_us, flows),
              _op("aten::conv2d", 1000, 100, CONV_SHAPES),
              _op("aten::convolution", 1010, 80, CONV_SHAPES),
              *_launch(1020, 2, 1200, conv_us[0], flows, "implicit_gemm"),
              *_launch(1040, 3, 1200 + conv_us[0], conv_us[1], flows, "bias_add"),
              _op("aten::add", 2000, 10, [[32], [32]]),
              *_launch(3000, 4, 3100, 77, flows, "stray")]
    return {"distributedInfo": {"rank": 0}, "traceEvents": events}


def _write(tmp_path, name, trace):
    path = tmp_path / name
    path.write_text(json.dumps(trace))
    return path


@pytest.mark.parametrize("flows", [True, False], ids=["ac2g flows", "correlation ids"])
def test_each_operator_holds_the_kernels_launched_inside_it(tmp_path, flows):
    (store,) = load(_write(tmp_path, "a.pt.trace.json", gpu_run(300, (40, 20), flows)))
    ops = framework_operators(store)
    conv = "[32, 3, 224, 224], [64, 3, 11, 11], [64]"
    assert ops[OperatorKey("aten::addmm", "[4096], [32, 9216], [9216, 4096]")].device_ns == 300_000
    assert ops[OperatorKey("aten::linear", "[32, 9216], [4096, 9216], [4096]")].device_ns == 300_000
    assert ops[OperatorKey("aten::conv2d", conv)].device_ns == 60_000  # inclusive: both kernels
    assert ops[OperatorKey("aten::convolution", conv)].device_ns == 60_000
    assert ops[OperatorKey("aten::add", "[32], [32]")].device_ns == 0
    assert sum(t.count for t in ops.values()) == 5  # the stray launch belongs to no operator


def test_input_shapes_read_both_producers_spellings():
    assert input_shapes([[32, 9216], [9216, 4096], [], []]) == "[32, 9216], [9216, 4096]"
    assert input_shapes("32,9216;\r\n9216,4096;\r\n;\r\n") == "[32, 9216], [9216, 4096]"
    assert input_shapes(None) == ""


def test_diff_sets_the_operators_side_by_side(tmp_path):
    base = AnalysisSession(load(_write(tmp_path, "base.pt.trace.json", gpu_run(300, (40, 20)))))
    new = AnalysisSession(load(_write(tmp_path, "new.pt.trace.json", gpu_run(150, (40, 80)))))
    rows = diff_runs(base, new).document()["framework_operators"]
    by = {(r["name"], r["input_shapes"]): r for r in rows}
    addmm = by[("aten::addmm", "[4096], [32, 9216], [9216, 4096]")]
    assert (addmm["base_device_us"], addmm["new_device_us"], addmm["delta_us"]) == (300, 150, -150)
    assert addmm["ratio"] == pytest.approx(0.5)
    conv = by[("aten::conv2d", "[32, 3, 224, 224], [64, 3, 11, 11], [64]")]
    assert (conv["base_device_us"], conv["new_device_us"], conv["ratio"]) == (60, 120, 2)
    assert ("aten::add", "[32], [32]") not in by  # it launched nothing in either run
    # pairs with device time on both sides first, then one-sided rows, each by |delta| largest first
    both = [r["base_device_us"] > 0 and r["new_device_us"] > 0 for r in rows]
    assert both == sorted(both, reverse=True)
    for group in (True, False):
        deltas = [abs(r["delta_us"]) for r, b in zip(rows, both, strict=True) if b == group]
        assert deltas == sorted(deltas, reverse=True)


def _synchronise(ts, corr, wait_ts, wait_dur):
    """A cudaStreamSynchronize with Kineto's ac2g flow to the GPU's ``cuda_sync`` wait (as PyTorch ≥ 2.1 writes)."""
    return [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": CPU, "tid": CPU, "ts": T0 + ts,
         "dur": wait_dur + 5, "args": {"correlation": corr}},
        {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": GPU, "tid": 7, "ts": T0 + wait_ts,
         "dur": wait_dur, "args": {"correlation": corr, "stream": 7}},
        {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": CPU, "tid": CPU, "ts": T0 + ts},
        {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": GPU, "tid": 7, "ts": T0 + wait_ts, "bp": "e"},
    ]


def test_a_synchronisation_is_no_device_work_of_the_operator(tmp_path):
    """aten::copy_ copies host → device (34 µs) then waits for the stream (9 µs): only the copy is its device
    time, though a launch flow leads to the wait as well."""
    events = [_op("aten::copy_", 0, 100, [[32, 3], [32, 3]]),
              *_launch(10, 1, 20, 34, name="Memcpy HtoD (Pageable -> Device)"),
              *_synchronise(50, 2, 54, 9)]
    events[2]["cat"] = "gpu_memcpy"  # the launched slice is a copy, not a kernel
    (store,) = load(_write(tmp_path, "sync.pt.trace.json", {"traceEvents": events}))
    ops = framework_operators(store)
    assert ops[OperatorKey("aten::copy_", "[32, 3], [32, 3]")].device_ns == 34_000
