"""Classification of slices and lanes (metrics.md §1)."""

import numpy as np
import pytest

from timelineview.analysis.classify import base_name, classify
from timelineview.analysis.derived import derive
from timelineview.analysis.summary import card_document
from timelineview.analysis.task_types import TASK_TYPE_KIND, is_compute_task_type, is_runtime_task_name
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.spec import WriteOptions

from .factory import COMM, HW, HW2, Layout, Sl, build_store


def names_of(store, mask):
    return sorted(store.strings[i] for i in store.slices.name[mask])


def test_task_type_table():
    for t in ("AI_CORE", "AI_VECTOR_CORE", "AIV", "MIX_AIC", "MIX_AIV", "AI_CPU", "FFTS_PLUS", "DSA_SQE",
              "Other", "ai_core"):
        assert is_compute_task_type(t), t
    for t in ("Notify Wait", "NOTIFY_WAIT", "EVENT_RECORD_SQE", "Write Value", "SDMA", "MEMCPY_ASYNC",
              "PCIE_DMA_SQE", "REDUCE_ASYNC_V2", "PLACE_HOLDER_SQE", "SOMETHING_NEW"):
        assert not is_compute_task_type(t), t
    assert all(k == k.upper() for k in TASK_TYPE_KIND)


def test_base_name_strips_rank_suffix_and_case():
    assert base_name("Ascend Hardware Rank3") == "ascend hardware"
    assert base_name("Ascend Hardware_12") == "ascend hardware"
    assert base_name("  HCCL ") == "hccl"


def test_msprof_compute_and_communication():
    store = build_store([
        Sl("Ascend Hardware Rank1/Stream 2", "MatMul", 0, 10, "AI_CORE"),
        Sl("Ascend Hardware Rank1/Stream 2", "Kernel", 10, 10, "Other"),
        Sl("Ascend Hardware Rank1/Stream 4", "Notify_Wait", 0, 10, "Notify Wait"),
        Sl("Ascend Hardware Rank1/Stream 4", "Copy", 0, 10, "SDMA_SQE"),
        Sl("Ascend Hardware Rank1/Step Trace(Model ID:2)", "Iteration 1", 0, 50),
        Sl("HCCL_1/Group 7 Communication", "hcom_allReduce_1", 20, 10),
        Sl("HCCL_1/Plane 0", "Reduce_Inline", 20, 1),
        Sl("communication/Communication Kernel", "AllReduce-op1", 40, 5),
        Sl("Python/Thread 1", "aten::mm", 0, 30),
        Sl("Overlap Analysis/Computing", "Computing", 0, 20),
        Sl("CANN/Thread 1", "AscendCL@launch", 0, 5),
    ])
    c = classify(store)
    assert c.mode == "msprof"
    assert names_of(store, c.compute) == ["Kernel", "MatMul"]
    assert names_of(store, c.communication) == ["AllReduce-op1", "hcom_allReduce_1"]
    assert [store.lanes.name[i] for i in c.hardware_lanes] == ["Stream 2", "Stream 4"]
    assert [store.lanes.name[i] for i in c.step_trace_lanes] == ["Step Trace(Model ID:2)"]
    assert list(c.overlap_lanes) == ["compute"]
    assert c.unknown_task_types == []


def test_msprof_old_communication_kernel_by_tid_and_unknown_types():
    store = build_store(
        [Sl("HCCL/Thread 70000", "AllReduce", 0, 10), Sl("Ascend Hardware/Stream 1", "x", 0, 5, "NEW_TYPE")],
        Layout(tids={"HCCL/Thread 70000": "70000"}),
    )
    c = classify(store)
    assert c.communication.tolist() == [True, False]
    assert not c.compute.any()
    assert c.unknown_task_types == ["NEW_TYPE"]


def test_mindspore_legacy_by_pid():
    lay = Layout(
        pids={"Device 1": "1", "AICPU OP": "9000", "Communication Op": "10000", "Op Overlap Analyse": "12000",
              "Host CPU OP": "11000"},
        tids={"Device 1/Steps": "100000", "Device 1/Scope Name": "100001", "Device 1/Stream 519": "519",
              "Op Overlap Analyse/Merged Computation Op": "7999", "Op Overlap Analyse/Thread 8000": "8000"},
    )
    store = build_store([
        Sl("Device 1/Stream 519", "Conv2D-op11", 0, 10),
        Sl("Device 1/Stream 519", "BroadcastTo-op3", 10, 10),
        Sl("Device 1/Stream 519", "AllReduce-op534", 20, 10),
        Sl("Device 1/Stream 519", "Default/hcom_broadcast_1", 30, 10),
        Sl("Device 1/Steps", "1", 0, 50),
        Sl("Device 1/Scope Name", "Default", 0, 50),
        Sl("AICPU OP/Stream 0", "DropoutGenMask-op2", 0, 10),
        Sl("AICPU OP/Stream 0", "InitData", 0, 1),
        Sl("Communication Op/Stream 11", "stream_11_0_Receive-op2068", 5, 10),
        Sl("Op Overlap Analyse/Merged Computation Op", "computation_op", 0, 20),
        Sl("Op Overlap Analyse/Thread 8000", "communication_not_overlapped", 0, 20),
        Sl("Host CPU OP/Host CPU Op", "host", 0, 20),
    ], lay)
    c = classify(store)
    assert c.mode == "mindspore_legacy"
    assert names_of(store, c.compute) == ["BroadcastTo-op3", "Conv2D-op11", "DropoutGenMask-op2", "InitData"]
    assert names_of(store, c.communication) == ["stream_11_0_Receive-op2068"]
    assert [store.lanes.name[i] for i in c.steps_lanes] == ["Steps"]
    assert sorted(c.overlap_lanes) == ["compute", "pure_communication"]


