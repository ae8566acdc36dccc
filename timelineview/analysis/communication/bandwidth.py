"""Per communication operator, the producer's bandwidth per transport and its packet sizes (metrics.md §6).

The Ascend producers (``communication.json``'s "Communication Bandwidth Info", the
``CommAnalyzerBandwidth`` table of ``analysis.db``) measure each operator's transfers, on every
plane, under one key per transport: ``RDMA`` for network transfers, and the link type (``HCCS``,
``PCIE``, ``SIO``) for copy-engine transfers, with ``SDMA`` the sum of those link types. Under each
key: the bytes moved, the summed transfer durations, bytes / time, the share of large packets and
the packet sizes (each distinct transfer size with how many transfers had it and their summed
duration). The transfers are the §6 transfer tasks (bytes between two different real ranks), so an
on-chip copy counts in no transport: it is a ``LOCAL`` link (``links.local_links``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.communication import names as nm
from timelineview.analysis.communication.plane_tasks import PlaneTasks

# The producer's key for the copy-engine total, over the link types below.
SDMA_TOTAL = nm.TRANSPORT_SDMA
# A packet at least this size counts as large (the producer's large-packet ratio). The samples hold
# no packet near either size (their ratio is 0 on both sides), so these are not checked against it.
LARGE_PACKET_BYTES = {nm.TRANSPORT_RDMA: 1_000_000, SDMA_TOTAL: 32_000_000}


@dataclass
class OperatorBandwidth:
    """One row per (operator, transport key) with transfers; ``packets`` holds the size distribution."""

    op: np.ndarray  # int64 operator row (of ``CommOps``)
    transport: list[str]  # RDMA, HCCS, PCIE, SIO, …, or SDMA (the copy-engine total)
    bytes: np.ndarray  # int64
    transit: np.ndarray  # int64 ns: Σ transfer durations
    count: np.ndarray  # int64 transfers
    large: np.ndarray  # int64 transfers of a large packet
    packets: PacketSizes

    def __len__(self) -> int:
        return len(self.op)

    @property
    def bandwidth_gbps(self) -> np.ndarray:
        """bytes / transit ns (10⁹ bytes per second), NaN where transit is 0."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.transit > 0, self.bytes / np.maximum(self.transit, 1), np.nan)

    @property
    def large_packet_ratio(self) -> np.ndarray:
        """Large transfers / transfers (0 for none)."""
        return np.where(self.count > 0, self.large / np.maximum(self.count, 1), 0.0)

    def rows_of(self, op: int) -> np.ndarray:
        return np.flatnonzero(self.op == op)


@dataclass
class PacketSizes:
    """One row per (bandwidth row, transfer size): how many transfers had that size and their time."""

    row: np.ndarray  # int64 row of ``OperatorBandwidth``
    size: np.ndarray  # int64 bytes
    count: np.ndarray  # int64
    transit: np.ndarray  # int64 ns


def _large_threshold(key: str) -> int:
    return LARGE_PACKET_BYTES.get(key, LARGE_PACKET_BYTES[SDMA_TOTAL])


def operator_bandwidth(tasks: PlaneTasks, task_op: np.ndarray) -> OperatorBandwidth:
    """The producer's bandwidth rows of each operator, from its transfer tasks (``task_op``: operator
    row per task, -1 for none)."""
    on_chip = np.array([lt == nm.LINK_ON_CHIP for lt in tasks.link_types], dtype=bool)
    local = on_chip[tasks.link_type] if len(tasks.link_types) else np.zeros(len(tasks), bool)
    x = np.flatnonzero(tasks.transfer & (task_op >= 0) & ~local)
    transport = [tasks.transports[i] for i in tasks.transport[x].tolist()]
    link = [tasks.link_types[i] for i in tasks.link_type[x].tolist()]
    rdma = nm.TRANSPORT_RDMA
    # The producer's key: RDMA as it is; a copy-engine transfer under its link type.
    key_of = [t if t == rdma else (lt or t) for t, lt in zip(transport, link, strict=True)]
    in_sdma = [t == nm.TRANSPORT_SDMA and bool(lt) for t, lt in zip(transport, link, strict=True)]
    op = task_op[x]
    size = tasks.size[x]
    dur = tasks.end[x] - tasks.start[x]
    # One pass per key family: each transfer under its own key, and an SDMA link type's transfers
    # once more under the SDMA total (which carries no size distribution of its own).
    keys = key_of + [SDMA_TOTAL] * sum(in_sdma)
    extra = np.flatnonzero(np.array(in_sdma, dtype=bool)) if len(in_sdma) else np.zeros(0, np.int64)
    all_op = np.concatenate((op, op[extra]))
    all_size = np.concatenate((size, size[extra]))
    all_dur = np.concatenate((dur, dur[extra]))
    with_sizes = np.concatenate((np.ones(len(x), bool), np.zeros(len(extra), bool)))
    names = sorted(set(keys))
    code = np.array([names.index(k) for k in keys], dtype=np.int64)
    pair = all_op * max(len(names), 1) + code
    uniq, inv = np.unique(pair, return_inverse=True)
    inv = inv.reshape(-1)
    n = len(uniq)
    threshold = np.array([_large_threshold(k) for k in names], dtype=np.int64)
    large = all_size >= threshold[code] if len(code) else np.zeros(0, bool)
    out_op = (uniq // max(len(names), 1)).astype(np.int64)
    out_key = [names[int(c)] for c in (uniq % max(len(names), 1)).tolist()]
    # Size distribution over the transfers counted under their own key.
    s_rows, s_size = inv[with_sizes], all_size[with_sizes]
    dist, dist_inv = np.unique(np.stack((s_rows, s_size), axis=1), axis=0, return_inverse=True) \
        if len(s_rows) else (np.zeros((0, 2), np.int64), np.zeros(0, np.int64))
    dist_inv = dist_inv.reshape(-1)
    packets = PacketSizes(
        row=dist[:, 0].astype(np.int64), size=dist[:, 1].astype(np.int64),
        count=np.bincount(dist_inv, minlength=len(dist)).astype(np.int64),
        transit=np.bincount(dist_inv, weights=all_dur[with_sizes], minlength=len(dist)).round().astype(np.int64),
    )
    return OperatorBandwidth(
        op=out_op, transport=out_key,
        bytes=np.bincount(inv, weights=all_size, minlength=n).round().astype(np.int64),
        transit=np.bincount(inv, weights=all_dur, minlength=n).round().astype(np.int64),
        count=np.bincount(inv, minlength=n).astype(np.int64),
        large=np.bincount(inv, weights=large, minlength=n).round().astype(np.int64),
        packets=packets,
    )
