"""What the critical path keeps of one card, small enough for a summary (metrics.md §10, §12): its
communication operators, its compute time and task count per step and op type, and its transfers per
operator and link.
The card's compute itself is its U(compute), which every card analysis and summary already keeps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.communication.names import POINT_TO_POINT
from timelineview.analysis.kernels import KernelTable
from timelineview.analysis.kernels.dense_ids import distinct_inverse

KEY = "critical_path_inputs"  # where a card summary keeps them
NO_RANK = 0xFFFF_FFFF  # what a notification names when it names no rank (an unsigned −1)


@dataclass
class CardPathInputs:
    """One card on its own clock (ns)."""

    op_start: np.ndarray  # int64, communication operators by start
    op_end: np.ndarray
    op_name: list[str]
    step_number: np.ndarray  # int64 rows of ``type_ns``
    type_names: list[str]
    type_ns: np.ndarray  # float64 (steps, types): Σ compute task time of the type ending in the step
    transfer_op: np.ndarray  # int64 row of op_*, one row per (operator, link)
    transfer_link: list[str]  # "src-dst"
    transfer_transport: list[str]
    transfer_bytes: np.ndarray  # float64
    transfer_ns: np.ndarray  # float64, Σ durations
    op_peer: np.ndarray | None = None  # int64 per operator: a send's or receive's peer rank (-1: none)
    type_count: np.ndarray | None = None  # int64 (steps, types): how many compute tasks ``type_ns`` sums (None:
    # a summary written before it was kept)

    def __post_init__(self) -> None:
        if self.op_peer is None:
            self.op_peer = np.full(len(self.op_start), -1, np.int64)

    def document(self) -> dict:
        """A JSON object of lists."""
        return {"op_start": self.op_start.tolist(), "op_end": self.op_end.tolist(), "op_name": self.op_name,
                "step_number": self.step_number.tolist(), "type_names": self.type_names,
                "type_ns": self.type_ns.tolist(), "transfer_op": self.transfer_op.tolist(),
                "transfer_link": self.transfer_link, "transfer_transport": self.transfer_transport,
                "transfer_bytes": self.transfer_bytes.tolist(), "transfer_ns": self.transfer_ns.tolist(),
                "op_peer": self.op_peer.tolist(),
                **({"type_count": self.type_count.tolist()} if self.type_count is not None else {})}

    @classmethod
    def from_document(cls, d: dict) -> CardPathInputs:
        """Back from ``document``; ``ValueError`` when it is not one."""
        try:
            out = cls(np.asarray(d["op_start"], np.int64), np.asarray(d["op_end"], np.int64),
                      [str(x) for x in d["op_name"]], np.asarray(d["step_number"], np.int64),
                      [str(x) for x in d["type_names"]],
                      np.asarray(d["type_ns"], np.float64).reshape(len(d["step_number"]), len(d["type_names"])),
                      np.asarray(d["transfer_op"], np.int64), [str(x) for x in d["transfer_link"]],
                      [str(x) for x in d["transfer_transport"]], np.asarray(d["transfer_bytes"], np.float64),
                      np.asarray(d["transfer_ns"], np.float64),
                      np.asarray(d["op_peer"], np.int64) if "op_peer" in d else None,
                      np.asarray(d["type_count"], np.int64).reshape(len(d["step_number"]), len(d["type_names"]))
                      if "type_count" in d else None)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not critical path inputs: {exc}") from exc
        n_ops, n_rows = len(out.op_start), len(out.transfer_op)
        if len(out.op_end) != n_ops or len(out.op_name) != n_ops or len(out.op_peer) != n_ops or not (
                len(out.transfer_link) == len(out.transfer_transport) == len(out.transfer_bytes)
                == len(out.transfer_ns) == n_rows) or (n_rows and (out.transfer_op.min() < 0
                                                                    or out.transfer_op.max() >= n_ops)):
            raise ValueError("not critical path inputs: columns differ in length")
        return out


def card_path_inputs(store, classification, steps, communication, kernels: KernelTable) -> CardPathInputs:
    """The inputs of one loaded card (its classification, step windows, communication analysis and compute
    tasks described): the op types are the card's own (metrics.md §7.1), those its operator tables show."""
    sl = store.slices
    names = store.strings
    ops = np.flatnonzero(classification.communication)
    ops = ops[np.lexsort((sl.end[ops], sl.start[ops]))]

    comp = kernels.slices
    # an op type is its group's: the distinct types of the groups, then each task's through its group
    uniq, group_inverse = distinct_inverse(kernels.groups.op_type)
    type_of_id = kernels.groups.text(uniq)
    type_names = sorted(set(type_of_id))
    group_type = np.array([type_names.index(t) for t in type_of_id], np.int64)[group_inverse]
    type_id = group_type[kernels.group] if len(comp) else np.zeros(0, np.int64)
    starts = np.array([w.start for w in steps], np.int64)
    ends = np.array([w.end for w in steps], np.int64)
    task_end = sl.end[comp]
    row = np.searchsorted(starts, task_end, "left") - 1  # a task ending at a boundary belongs to the step before
    ok = (row >= 0) & (task_end <= ends[np.maximum(row, 0)]) if len(starts) else np.zeros(len(comp), bool)
    dur = (task_end - sl.start[comp]).astype(np.float64)
    cell = row[ok] * max(len(type_names), 1) + type_id[ok]
    table_shape = (len(starts), max(len(type_names), 1))
    type_ns = np.bincount(cell, dur[ok], minlength=table_shape[0] * table_shape[1]).reshape(table_shape)
    type_count = np.bincount(cell, minlength=table_shape[0] * table_shape[1]).reshape(table_shape).astype(np.int64)
    return CardPathInputs(
        op_start=sl.start[ops].astype(np.int64), op_end=sl.end[ops].astype(np.int64),
        op_name=[names[i] if i >= 0 else "" for i in sl.name[ops].tolist()],
        step_number=np.array([w.step for w in steps], np.int64), type_names=type_names or [""],
        type_ns=type_ns, **_transfers(communication, ops), op_peer=_peers(communication, ops), type_count=type_count)