def test_mindspore_legacy_by_label():
    lay = Layout(pids={"P0": "0", "P1": "9000"}, labels={"P0": "AICORE OP", "P1": "AICPU OP"})
    store = build_store([Sl("P0/Stream 5", "MatMul-op1", 0, 10), Sl("P1/Stream 0", "Cast-op2", 0, 10)], lay)
    c = classify(store)
    assert c.mode == "mindspore_legacy" and c.compute.all()


def test_host_only_file_has_no_inputs():
    store = build_store([Sl("MindSpore/Thread 1", "Kernel::Launch", 0, 10), Sl("CPU OP/Thread 2", "x", 0, 5)],
                        Layout(pids={"MindSpore": "1", "CPU OP": "2"}))
    c = classify(store)
    assert c.mode == "none" and not c.compute.any() and not c.communication.any()
    assert np.array_equal(c.hardware_lanes, np.zeros(0))


# ------------------------------------------------------------------------------------------
# Traces that type every hardware task ``Other`` (CANN 7 / torch_npu 2024; metrics.md §1).
# The task's name is then the only witness: runtime and collective task names, and the bare
# placeholder ``Other``, are never compute whatever the Task Type says.


def test_runtime_names_in_every_spelling():
    for name in ("NOTIFY_WAIT", "Notify Wait", "Notify_Wait", "NOTIFY_RECORD", "MEMCPY_ASYNC",
                 "MemcopyAsync", "REDUCE_ASYNC_V2", "EVENT_RECORD", "EVENT_WAIT", "Other", "other",
                 " other ", "SDMA", "Write Value", "PLACE_HOLDER_SQE"):
        assert is_runtime_task_name(name), name
    for name in ("MatMul", "MatMulV2", "aclnnAdd_AddAiCore_Add", "OtherOp", "Memset", "EventLoop"):
        assert not is_runtime_task_name(name), name


def test_every_task_typed_other():
    # us -> ns; compute runs [0, 100) and [150, 200); everything else is runtime or communication.
    us = 1000
    store = build_store([
        Sl(HW, "MatMulV2", 0, 100 * us, "Other"),
        Sl(HW2, "aclnnAdd_AddAiCore_Add", 150 * us, 50 * us, "other"),
        Sl(HW2, "NOTIFY_WAIT", 100 * us, 40 * us, "Other"),
        Sl(HW2, "MEMCPY_ASYNC", 60 * us, 80 * us, "Other"),
        Sl(HW, "MemcopyAsync", 200 * us, 30 * us, "other"),
        Sl(HW, "REDUCE_ASYNC_V2", 230 * us, 10 * us, "Other"),
        Sl(HW, "EVENT_RECORD", 240 * us, 5 * us, "Other"),
        Sl(HW, "Other", 245 * us, 5 * us, "Other"),
        Sl(COMM, "hcom_allReduce__1_0_1", 100 * us, 150 * us),
    ])
    cls = classify(store)
    computed = sorted(store.strings[i] for i in store.slices.name[cls.compute])
    assert computed == ["MatMulV2", "aclnnAdd_AddAiCore_Add"]
    d = derive(store)
    # span [0, 250); compute 150 us; communication [100, 250) = 150; overlap [150, 200) = 50;
    # pure communication 100; free 0.
    assert int(d.compute.total()) == 150 * us
    assert int(d.pure_communication.total()) == 100 * us


@pytest.mark.parametrize("seed", [0, 3])
def test_generated_all_other_trace_agrees_with_its_overlap_lanes(tmp_path, seed):
    """A generated msprof card that types every hardware task Other (runtime and collective ones too):
    compute and pure communication equal the file's own Overlap Analysis lanes within 0.1 µs."""
    generate_cluster(tmp_path, cluster_specs(1, seed=seed, steps=3, tasks_per_step=120), "msprof",
                     options=WriteOptions(task_types="other"))
    [store] = load(tmp_path)
    types = {store.strings[t] for t in store.slices.task_type[store.slices.task_type >= 0]}
    assert types <= {"Other", "other"}  # the generation under test
    doc = card_document(store)
    producer = doc["file_overlap"]
    assert producer is not None
    for key in ("compute_us", "communication_us", "pure_communication_us"):
        assert doc[key] == pytest.approx(producer[key], abs=0.1), key
