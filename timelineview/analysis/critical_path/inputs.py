"""What the critical path reads of one card, on the cluster's clock: U(compute), communication operators,
step windows, compute time per step and op type, and the transfers of each operator per link."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.card_inputs import CardPathInputs
from timelineview.analysis.critical_path.op_types import OpTypeTable
from timelineview.analysis.intervals import Intervals


@dataclass
class Transfers:
    """Transfer time per (operator, link) of the card (metrics.md §6 transfer tasks, summed)."""

    op: np.ndarray  # int64 row into CardTimeline.op_*
    link: list[str]  # "src-dst"
    transport: list[str]
    size: np.ndarray  # float64 bytes
    dur: np.ndarray  # float64 ns


@dataclass
class CardTimeline:
    """One card with every time aligned to the first card's clock (its offset subtracted)."""

    card: str
    rank: int | None
    offset_ns: int  # subtracted from the card's own times
    step_number: np.ndarray  # int64 step numbers
    step_start: np.ndarray  # int64 aligned ns
    step_end: np.ndarray
    compute_start: np.ndarray  # int64 aligned ns: U(compute), sorted and disjoint
    compute_end: np.ndarray
    step_type_ns: np.ndarray  # float64 (steps, op types of the shared table): compute time per type
    op_start: np.ndarray  # int64 aligned ns, communication operators by start
    op_end: np.ndarray
    op_name: list[str]
    transfers: Transfers
    op_peer: np.ndarray | None = None  # int64 per operator: a send's or receive's peer rank (-1: a collective)
    step_type_count: np.ndarray | None = None  # int64 (steps, op types): the tasks ``step_type_ns`` sums (None:
    # not kept)

    def __post_init__(self) -> None:
        if self.op_peer is None:
            self.op_peer = np.full(len(self.op_start), -1, np.int64)


def empty_transfers() -> Transfers:
    """No transfer tasks."""
    return Transfers(np.zeros(0, np.int64), [], [], np.zeros(0), np.zeros(0))


def card_timeline(card: str, rank: int | None, offset_ns: int, inputs: CardPathInputs, compute: Intervals,
                  steps: list, types: OpTypeTable) -> CardTimeline:
    """A card's timeline from what its analysis (or summary) keeps, aligned by ``offset_ns``; ``types``
    gathers the op types of the cluster (the card's columns follow the table as it grows)."""
    ids = np.array([types.id_of(t) for t in inputs.type_names], np.int64)
    rows = {int(n): i for i, n in enumerate(inputs.step_number.tolist())}
    step_type = np.zeros((len(steps), len(types.names)))
    counted = inputs.type_count is not None
    step_count = np.zeros(step_type.shape, np.int64) if counted else None
    for k, w in enumerate(steps):
        if (i := rows.get(int(w.step))) is not None:
            np.add.at(step_type[k], ids, inputs.type_ns[i])
            if counted:
                np.add.at(step_count[k], ids, inputs.type_count[i])
    return CardTimeline(
        card=card, rank=rank, offset_ns=int(offset_ns),
        step_number=np.array([w.step for w in steps], np.int64),
        step_start=np.array([w.start for w in steps], np.int64) - offset_ns,
        step_end=np.array([w.end for w in steps], np.int64) - offset_ns,
        compute_start=compute.starts - offset_ns, compute_end=compute.ends - offset_ns, step_type_ns=step_type,
        op_start=inputs.op_start - offset_ns, op_end=inputs.op_end - offset_ns, op_name=list(inputs.op_name),
        transfers=Transfers(inputs.transfer_op, list(inputs.transfer_link), list(inputs.transfer_transport),
                            inputs.transfer_bytes, inputs.transfer_ns),
        op_peer=inputs.op_peer, step_type_count=step_count)
