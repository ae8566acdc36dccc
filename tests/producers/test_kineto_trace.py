"""A hand-built PyTorch profiler (Kineto) trace: GPU kernels are compute, NCCL kernels communication,
copies neither, ``ProfilerStep#N`` the steps, ``distributedInfo.rank`` the rank (metrics.md §13)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.producers.kineto_reference import answer_key, clipped
from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.summary import stats_document
from timelineview.model import load
from timelineview.producers import kineto

T0 = 1_700_000_000_000  # µs: an epoch time, as Kineto writes them
CPU_PID, GPU = 4242, 3
RANK = 5
COMPUTE_STREAM, NCCL_STREAM = 7, 20
# (name, stream, start, dur) in µs from T0; a NCCL kernel overlaps the second matmul by 30 µs
KERNELS = [
    ("ampere_sgemm_128x64_tn", COMPUTE_STREAM, 100, 200),
    ("void at::native::vectorized_elementwise_kernel<4>", COMPUTE_STREAM, 320, 50),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", NCCL_STREAM, 340, 100),
    ("ampere_sgemm_128x64_tn", COMPUTE_STREAM, 1100, 200),
    ("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", NCCL_STREAM, 1350, 150),
]
COPIES = [("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 10, 80), ("Memset (Device)", "gpu_memset", 1010, 5)]
STEPS = [(3, 0, 1000), (4, 1000, 1000)]  # (number, start, dur)


def kineto_trace(kernels: list[tuple[str, int, int, int]] = KERNELS) -> dict:
    events = [
        {"ph": "M", "name": "process_name", "pid": CPU_PID, "tid": 0, "args": {"name": "python3.10"}},
        {"ph": "M", "name": "process_labels", "pid": CPU_PID, "tid": 0, "args": {"labels": "CPU"}},
        {"ph": "M", "name": "process_name", "pid": GPU, "tid": 0, "args": {"name": "python3.10"}},
        {"ph": "M", "name": "process_labels", "pid": GPU, "tid": 0, "args": {"labels": f"GPU {GPU}"}},
    ]
    for number, start, dur in STEPS:
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{number}", "pid": CPU_PID,
                       "tid": CPU_PID, "ts": T0 + start, "dur": dur})
    for k, (name, stream, start, dur) in enumerate(kernels):
        corr = 100 + k
        launch = T0 + start - 40
        events += [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": CPU_PID, "tid": CPU_PID, "ts": launch - 5,
             "dur": 30, "args": {"Input Dims": [[32, 64], [64, 16]]}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": CPU_PID, "tid": CPU_PID,
             "ts": launch, "dur": 10, "args": {"correlation": corr}},
            {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": CPU_PID, "tid": CPU_PID, "ts": launch},
            {"ph": "X", "cat": "kernel", "name": name, "pid": GPU, "tid": stream, "ts": T0 + start, "dur": dur,
             "args": {"correlation": corr, "device": GPU, "stream": stream}},
            {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": GPU, "tid": stream, "ts": T0 + start,
             "bp": "e"},
        ]
    for name, cat, start, dur in COPIES:
        events.append({"ph": "X", "cat": cat, "name": name, "pid": GPU, "tid": COMPUTE_STREAM, "ts": T0 + start,
                       "dur": dur})
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": RANK, "world_size": 8},
            "deviceProperties": [{"id": GPU, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85_000_000_000}],
            "traceEvents": events}


@pytest.fixture()
def trace_path(tmp_path):
    path = tmp_path / "host_123.1700000000.pt.trace.json"
    path.write_text(json.dumps(kineto_trace()))
    return path


def test_kernels_nccl_copies_and_steps(trace_path):
    key = answer_key(trace_path)
    assert key.compute_us == 200 + 50 + 200  # the three compute kernels do not overlap one another
    assert key.communication_us == 100 + 150
    (store,) = load(trace_path)
    assert store.rank == RANK
    doc = stats_document([store])["cards"][0]
    assert doc["compute_us"] == pytest.approx(key.compute_us)
    assert doc["communication_us"] == pytest.approx(key.communication_us)
    # NCCL 340..440 overlaps the elementwise kernel 320..370 by 30 µs; 1350..1500 overlaps 1100..1300 not at all
    assert doc["overlapped_us"] == pytest.approx(30)
    assert doc["pure_communication_us"] == pytest.approx(key.communication_us - 30)
    assert [s["step"] for s in doc["steps"]] == [3, 4]
    for step in doc["steps"]:
        lo, hi = key.steps[step["step"]]
        assert step["compute_us"] == pytest.approx(clipped(key.compute, lo, hi) / 1000)
        assert step["communication_us"] == pytest.approx(clipped(key.communication, lo, hi) / 1000)
    cls = analyse_card(store, ["classification"]).classification
    assert cls.mode == "kineto"
    assert int(np.count_nonzero(cls.copies)) == len(COPIES)
    assert not np.any(cls.copies & (cls.compute | cls.communication))
    names = {store.strings[i] for i in store.slices.name[cls.communication]}
    assert names == {KERNELS[2][0], KERNELS[4][0]}
    # the launches are tied to their kernels by the ac2g flows
    assert len(store.flows) == len(KERNELS)
    assert set(store.slices.lane[store.flows.dst_slice].tolist()) <= set(cls.hardware_lanes.tolist())


def test_the_load_report_says_gpu_kernels(trace_path):
    (store,) = load(trace_path)
    notes = [w for w in store.report.warnings if kineto.NAME in w]
    assert len(notes) == 1
    note = notes[0]
    assert f"GPU {GPU} (NVIDIA H100 80GB HBM3)" in note
    assert "5 GPU kernels (2 NCCL kernels" in note and "2 copies" in note
    assert "AI Core" not in note


def test_header_rank_and_devices(trace_path):
    header = kineto.read_header(trace_path)
    assert header == kineto.KinetoHeader(RANK, 8, "nccl", {GPU: "NVIDIA H100 80GB HBM3"})


def test_rank_from_the_file_name_when_the_header_has_none(tmp_path):
    trace = kineto_trace()
    del trace["distributedInfo"]
    path = tmp_path / "trainer_rank-6.pt.trace.json"
    path.write_text(json.dumps(trace))
    assert kineto.read_header(path).rank == 6
    assert [s.rank for s in load(path)] == [6]


def test_a_folder_of_ranks_is_a_cluster(tmp_path):
    for rank in (1, 0):
        trace = kineto_trace()
        trace["distributedInfo"]["rank"] = rank
        (tmp_path / f"worker{rank}.1700000000.pt.trace.json").write_text(json.dumps(trace))
    stores = load(tmp_path)
    assert [s.rank for s in stores] == [0, 1]
    doc = stats_document(stores)
    assert [c["communication_us"] for c in doc["cards"]] == [pytest.approx(250)] * 2


def test_findings_speak_of_gpus(tmp_path):
    from timelineview.analysis.findings import evaluate_findings
    from timelineview.analysis.session import AnalysisSession

    # short kernels far apart in both steps: 700 of the 890 µs of forward/backward without a kernel
    sparse = [("ampere_sgemm_128x64_tn", COMPUTE_STREAM, base + start, dur)
              for base in (0, 1000) for start, dur in ((100, 50), (400, 50), (700, 50), (950, 40))]
    path = tmp_path / "sparse.pt.trace.json"
    path.write_text(json.dumps(kineto_trace(sparse)))
    found = evaluate_findings(AnalysisSession(load(path)))
    host_bound = [f for f in found if f.rule == "host_bound"]
    assert host_bound
    for f in found:
        assert "AI Core" not in f.advice
        assert not any("AI Core" in (e.lane or "") for e in f.evidence)
    assert "GPUs stand idle" in host_bound[0].advice
    # the evidence names the lane as the GPU card's timeline titles it
    assert {e.lane for e in host_bound[0].evidence} == {"Idle GPU gaps"}


def test_reword_keeps_the_ascend_words_for_ascend_cards():
    from timelineview.producers import wording_of
    from timelineview.producers.wording import ASCEND_WORDING, reword

    text = "the AI Cores stand idle; idle AI Core gaps"
    assert reword(text, wording_of("msprof")) == text
    assert wording_of("mindspore_legacy") == ASCEND_WORDING
    assert reword(text, wording_of("kineto")) == "the GPUs stand idle; idle GPU gaps"
