"""How much longer a collective takes when one of its links is slow (a planted slow link that costs time).

The transfers of an operator move the same bytes on every link, the bytes a healthy operator fits in its
planes' windows (``planes.fit_bytes``, at the links' nominal bandwidths); the slow link's transfers take
``slow_link_factor`` times longer, so the plane that carries them finishes later by the extra transfer time,
and the collective ends that much later on every member. Without this, the generator fits fewer bytes into
the same window and a slow link costs no time.
"""

from __future__ import annotations

from collections.abc import Sequence

from timelineview.synthetic.comm import topology as topo
from timelineview.synthetic.comm.planes import FIT_MARGIN, fit_bytes, transfer_window_ns
from timelineview.synthetic.spec import CardSpec
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND

__all__ = ["FIT_MARGIN", "pair_extra_ns", "slow_link_extra_ns"]


def _delaying(specs: Sequence[CardSpec]) -> CardSpec | None:
    spec = next((s for s in specs if s.slow_link is not None and s.slow_link_delays), None)
    return spec if spec is not None and spec.slow_link_factor > 1.0 else None


def _extra(spec: CardSpec, planes: list[list[topo.Peer]], slow: topo.Peer, per_peer: int, xfer_ns: int,
           lead_ns: int) -> int:
    """The slow link's extra time for the bytes the healthy operator's planes fit."""
    windows = [transfer_window_ns(xfer_ns, lead_ns, q) for q in range(len(planes))]
    size = fit_bytes([[p.gbps for p in peers] for peers in planes], windows, per_peer)
    return int(round(size * per_peer * (spec.slow_link_factor - 1.0) / slow.gbps))


def slow_link_extra_ns(specs: Sequence[CardSpec], kind: int, xfer_ns: int, lead_ns: int = 0) -> int:
    """Extra ns an operator of ``kind`` with transfer time ``xfer_ns`` takes because of the slow link;
    ``lead_ns``: how long before the operator's transfer part the slow link's source card arrived."""
    spec = _delaying(specs)
    if spec is None:
        return 0
    src, dst = spec.slow_link
    world = topo.world_size(len(specs))
    peers = topo.peers(kind, src, world)
    ranks = [p.rank for p in peers]
    if dst not in ranks:
        return 0
    n_planes = 1 if kind in (KIND_SEND, KIND_RECEIVE) else max(1, min(spec.planes, len(peers)))
    planes = [[p for i, p in enumerate(peers) if i % n_planes == q] for q in range(n_planes)]
    per_peer = 1 if kind in (KIND_SEND, KIND_RECEIVE) or len(peers) <= 1 else 2  # Reduce_Inline + Memcpy
    return _extra(spec, planes, peers[ranks.index(dst)], per_peer, xfer_ns, lead_ns)


def pair_extra_ns(specs: Sequence[CardSpec], src: int, dst: int, xfer_ns: int, lead_ns: int = 0) -> int:
    """Extra ns the send of rank ``src`` to rank ``dst`` (one pair of a pipeline of stages, either way) takes
    when ``src``→``dst`` is the planted slow link: only that pair is slower, the other pairs keep ``xfer_ns``.
    ``lead_ns``: how long before the pair's transfer part the sender was launched."""
    spec = _delaying(specs)
    if spec is None or spec.slow_link != (src, dst):
        return 0
    link = topo.link(src, dst)
    return _extra(spec, [[link]], link, 1, xfer_ns, lead_ns)
