"""Where the Communication tab points on the timeline, and a card's communication wait (no Qt).

An operator row becomes a :class:`JumpTarget` on its own lane (so the jump opens the HCCL process
that holds its plane lanes) with its name selected; a matrix cell becomes the operator holding the
longest transfer of that cell's links; a collective across cards becomes its k-th call on a card.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.communication import CardCommunication
from timelineview.analysis.communication.names import POINT_TO_POINT
from timelineview.analysis.intervals import Intervals, subtract, union
from timelineview.model.store.trace_store import TraceStore
from timelineview.viewstate.jump_target import JumpTarget


def operator_target(number: int, store: TraceStore, cc: CardCommunication, row: int) -> JumpTarget:
    """Card ``number``'s communication operator ``row`` (a row of ``cc.ops``): its span, lane and name."""
    ops = cc.ops
    start = int(ops.start[row])
    end = start + max(int(ops.elapse[row]), 1)
    ln = int(store.slices.lane[int(ops.slice[row])])
    lane = f"{store.processes.name[int(store.lanes.process[ln])]}/{store.lanes.name[ln]}"
    return JumpTarget(number, start, end, lane=lane, name=ops.name[row] or None)


def link_operator(cc: CardCommunication, srcs: np.ndarray, dsts: np.ndarray, transport: str = "") -> int | None:
    """The operator row holding the longest transfer from a rank of ``srcs`` to one of ``dsts``
    (one transport, or any), or None."""
    t = cc.tasks
    mask = t.transfer & np.isin(t.src, srcs) & np.isin(t.dst, dsts) & (cc.task_op >= 0)
    if transport:
        codes = [k for k, name in enumerate(t.transports) if name == transport]
        mask &= np.isin(t.transport, codes)
    rows = np.flatnonzero(mask)
    if not len(rows):
        return None
    longest = rows[int(np.argmax(t.end[rows] - t.start[rows]))]
    return int(cc.task_op[longest])


def collective_row(cc: CardCommunication, name: str, occurrence: int) -> int | None:
    """The operator row of the ``occurrence``-th call (0-based) of collective ``name`` on the card."""
    if POINT_TO_POINT.search(name):
        return None
    rows = [i for i, n in enumerate(cc.ops.name) if n == name]
    return rows[occurrence] if 0 <= occurrence < len(rows) else None


def wait_intervals(cc: CardCommunication) -> Intervals:
    """The card's communication wait: the union of its wait tasks minus the union of its transfers."""
    t = cc.tasks
    waits = union(t.start[t.wait], t.end[t.wait])
    transfers = union(t.start[t.transfer], t.end[t.transfer])
    return subtract(waits, transfers)
