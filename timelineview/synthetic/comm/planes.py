"""The per-link tasks of each communication operator on the HCCL ``Plane N`` threads.

Per plane, in time order: a ``Notify_Record`` to its first peer, on plane 0 the on-chip helpers of
real traces (a ``Reduce_Inline`` with no destination rank and a local ``Memcpy`` to the rank
itself: neither is a transfer), a ``Notify_Wait`` until the slowest member has arrived, then for
each peer of the plane a short ``Notify_Wait`` (not before the first) and its transfers
(``Reduce_Inline`` then ``Memcpy`` for an all-reduce, one ``Memcpy`` otherwise). Every transfer of
an operator moves the same bytes, chosen so the slowest plane just fits its window; a transfer's
time is bytes / (nominal bandwidth of its link, with a ±5 % jitter, divided by the slow-link factor
on the planted slow link). Tasks never overlap on a plane and stay inside their operator. When the slow link
lengthens its operator (``StepWork.op_extra``), the bytes are those a healthy link fits in the window without
that extra, so the slow link moves what the healthy run moves and only takes longer.

Task names, transports and link types are the producers' (``producers.hccl``, which the reader reads them
by); the real-sample tests check those against real files.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.producers import hccl
from timelineview.synthetic.comm import topology as topo
from timelineview.synthetic.spec import CardSpec
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND, StepWork

PL_RECORD, PL_WAIT, PL_DATA, PL_LOCAL = range(4)
PLANE_STAGGER_NS = 300  # each plane starts a little after the previous one
RECORD_NS, LOCAL_REDUCE_NS, LOCAL_COPY_NS = 700, 600, 400
WAIT_AFTER_NS = 2_000  # the first wait starts this long after the plane's record
PEER_WAIT_NS, GAP_NS, EDGE_NS = 200, 50, 100
JITTER = 0.05  # largest relative bandwidth deviation of a transfer
FIT_MARGIN = 0.9  # transfers fill at most this share of a plane's transfer window
MIN_BYTES = 4096


@dataclass
class PlaneRows:
    """Columns of the plane tasks of one step (true ns)."""

    start: list[int] = field(default_factory=list)
    dur: list[int] = field(default_factory=list)
    plane: list[int] = field(default_factory=list)
    op: list[int] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)  # PL_*
    name: list[str] = field(default_factory=list)
    src: list[int] = field(default_factory=list)
    dst: list[int] = field(default_factory=list)
    transport: list[str] = field(default_factory=list)
    link_type: list[str] = field(default_factory=list)
    size: list[int] = field(default_factory=list)

    def add(self, start: int, dur: int, plane: int, op: int, kind: int, name: str, src: int, dst: int,
            transport: str, link_type: str, size: int) -> int:
        for col, v in ((self.start, start), (self.dur, dur), (self.plane, plane), (self.op, op),
                       (self.kind, kind), (self.name, name), (self.src, src), (self.dst, dst),
                       (self.transport, transport), (self.link_type, link_type), (self.size, size)):
            col.append(v)
        return start + dur


def _is_p2p(kind: int) -> bool:
    return kind in (KIND_RECEIVE, KIND_SEND)


def transfer_window_ns(xfer_ns: int, lead_ns: int, plane: int) -> int:
    """How long plane ``plane``'s transfers of an operator may take: its transfer part ``xfer_ns`` less the
    edges and the plane's stagger, and less what the plane's first wait still takes when the card arrived
    under ``WAIT_AFTER_NS`` before the operator's transfer part began (``lead_ns``: how long before; 0 for
    the member that arrived last)."""
    late = max(0, plane * PLANE_STAGGER_NS + WAIT_AFTER_NS + 20 - lead_ns)
    return xfer_ns - plane * PLANE_STAGGER_NS - 2 * EDGE_NS - late


def fit_bytes(planes: list[list[float]], windows: list[int], per_peer: int, margin: float = FIT_MARGIN) -> int:
    """The bytes of every transfer of an operator: the most that fits each plane's window (``planes``: per
    plane the bandwidths of its peers' links, bytes/ns), ``margin`` of what its waits between peers leave."""
    fits = []
    for gbps, window in zip(planes, windows, strict=True):
        if not gbps:
            continue
        fixed = len(gbps) * (PEER_WAIT_NS + GAP_NS) + len(gbps) * per_peer * GAP_NS
        fits.append((window - fixed) * margin / sum(per_peer / g for g in gbps))
    return max(int(min(fits)) if fits else MIN_BYTES, MIN_BYTES)


