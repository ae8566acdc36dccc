"""What the critical path reads of one card, on the cluster's clock: compute tasks, communication
operators, step windows and the transfers each operator made (per link)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.op_types import OpTypeTable

NEEDED_FIELDS = ("classification", "steps", "communication")


@dataclass
class Transfers:
    """One row per transfer task (metrics.md §6) of the card: which operator (row of the card's ops)."""

    op: np.ndarray  # int64 row into CardTimeline.op_*
    link: list[str]  # "src-dst"
    transport: list[str]
    size: np.ndarray  # int64 bytes
    dur: np.ndarray  # int64 ns


@dataclass
class CardTimeline:
    """One card with every time aligned to the first card's clock (its offset subtracted)."""

    card: str
    rank: int | None
    offset_ns: int  # subtracted from the card's own times
    step_number: np.ndarray  # int64 step numbers
    step_start: np.ndarray  # int64 aligned ns
    step_end: np.ndarray
    compute_start: np.ndarray  # int64 aligned ns, by start
    compute_end: np.ndarray
    compute_type: np.ndarray  # int32 ids of an OpTypeTable
    op_start: np.ndarray  # int64 aligned ns, communication operators by start
    op_end: np.ndarray
    op_name: list[str]
    transfers: Transfers | None


def empty_transfers() -> Transfers:
    """No transfer tasks."""
    return Transfers(np.zeros(0, np.int64), [], [], np.zeros(0, np.int64), np.zeros(0, np.int64))


def card_timeline(source, offset_ns: int, types: OpTypeTable) -> CardTimeline:
    """The timeline of a loaded card (``TraceSource``) aligned by ``offset_ns``."""
    a = source.analyse(NEEDED_FIELDS)
    store, cls = source.store, a.classification
    sl = store.slices
    names = store.strings

    comp = np.flatnonzero(cls.compute)
    comp = comp[np.argsort(sl.start[comp], kind="stable")]
    name_ids = sl.name[comp]
    uniq, inverse = np.unique(name_ids, return_inverse=True)
    type_ids = np.array(types.ids_of_names([names[i] if i >= 0 else "" for i in uniq.tolist()]), np.int32)

    ops = np.flatnonzero(cls.communication)
    ops = ops[np.lexsort((sl.end[ops], sl.start[ops]))]
    steps = a.steps or []
    return CardTimeline(
        card=store.card, rank=store.rank, offset_ns=int(offset_ns),
        step_number=np.array([w.step for w in steps], np.int64),
        step_start=np.array([w.start for w in steps], np.int64) - offset_ns,
        step_end=np.array([w.end for w in steps], np.int64) - offset_ns,
        compute_start=sl.start[comp] - offset_ns, compute_end=sl.end[comp] - offset_ns,
        compute_type=type_ids[inverse].astype(np.int32) if len(comp) else np.zeros(0, np.int32),
        op_start=sl.start[ops] - offset_ns, op_end=sl.end[ops] - offset_ns,
        op_name=[names[i] if i >= 0 else "" for i in sl.name[ops].tolist()],
        transfers=_transfers(a.communication, ops),
    )


def _transfers(comm, op_slices: np.ndarray) -> Transfers:
    """The card's transfer tasks with the row of their operator among ``op_slices``."""
    if comm is None or not len(comm.tasks):
        return empty_transfers()
    tasks = comm.tasks
    keep = tasks.transfer & (comm.task_op >= 0)
    rows = comm.task_op[keep]
    op_slice = comm.ops.slice[rows]
    order = np.argsort(op_slices)
    pos = np.searchsorted(op_slices[order], op_slice)
    pos = np.clip(pos, 0, max(len(order) - 1, 0))
    found = (len(order) > 0) & (op_slices[order][pos] == op_slice) if len(order) else np.zeros(len(rows), bool)
    mine = order[pos]
    src, dst = tasks.src[keep], tasks.dst[keep]
    transport = np.asarray(tasks.transports, dtype=object)[tasks.transport[keep]] if len(tasks.transports) \
        else np.full(int(keep.sum()), "", dtype=object)
    return Transfers(
        op=mine[found].astype(np.int64),
        link=[f"{s}-{d}" for s, d in zip(src[found].tolist(), dst[found].tolist(), strict=True)],
        transport=[str(t) for t in transport[found].tolist()],
        size=tasks.size[keep][found], dur=(tasks.end - tasks.start)[keep][found],
    )
