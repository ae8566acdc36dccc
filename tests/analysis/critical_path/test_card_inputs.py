"""What a card keeps for the critical path: the card's own op types, a summary's round trip, damage refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.critical_path.card_inputs import CardPathInputs, card_path_inputs
from timelineview.analysis.kernels import card_kernels
from timelineview.analysis.steps import StepWindow
from timelineview.model import load


def test_op_types_are_the_cards_own(tmp_path):
    """A card's compute is grouped by the op types its operator tables show (``Conv2D1`` and ``Conv2D2`` are
    one ``Conv2D``; ``trans_TransData_3`` is ``TransData``), each type's time its tasks' in the step."""
    durations = {"Conv2D1": 30, "Conv2D2": 50, "trans_TransData_3": 7, "aclnnMm_MatMulCommon_MatMulV2": 11}
    events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "Ascend Hardware"}},
              {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "Stream 2"}}]
    t = 0
    for name, dur in durations.items():
        events.append({"ph": "X", "name": name, "pid": 1, "tid": 2, "ts": t, "dur": dur,
                       "args": {"Task Type": "AI_CORE"}})
        t += dur + 5
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(events))
    [store] = load(path)
    classification = classify(store)
    table = card_kernels(store, classification)
    window = StepWindow(0, int(store.slices.start.min()), int(store.slices.end.max()) + 1, 0, 0, "whole trace")
    got = card_path_inputs(store, classification, [window], None, table)
    assert dict(zip(got.type_names, (got.type_ns[0] / 1000).tolist())) == {
        "Conv2D": 80.0, "TransData": 7.0, "MatMulV2": 11.0}


def inputs() -> CardPathInputs:
    return CardPathInputs(
        op_start=np.array([10, 50], np.int64), op_end=np.array([40, 90], np.int64), op_name=["a", "b"],
        step_number=np.array([1, 2], np.int64), type_names=["Add", "MatMul"],
        type_ns=np.array([[1.0, 2.0], [3.0, 4.0]]), transfer_op=np.array([1], np.int64), transfer_link=["0-1"],
        transfer_transport=["HCCS"], transfer_bytes=np.array([4096.0]), transfer_ns=np.array([300.0]))


def test_a_summary_gives_back_what_the_card_kept():
    kept = inputs()
    back = CardPathInputs.from_document(kept.document())
    for name in ("op_start", "op_end", "step_number", "type_ns", "transfer_op", "transfer_bytes", "transfer_ns"):
        np.testing.assert_array_equal(getattr(back, name), getattr(kept, name))
    assert back.op_name == ["a", "b"] and back.type_names == ["Add", "MatMul"] and back.transfer_link == ["0-1"]


def test_a_summary_keeps_each_operators_peer():
    kept = inputs()
    kept.op_peer = np.array([-1, 3], np.int64)  # a collective, then a send to rank 3
    np.testing.assert_array_equal(CardPathInputs.from_document(kept.document()).op_peer, [-1, 3])
    older = kept.document()
    del older["op_peer"]  # a summary written before peers were kept: no operator has one
    np.testing.assert_array_equal(CardPathInputs.from_document(older).op_peer, [-1, -1])


def test_a_summary_keeps_each_types_task_count():
    kept = inputs()
    kept.type_count = np.array([[3, 1], [2, 5]], np.int64)
    np.testing.assert_array_equal(CardPathInputs.from_document(kept.document()).type_count, [[3, 1], [2, 5]])
    older = kept.document()
    del older["type_count"]  # a summary written before the counts were kept: none, not zeros
    assert CardPathInputs.from_document(older).type_count is None


@pytest.mark.parametrize("damage", [
    lambda d: d.pop("op_end"),
    lambda d: d.update(op_end=[40]),
    lambda d: d.update(transfer_op=[5]),  # a transfer of an operator the card does not have
    lambda d: d.update(type_ns=[[1.0]]),
    lambda d: d.update(op_peer=[1]),
    lambda d: d.update(type_count=[[1, 2]]),  # counts of one step of two
])
def test_damaged_inputs_are_refused(damage):
    doc = inputs().document()
    damage(doc)
    with pytest.raises(ValueError):
        CardPathInputs.from_document(doc)
