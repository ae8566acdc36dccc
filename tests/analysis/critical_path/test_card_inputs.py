"""What a card keeps for the critical path: op types from names, a summary's round trip, damage refused."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.critical_path.card_inputs import CardPathInputs
from timelineview.analysis.critical_path.op_types import op_type_of


@pytest.mark.parametrize(("name", "expected"), [
    ("aclnnMm_MatMulCommon_MatMulV2", "MatMulV2"),
    ("Default/network/MatMul-op12", "MatMul"),
    ("Gradients/Default/TransData-op3", "TransData"),
    ("Cast", "Cast"),
])
def test_op_type_is_the_names_last_component(name, expected):
    assert op_type_of(name) == expected


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
