"""A hand-built PyTorch profiler (Kineto) trace: each GPU kernel's op type is the innermost framework operator
that launched it, its shapes and data types that operator's ``Input Dims`` / ``Input type``; FLOPs of the
matrix products by hand (2·m·n·k); NCCL kernels are not in the table; a kernel no operator launched is named
by its function (metrics.md §7.1, §13)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.critical_path.card_inputs import card_path_inputs
from timelineview.analysis.kernels import card_kernels
from timelineview.analysis.kernels.flops_of_shapes.convolution_output import convolution_output_shape
from timelineview.analysis.kernels.task_sources.host_flow_source import SOURCE_LAUNCHING_OPERATORS
from timelineview.analysis.steps import StepWindow
from timelineview.analysis.summary import stats_document
from timelineview.model import load
from timelineview.producers.kineto import readable_kernel_name

T0 = 1_700_000_000_000  # µs, an epoch time as Kineto writes them
CPU_PID, GPU, STREAM, NCCL_STREAM = 4242, 0, 7, 20
SMALL, LARGE = ((32, 64), (64, 16)), ((128, 256), (256, 512))  # (A [m, k], B [k, n]) of the two aten::mm
CUTLASS = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align1>"
           "(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align1::Params)")
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
# (operators holding the launch, outermost first, as (name, Input Dims, Input type); kernel name, start, dur) µs
LAUNCHES = [
    ([("aten::matmul", [list(SMALL[0]), list(SMALL[1])], ["float", "float"]),
      ("aten::mm", [list(SMALL[0]), list(SMALL[1])], ["float", "float"])], "ampere_sgemm_32x32_nn", 100, 40),
    ([("aten::mm", [list(LARGE[0]), list(LARGE[1])], ["c10::Half", "c10::Half"])], "ampere_sgemm_128x64_nn", 300, 90),
    ([("aten::add", [[1024], [1024], []], ["float", "float", "Scalar"])],
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int, float*)", 500, 7),
    ([], CUTLASS, 700, 25),  # launched outside any framework operator
    ([("nccl:all_reduce", [[1024]], ["float"])], NCCL, 900, 60),
]


def _kineto_trace(with_flows: bool, launches=LAUNCHES, record_shapes: bool = True) -> dict:
    events = [{"ph": "M", "name": "process_labels", "pid": GPU, "tid": 0, "args": {"labels": f"GPU {GPU}"}}]
    for k, (operators, kernel, start, dur) in enumerate(launches):
        corr, launch = 100 + k, T0 + start - 50
        for depth, (name, dims, types, *values) in enumerate(operators):  # each inside the one before it
            args = {"Input Dims": dims, "Input type": types} if record_shapes else {}
            if values:
                args["Concrete Inputs"] = values[0]
            events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": CPU_PID, "tid": CPU_PID,
                           "ts": launch - 10 + depth, "dur": 30 - 2 * depth, "args": args})
        events += [
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": CPU_PID, "tid": CPU_PID,
             "ts": launch, "dur": 5, "args": {"correlation": corr}},
            {"ph": "X", "cat": "kernel", "name": kernel, "pid": GPU, "tid": NCCL_STREAM if kernel == NCCL else STREAM,
             "ts": T0 + start, "dur": dur, "args": {"correlation": corr, "device": GPU}},
        ]
        if with_flows:
            events += [
                {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": CPU_PID, "tid": CPU_PID, "ts": launch},
                {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": GPU,
                 "tid": NCCL_STREAM if kernel == NCCL else STREAM, "ts": T0 + start, "bp": "e"},
            ]
    # a sibling aten::mm that ended before the add's launch: the innermost holder is not the latest started
    events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": CPU_PID, "tid": CPU_PID,
                   "ts": T0 + 445, "dur": 2, "args": {"Input Dims": [[2, 2], [2, 2]]}})
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
            "deviceProperties": [{"id": GPU, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": events}


def _card(tmp_path: Path, with_flows: bool, launches=LAUNCHES, record_shapes: bool = True):
    path = tmp_path / f"host_1.{int(with_flows)}.pt.trace.json"
    path.write_text(json.dumps(_kineto_trace(with_flows, launches, record_shapes)))
    (store,) = load(path)
    return store


def _mm_flops(shapes) -> float:
    (m, k), (_, n) = shapes
    return 2.0 * m * n * k


@pytest.mark.parametrize("with_flows", [True, False], ids=["ac2g flows", "correlation ids"])
def test_op_types_and_shapes_come_from_the_launching_operator(tmp_path, with_flows):
    store = _card(tmp_path, with_flows)
    table = card_kernels(store, classify(store))
    assert table.source == SOURCE_LAUNCHING_OPERATORS
    assert len(table) == 4 and table.described == 3  # the NCCL kernel is communication; cutlass unlaunched
    kernels = stats_document([store])["cards"][0]["kernels"]
    assert kernels["source"] == SOURCE_LAUNCHING_OPERATORS
    by_type = {r["op_type"]: r for r in kernels["by_op_type"]}
    assert set(by_type) == {"aten::mm", "aten::add", "cutlass::Kernel"}
    assert by_type["aten::mm"]["count"] == 2 and by_type["aten::mm"]["total_us"] == pytest.approx(40 + 90)
    assert by_type["aten::mm"]["flops"] == pytest.approx(_mm_flops(SMALL) + _mm_flops(LARGE))
    assert by_type["aten::add"]["count"] == 1 and by_type["aten::add"]["total_us"] == pytest.approx(7)
    assert by_type["aten::add"]["flops"] is None and by_type["cutlass::Kernel"]["flops"] is None
    assert by_type["cutlass::Kernel"]["total_us"] == pytest.approx(25)
    assert set(kernels["not_counted"]) == {"aten::add", "cutlass::Kernel"}
    by_shape = {(r["op_type"], r["input_shapes"]): r for r in kernels["by_shape"]}
    small = by_shape[("aten::mm", "32,64;64,16")]
    large = by_shape[("aten::mm", "128,256;256,512")]
    assert (small["count"], small["total_us"], small["input_data_types"]) == (1, pytest.approx(40), "float;float")
    assert (large["count"], large["total_us"], large["input_data_types"]) == (1, pytest.approx(90),
                                                                             "c10::Half;c10::Half")
    assert small["flops"] == pytest.approx(2 * 32 * 16 * 64)
    assert large["flops"] == pytest.approx(2 * 128 * 512 * 256)
    assert by_shape[("aten::add", "1024;1024")]["input_data_types"] == "float;float;Scalar"
    # TFLOPS and MFU against the A100's peak from the header's device name
    assert large["tflops"] == pytest.approx(_mm_flops(LARGE) / 90e-6 / 1e12)
    assert kernels["peak_tflops"] and large["mfu"] == pytest.approx(large["tflops"] / kernels["peak_tflops"])


def test_without_recorded_shapes_op_types_still_come_from_the_operators(tmp_path):
    """A capture without ``record_shapes``: the operators' names still give the op types; no shapes, so the
    matrix products count 0 FLOPs (their formula applies, their shapes do not fit)."""
    store = _card(tmp_path, with_flows=True, record_shapes=False)
    kernels = stats_document([store])["cards"][0]["kernels"]
    assert (kernels["source"], kernels["tasks"], kernels["described"]) == (SOURCE_LAUNCHING_OPERATORS, 4, 3)
    by_type = {r["op_type"]: r for r in kernels["by_op_type"]}
    assert set(by_type) == {"aten::mm", "aten::add", "cutlass::Kernel"}
    assert by_type["aten::mm"]["count"] == 2 and by_type["aten::mm"]["flops"] == 0
    assert {r["input_shapes"] for r in kernels["by_shape"]} == {""}


CONV_INPUT, CONV_WEIGHT = [8, 3, 32, 32], [16, 3, 5, 5]
CONV_DIMS = [CONV_INPUT, CONV_WEIGHT, [16], [], [], [], [], [], []]
CONV_TYPES = ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"]
# cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
CUDNN_VALUES = ["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"]
CONV_LAUNCHES = [
    ([("aten::conv2d", CONV_DIMS[:3], CONV_TYPES[:3]), ("aten::convolution", CONV_DIMS, CONV_TYPES),
      ("aten::cudnn_convolution", [CONV_INPUT, CONV_WEIGHT, [], [], [], [], [], [], []], CONV_TYPES, CUDNN_VALUES)],
     "void cudnn::cnn::implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int)",
     100, 80),
    ([("aten::convolution", CONV_DIMS, CONV_TYPES)], "void cudnn::winograd_nonfused::kernel<float>(int)", 300, 20),
]


def test_convolution_flops_from_the_recorded_argument_values(tmp_path):
    """The innermost operator, ``aten::cudnn_convolution``, recorded its padding 1, stride 2, dilation 1: a
    32×32 input under a 5×5 kernel gives a 15×15 output (⌊(32 + 2 − 4 − 1) / 2⌋ + 1); the convolution whose
    argument values were not recorded counts 0 FLOPs (its output's positions unknown)."""
    store = _card(tmp_path, with_flows=True, launches=CONV_LAUNCHES)
    kernels = stats_document([store])["cards"][0]["kernels"]
    by_type = {r["op_type"]: r for r in kernels["by_op_type"]}
    assert set(by_type) == {"aten::cudnn_convolution", "aten::convolution"}
    n, c_out, h_out, w_out, c_in, k_h, k_w = 8, 16, 15, 15, 3, 5, 5
    expected = 2 * n * c_out * h_out * w_out * c_in * k_h * k_w
    assert by_type["aten::cudnn_convolution"]["flops"] == pytest.approx(expected)
    assert by_type["aten::convolution"]["flops"] == 0


@pytest.mark.parametrize(("operator", "values", "expected"), [
    ("aten::conv2d", ["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "1"], (8, 16, 28, 28)),
    ("aten::_convolution", ["", "", "", "[2, 2]", "[2, 2]", "[1, 1]", "False", "[0, 0]", "1"], (8, 16, 16, 16)),
    ("aten::convolution", ["", "", "", "[1, 1]", "[0, 0]", "[2, 2]", "False", "[0, 0]", "1"], (8, 16, 24, 24)),
    ("aten::convolution", ["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"], None),  # transposed
    ("aten::conv2d", ["", "", "", "2", "0", "1", "1"], (8, 16, 14, 14)),  # one value for both dimensions
    ("aten::conv2d", ["", "", ""], None),  # values not recorded
    ("aten::mm", ["", ""], None),
])
def test_convolution_output_shape(operator, values, expected):
    inputs = [tuple(CONV_INPUT), tuple(CONV_WEIGHT)]  # 32×32 input, 5×5 kernel
    assert convolution_output_shape(operator, inputs, values) == expected


@pytest.mark.parametrize(("name", "readable"), [
    (CUTLASS, "cutlass::Kernel"),
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 3, 128, 1>"
     "(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, int)",
     "at::native::(anonymous namespace)::CatArrayBatchedCopy"),
    ("ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn"),
    ("void foo<(bar)3>(int (*)(int))", "foo"),
])
def test_readable_kernel_names(name, readable):
    assert readable_kernel_name(name) == readable


SAMPLES = Path("/work/shared/samples/kineto")


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="the shared Kineto samples are absent")
@pytest.mark.parametrize("name", ["sampled_rank-0.pt.trace.json.gz", "simple_add.pt.trace.json.gz"])
def test_sample_op_types_are_operators_or_readable_names(name):
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"{name} absent")
    (store,) = load(path)
    table = card_kernels(store, classify(store))
    assert table.source == SOURCE_LAUNCHING_OPERATORS and table.described > 0
    cpu_ops = {e["name"] for e in _events(path) if e.get("cat") == "cpu_op"}
    types = table.groups.text(table.groups.op_type)
    assert not [t for t in types if "Params)" in t or t.startswith("void ")]
    # the op types named by a kernel are its readable name; the others are framework operators' names
    kernel_names = {readable_kernel_name(store.strings[i]) for i in np.unique(store.slices.name[table.slices]).tolist()}
    task_types = table.groups.text(table.groups.op_type[table.group])
    assert all(t in cpu_ops or t in kernel_names for t in task_types)
    assert sum(t in cpu_ops for t in task_types) >= table.described


def _events(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return json.load(f)["traceEvents"]


def test_critical_path_types_are_the_cards_op_types(tmp_path):
    """The critical path groups compute by the card's own op types (metrics.md §7.1): on a GPU trace the
    framework operator that launched each kernel, as the Operators tab shows them, never a fragment of the
    signature."""
    store = _card(tmp_path, with_flows=True)
    classification = classify(store)
    table = card_kernels(store, classification)
    window = StepWindow(0, int(store.slices.start.min()), int(store.slices.end.max()) + 1, 0, 0, "whole trace")
    inputs = card_path_inputs(store, classification, [window], None, table)
    assert sorted(inputs.type_names) == sorted(set(table.groups.text(table.groups.op_type[table.group])))
    assert float(inputs.type_ns.sum()) == pytest.approx(1000 * sum(d for _, _, _, d in LAUNCHES[:4]))