def plane_rows(step: StepWork, spec: CardSpec, n_cards: int) -> PlaneRows:
    """The plane tasks of every operator of ``step`` on card ``spec.rank``."""
    rng = np.random.default_rng([spec.seed, spec.rank, step.index, 31])
    world = topo.world_size(n_cards)
    rows = PlaneRows()
    for j, kind in enumerate(step.op_kind):
        a, b, x = int(step.op_start[j]), int(step.op_end[j]), int(step.op_xfer[j])
        peer = int(step.op_peer[j]) if step.op_peer is not None else -1
        extra = int(step.op_extra[j]) if step.op_extra is not None else 0
        _operator(rows, j, kind, a, b, max(b - x, a), spec, world, rng, peer, extra)
    return rows


def _operator(rows: PlaneRows, j: int, kind: int, a: int, b: int, wait_end: int, spec: CardSpec,
              world: int, rng: np.random.Generator, peer: int = -1, extra: int = 0) -> None:
    """The plane tasks of operator ``j``; ``peer``: a send's or receive's other rank (-1: the default);
    ``extra``: how much longer the slow link made the operator."""
    r = spec.rank
    if _is_p2p(kind) and peer >= 0:
        peers = [topo.link(r, peer)] if kind == KIND_SEND else []
    else:
        peers = topo.peers(kind, r, world)
    n_planes = 1 if _is_p2p(kind) else max(1, min(spec.planes, len(peers)))
    mine = [[p for i, p in enumerate(peers) if i % n_planes == q] for q in range(n_planes)]
    xfer_names = (hccl.REDUCE_INLINE_TASK, hccl.MEMCPY_TASK) \
        if kind not in (KIND_SEND, KIND_RECEIVE) and len(peers) > 1 else (hccl.MEMCPY_TASK,)
    healthy = [[p.gbps * rng.uniform(1 - JITTER, 1 + JITTER) for p in m] for m in mine]
    speed = [[g / _slow(spec, r, p.rank) for p, g in zip(m, gs, strict=True)]
             for m, gs in zip(mine, healthy, strict=True)]
    first_wait = [a + q * PLANE_STAGGER_NS + WAIT_AFTER_NS for q in range(n_planes)]
    xfer_from = [max(wait_end, w + 20) + EDGE_NS for w in first_wait]
    xfer_to = [b - EDGE_NS - q * PLANE_STAGGER_NS for q in range(n_planes)]
    windows = [e - s for s, e in zip(xfer_from, xfer_to, strict=True)]
    if extra > 0:  # what a healthy link fits without the extra (never more than the slow one's window holds)
        size = min(fit_bytes(healthy, [w - extra for w in windows], len(xfer_names)),
                   fit_bytes(speed, windows, len(xfer_names), margin=1.0))
    else:
        size = fit_bytes(speed, windows, len(xfer_names))
    for q in range(n_planes):
        t0 = a + q * PLANE_STAGGER_NS
        first = topo.notify_peer(kind, r, mine[q], spec.pipeline_stages, peer)
        rows.add(t0, RECORD_NS, q, j, PL_RECORD, hccl.NOTIFY_RECORD_TASK, r, first, hccl.TRANSPORT_SDMA,
                 hccl.INVALID_TYPE, 0)
        if q == 0 and not _is_p2p(kind):
            t = rows.add(t0 + RECORD_NS + 100, LOCAL_REDUCE_NS, q, j, PL_LOCAL, hccl.REDUCE_INLINE_TASK, r,
                         topo.INVALID_RANK, hccl.TRANSPORT_SDMA, hccl.LINK_ON_CHIP, 4)
            rows.add(t + 100, LOCAL_COPY_NS, q, j, PL_LOCAL, hccl.MEMCPY_TASK, r, r, hccl.TRANSPORT_SDMA,
                     hccl.LINK_ON_CHIP, size)
        w0 = first_wait[q]
        t = rows.add(w0, xfer_from[q] - EDGE_NS - w0, q, j, PL_WAIT, hccl.NOTIFY_WAIT_TASK, r, first,
                     hccl.TRANSPORT_LOCAL, hccl.INVALID_TYPE, 0) + EDGE_NS
        for k, (peer, gbps) in enumerate(zip(mine[q], speed[q], strict=True)):
            if k:
                t = rows.add(t, PEER_WAIT_NS, q, j, PL_WAIT, hccl.NOTIFY_WAIT_TASK, r, peer.rank,
                             hccl.TRANSPORT_LOCAL, hccl.INVALID_TYPE, 0) + GAP_NS
            for name in xfer_names:
                d = max(int(round(size / gbps)), 1)
                t = rows.add(t, d, q, j, PL_DATA, name, r, peer.rank, peer.transport, peer.link_type, size) + GAP_NS
        if t - GAP_NS > xfer_to[q]:
            raise AssertionError("plane tasks outgrew their operator")


def _slow(spec: CardSpec, src: int, dst: int) -> float:
    return spec.slow_link_factor if spec.slow_link == (src, dst) else 1.0


