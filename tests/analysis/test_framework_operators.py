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


def _without_shapes(trace: dict) -> dict:
    """The trace as Kineto writes it without ``record_shapes``: no ``Input Dims``."""
    events = [{**e, "args": {k: v for k, v in e.get("args", {}).items() if k != "Input Dims"}}
              for e in trace["traceEvents"]]
    return {**trace, "traceEvents": events}


def _batch(trace: dict, batch: int) -> dict:
    """The trace with every input's leading dimension 32 (the batch) made ``batch``."""
    def rebatch(dims):
        return [[batch, *d[1:]] if d and d[0] == 32 else d for d in dims]
    events = [{**e, "args": {**e["args"], "Input Dims": rebatch(e["args"]["Input Dims"])}}
              if "Input Dims" in e.get("args", {}) else e for e in trace["traceEvents"]]
    return {**trace, "traceEvents": events}


@pytest.mark.parametrize("differ", ["no shapes", "another batch"])
def test_operators_whose_shapes_differ_pair_by_name(tmp_path, differ):
    """A GPU run without recorded shapes, or with batch 64 against 32: each operator pairs by name, with
    device time on both sides and both runs' shapes, marked as matched by name; nothing is left one-sided."""
    other = _without_shapes(gpu_run(150, (40, 80))) if differ == "no shapes" else _batch(gpu_run(150, (40, 80)), 64)
    base = AnalysisSession(load(_write(tmp_path, "base.pt.trace.json", gpu_run(300, (40, 20)))))
    new = AnalysisSession(load(_write(tmp_path, "new.pt.trace.json", other)))
    rows = diff_runs(base, new).document()["framework_operators"]
    by = {r["name"]: r for r in rows}
    assert sorted(by) == ["aten::addmm", "aten::conv2d", "aten::convolution", "aten::linear"]
    assert len(rows) == 4  # one row per name: no one-sided leftovers beside it
    new_conv = "" if differ == "no shapes" else "[64, 3, 224, 224], [64, 3, 11, 11], [64]"
    conv = by["aten::conv2d"]
    assert (conv["base_device_us"], conv["new_device_us"], conv["base_count"], conv["new_count"]) == (60, 120, 1, 1)
    assert conv["input_shapes"] == "[32, 3, 224, 224], [64, 3, 11, 11], [64]"
    assert (conv["new_input_shapes"], conv["paired_by"]) == (new_conv, "name")
    addmm = by["aten::addmm"]
    assert (addmm["base_device_us"], addmm["new_device_us"], addmm["ratio"]) == (300, 150, 0.5)
    [row] = [r for r in diff_runs(base, new).framework_operators if r.name == "aten::conv2d"]
    assert row.shapes_text(compact=True).startswith("by name: [32, 3, 224, 224], [64, 3, 11, 11], [64] ≠ ")
    assert ("no shapes" in row.shapes_text()) == (differ == "no shapes")


def test_a_name_pairs_by_shapes_first_then_its_rest_by_name(tmp_path):
    """Two aten::mm shapes in the base run, one of them and a third in the new: the common shape pairs
    exactly; the base's other shape and the new's third pair by name, both sets of shapes shown."""
    def run(shapes_and_us):
        events = []
        for k, (dims, us) in enumerate(shapes_and_us):
            events += [_op("aten::mm", 1000 * k, 100, dims), *_launch(1000 * k + 10, k + 1, 1000 * k + 200, us)]
        return {"traceEvents": events}
    common, only_base, only_new = [[32, 64], [64, 16]], [[32, 8], [8, 8]], [[16, 64], [64, 16]]
    base = AnalysisSession(load(_write(tmp_path, "b.pt.trace.json", run([(common, 50), (only_base, 30)]))))
    new = AnalysisSession(load(_write(tmp_path, "n.pt.trace.json", run([(common, 70), (only_new, 20)]))))
    rows = diff_runs(base, new).document()["framework_operators"]
    summary = [(r["input_shapes"], r["new_input_shapes"], r["base_device_us"], r["new_device_us"], r["paired_by"])
               for r in rows]
    assert summary == [("[32, 64], [64, 16]", "[32, 64], [64, 16]", 50, 70, "name_and_shapes"),
                       ("[32, 8], [8, 8]", "[16, 64], [64, 16]", 30, 20, "name")]


def test_a_run_without_step_markers_against_one_with_them_is_noted(tmp_path):
    """Its one "step" is its whole trace (warm-up and set-up idle time included): the notes say so, once."""
    marked = gpu_run(300, (40, 20))
    marked["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": CPU,
                                  "tid": CPU, "ts": T0, "dur": 3500})
    base = AnalysisSession(load(_write(tmp_path, "base.pt.trace.json", marked)))
    new = AnalysisSession(load(_write(tmp_path, "new.pt.trace.json", gpu_run(150, (40, 80)))))
    assert diff_runs(base, new).notes == ["rank 0: the new run marks no steps; its step is its whole trace"]
    assert diff_runs(new, new).notes == []  # neither marks steps: like against like


def test_a_step_marker_written_as_a_cpu_op_is_no_operator(tmp_path):
    """torch_npu writes ProfilerStep#N with cat cpu_op: it holds every operator's work, and is not one."""
    trace = gpu_run(300, (40, 20))
    trace["traceEvents"].append({**_op("ProfilerStep#7", -5, 3500)})
    (store,) = load(_write(tmp_path, "a.pt.trace.json", trace))
    names = {k.name for k in framework_operators(store)}
    assert "ProfilerStep#7" not in names and "aten::addmm" in names
