"""Who a rank talks to in each collective, over which transport, and how fast (synthetic ground truth).

Ranks sit in nodes of ``NODE_SIZE``. Within a node the copy engines move data over HCCS (``SDMA``);
between nodes the network does (``RDMA`` over RoCE). An all-reduce is a mesh inside the node plus,
with several nodes, a ring step to the same position in the next node; an all-gather is a ring
(next rank); a pipeline send goes to the next rank, a receive moves nothing itself (its sender
reports the transfer). A single generated card plays rank ``rank`` of one full node.
"""

from __future__ import annotations

from dataclasses import dataclass

from timelineview.producers import hccl
from timelineview.synthetic.workload import KIND_ALLGATHER, KIND_RECEIVE, KIND_SEND

NODE_SIZE = 8
HCCS_GBPS = 18.0  # nominal bandwidth of an SDMA transfer over HCCS (10^9 bytes/s = bytes/ns)
ROCE_GBPS = 11.0  # nominal bandwidth of an RDMA transfer over RoCE
INVALID_RANK = hccl.INVALID_RANK


@dataclass(frozen=True)
class Peer:
    """One link of a rank in a collective."""

    rank: int
    transport: str
    link_type: str
    gbps: float


def world_size(n_cards: int) -> int:
    """Ranks of the job: the cards written, or one node around a single card."""
    return n_cards if n_cards > 1 else NODE_SIZE


def link(src: int, dst: int) -> Peer:
    if src // NODE_SIZE == dst // NODE_SIZE:
        return Peer(dst, hccl.TRANSPORT_SDMA, hccl.LINK_HCCS, HCCS_GBPS)
    return Peer(dst, hccl.TRANSPORT_RDMA, hccl.LINK_ROCE, ROCE_GBPS)


def notify_peer(kind: int, rank: int, peers_: list[Peer], stages: bool, sender: int = -1) -> int:
    """The rank a plane's first notify names: its first peer; a pipeline stage's receive names its sender
    (``sender``, by default the previous stage), which is how the trace pairs a receive with a send."""
    if peers_:
        return peers_[0].rank
    if kind == KIND_RECEIVE and sender >= 0:
        return sender
    if stages and kind == KIND_RECEIVE and rank > 0:
        return rank - 1
    return INVALID_RANK


def peers(kind: int, rank: int, world: int) -> list[Peer]:
    """The ranks ``rank`` sends to in an operator of ``kind``."""
    if world < 2 or kind == KIND_RECEIVE:
        return []
    nxt = (rank + 1) % world
    if kind in (KIND_SEND, KIND_ALLGATHER):
        return [link(rank, nxt)]
    node = rank // NODE_SIZE
    members = range(node * NODE_SIZE, min(node * NODE_SIZE + NODE_SIZE, world))
    out = [link(rank, r) for r in members if r != rank]
    nodes = (world + NODE_SIZE - 1) // NODE_SIZE
    if nodes > 1:
        across = ((node + 1) % nodes) * NODE_SIZE + rank % NODE_SIZE
        if across < world and across // NODE_SIZE != node:
            out.append(link(rank, across))
    return out
