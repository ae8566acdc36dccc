"""Ground truth of the communication written for a card: every operator's times and every link.

Computed from what the generator knows it wrote (which plane task is a transfer, which a wait),
not from the file's args.
"""

from __future__ import annotations

import numpy as np

from timelineview.synthetic.intervals import union
from timelineview.synthetic.planes import PL_DATA, PL_WAIT


def _covered(starts: np.ndarray, ends: np.ndarray) -> int:
    s, e = union(starts, ends)
    return int((e - s).sum())


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
                             "wait_ns": busy - transit, "synchronization_ns": sync, "idle_ns": (b - a) - busy})
        for i in np.flatnonzero(xfer).tolist():
            key = (int(ct.pl_src[i]), int(ct.pl_dst[i]), ct.pl_transport[i], ct.pl_link_type[i])
            row = self._links.setdefault(key, [0, 0, 0])
            row[0] += int(ct.pl_size[i])
            row[1] += int(ct.pl_dur[i])
            row[2] += 1

    def links(self) -> list[dict]:
        return [{"src": k[0], "dst": k[1], "transport": k[2], "link_type": k[3], "bytes": v[0], "transit_ns": v[1],
                 "count": v[2]} for k, v in sorted(self._links.items())]
