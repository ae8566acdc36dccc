"""How much longer a collective takes when one of its links is slow (a planted slow link that costs time).

The transfers of an operator move the same bytes on every link; the slow link's transfers take
``slow_link_factor`` times longer, so the plane that carries them finishes later by the extra transfer
time, and the collective ends that much later on every member. Without this, the generator fits fewer
bytes into the same window and a slow link costs no time.
"""

from __future__ import annotations

from collections.abc import Sequence

from timelineview.synthetic.comm import topology as topo
from timelineview.synthetic.spec import CardSpec
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND

# Share of a plane's transfer window the transfers fill (planes.FIT_MARGIN, kept equal).
FIT_MARGIN = 0.9


def slow_link_extra_ns(specs: Sequence[CardSpec], kind: int, xfer_ns: int) -> int:
    """Extra ns an operator of ``kind`` with transfer time ``xfer_ns`` takes because of the slow link."""
    spec = next((s for s in specs if s.slow_link is not None and s.slow_link_delays), None)
    if spec is None or spec.slow_link_factor <= 1.0:
        return 0
    src, dst = spec.slow_link
    world = topo.world_size(len(specs))
    peers = topo.peers(kind, src, world)
    ranks = [p.rank for p in peers]
    if dst not in ranks:
        return 0
    n_planes = 1 if kind in (KIND_SEND, KIND_RECEIVE) else max(1, min(spec.planes, len(peers)))
    at = ranks.index(dst)
    plane = [p for i, p in enumerate(peers) if i % n_planes == at % n_planes]
    per_peer = 1 if kind in (KIND_SEND, KIND_RECEIVE) or len(peers) <= 1 else 2  # Reduce_Inline + Memcpy
    inverse = sum(per_peer / p.gbps for p in plane)
    size = FIT_MARGIN * xfer_ns / inverse  # bytes of each transfer, as the healthy plane fits them
    return int(round(size * per_peer * (spec.slow_link_factor - 1.0) / peers[at].gbps))


def pair_extra_ns(specs: Sequence[CardSpec], src: int, dst: int, xfer_ns: int) -> int:
    """Extra ns the send of rank ``src`` to rank ``dst`` (one pair of a pipeline of stages) takes when
    ``src``→``dst`` is the planted slow link: only that pair is slower, the other pairs keep ``xfer_ns``."""
    if not any(s.slow_link == (src, dst) for s in specs):
        return 0
    return slow_link_extra_ns(specs, KIND_SEND, xfer_ns)