def _peers(comm, op_slices: np.ndarray) -> np.ndarray:
    """Per operator among ``op_slices``, the rank a point-to-point operator exchanges with: where a
    send's transfers go, or whom a receive's notifications wait for (its sender reports the transfer);
    -1 for a collective or when the trace does not tell."""
    out = np.full(len(op_slices), -1, np.int64)
    if comm is None or not len(comm.tasks) or not len(op_slices):
        return out
    tasks = comm.tasks
    p2p = np.array([bool(POINT_TO_POINT.search(n)) for n in comm.ops.name] + [False], bool)  # last: op -1
    cand = np.flatnonzero(p2p[comm.task_op] & (tasks.transfer | tasks.wait) & (tasks.dst >= 0)
                          & (tasks.dst < NO_RANK)
                          & (tasks.dst != (comm.rank if comm.rank is not None else -1)))
    if not len(cand):
        return out
    # a send's transfers first, else a receive's waits; the first such task of each operator names the peer
    cand = cand[np.lexsort((tasks.start[cand], ~tasks.transfer[cand], comm.task_op[cand]))]
    ops, first = np.unique(comm.task_op[cand], return_index=True)
    order = np.argsort(op_slices)
    op_slice = comm.ops.slice[ops]
    pos = np.minimum(np.searchsorted(op_slices[order], op_slice), len(order) - 1)
    found = op_slices[order][pos] == op_slice
    out[order[pos[found]]] = tasks.dst[cand[first]][found]
    return out


def _transfers(comm, op_slices: np.ndarray) -> dict:
    """The card's transfer tasks summed per (operator row among ``op_slices``, link)."""
    empty = {"transfer_op": np.zeros(0, np.int64), "transfer_link": [], "transfer_transport": [],
             "transfer_bytes": np.zeros(0), "transfer_ns": np.zeros(0)}
    if comm is None or not len(comm.tasks) or not len(op_slices):
        return empty
    tasks = comm.tasks
    keep = np.flatnonzero(tasks.transfer & (comm.task_op >= 0))
    order = np.argsort(op_slices)
    op_slice = comm.ops.slice[comm.task_op[keep]]
    pos = np.minimum(np.searchsorted(op_slices[order], op_slice), len(order) - 1)
    found = op_slices[order][pos] == op_slice
    keep, mine = keep[found], order[pos[found]]
    if not len(keep):
        return empty
    transports = list(tasks.transports) + [""]  # a missing transport (-1) reads ""
    cols = np.stack([mine, tasks.src[keep], tasks.dst[keep], tasks.transport[keep].astype(np.int64)], axis=1)
    uniq, inv = np.unique(cols, axis=0, return_inverse=True)
    inv = inv.ravel()
    return {"transfer_op": uniq[:, 0].astype(np.int64),
            "transfer_link": [f"{a}-{b}" for a, b in uniq[:, 1:3].tolist()],
            "transfer_transport": [transports[t] for t in uniq[:, 3].tolist()],
            "transfer_bytes": np.bincount(inv, tasks.size[keep].astype(np.float64), minlength=len(uniq)),
            "transfer_ns": np.bincount(inv, (tasks.end - tasks.start)[keep].astype(np.float64), minlength=len(uniq))}
