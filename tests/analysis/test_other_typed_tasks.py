"""Traces that type every hardware task ``Other`` (CANN 7 / torch_npu 2024; metrics.md §1, issue 11).

The task's name is then the only witness: runtime and collective task names, and the bare
placeholder ``Other``, are never compute whatever the Task Type says.
"""

from __future__ import annotations

import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.derived import derive
from timelineview.analysis.summary import card_document
from timelineview.analysis.task_types import is_runtime_task_name
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.spec import WriteOptions

from .factory import COMM, HW, HW2, Sl, build_store


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
