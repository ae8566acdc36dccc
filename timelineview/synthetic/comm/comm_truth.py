"""Ground truth of the communication written for a card: every operator's times and every link.

Computed from what the generator knows it wrote (which plane task is a transfer, which a wait),
not from the file's args.
"""

from __future__ import annotations

import numpy as np

from timelineview.producers import hccl
from timelineview.synthetic.comm.planes import PL_DATA, PL_WAIT
from timelineview.synthetic.intervals import union

SDMA = hccl.TRANSPORT_SDMA  # the copy-engine transport, the only one whose transit the producer sums by duration


def _covered(starts: np.ndarray, ends: np.ndarray) -> int:
    s, e = union(starts, ends)
    return int((e - s).sum())


def _producer_figures(ct, mine: np.ndarray, elapse: int) -> dict | None:
    """The producer's figures of one operator (metrics.md §6): on its main plane (the lowest plane
    holding one of its waits), transit = Σ its copy-engine transfers, wait = Σ its waits, sync = the
    waits before its first transfer, idle = elapse − transit − wait. None without a wait, or when the
    main plane carries network transfers (the producer's RDMA rule is not modelled here)."""
    wait = mine & (ct.pl_kind == PL_WAIT)
    if not wait.any():
        return None
    plane = int(ct.pl_plane[wait].min())
    on = mine & (ct.pl_plane == plane)
    data = on & (ct.pl_kind == PL_DATA)
    transports = {ct.pl_transport[i] for i in np.flatnonzero(data).tolist()}
    if transports - {SDMA}:
        return None
    on_wait = on & (ct.pl_kind == PL_WAIT)
    first = int(ct.pl_start[data].min()) if data.any() else None
    transit, waited = int(ct.pl_dur[data].sum()), int(ct.pl_dur[on_wait].sum())
    before = on_wait & (ct.pl_start < first) if first is not None else on_wait
    return {"plane": plane, "transit_ns": transit, "wait_ns": waited,
            "synchronization_ns": int(ct.pl_dur[before].sum()), "idle_ns": elapse - transit - waited}


class CommTruth:
    """Collects operators and links step by step."""

    def __init__(self) -> None:
        self.ops: list[dict] = []
        self._links: dict[tuple[int, int, str, str], list[int]] = {}

    def add_step(self, ct, names: list[str], op_start: np.ndarray, op_end: np.ndarray, shift: int) -> None:
        """``ct``: the step's ``CommTasks`` (true ns); ``names``: operator names; ``shift``: file - true."""
        start, end = ct.pl_start + shift, ct.pl_start + ct.pl_dur + shift
        xfer, wait = ct.pl_kind == PL_DATA, ct.pl_kind == PL_WAIT
        for j, name in enumerate(names):
            a, b = int(op_start[j]) + shift, int(op_end[j]) + shift
            mine = ct.pl_op == j
            x, w = mine & xfer, mine & wait
            transit = _covered(start[x], end[x])
            busy = _covered(start[x | w], end[x | w])
            first = int(start[x].min()) if x.any() else b
            sync = _covered(start[w], np.minimum(end[w], first))
            self.ops.append({"name": name, "start_ns": a, "end_ns": b, "transit_ns": transit,
                             "wait_ns": busy - transit, "synchronization_ns": sync, "idle_ns": (b - a) - busy,
                             "producer": _producer_figures(ct, mine, b - a)})
        for i in np.flatnonzero(xfer).tolist():
            key = (int(ct.pl_src[i]), int(ct.pl_dst[i]), ct.pl_transport[i], ct.pl_link_type[i])
            row = self._links.setdefault(key, [0, 0, 0])
            row[0] += int(ct.pl_size[i])
            row[1] += int(ct.pl_dur[i])
            row[2] += 1

    def links(self) -> list[dict]:
        return [{"src": k[0], "dst": k[1], "transport": k[2], "link_type": k[3], "bytes": v[0], "transit_ns": v[1],
                 "count": v[2]} for k, v in sorted(self._links.items())]
