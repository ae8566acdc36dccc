"""Which allocations are alive at an instant, in O(log n + k): a centred interval tree laid out in arrays.

A block is alive at t when it was allocated at or before t and released after t (or never):
[allocated, released) contains t. Time is first turned into ranks (the sorted distinct allocation and
release times), so a block covers the ranks [a, b] and an instant one rank. The ranks are the in-order
positions of a complete binary tree; each block belongs to the highest node inside [a, b] (the rank
in it with the most trailing zero bits), which is an ancestor of every rank the block covers. So the
blocks alive at t all hang on the path from the root to t's rank: ⌈log₂ n⌉ + 1 nodes. At a node left
of t's rank every block starts at or before the node; those alive end at or after t's rank and, kept
by end (latest first), are a prefix. Right of it, kept by start, a prefix too. Each prefix is found by
galloping (doubling, then a binary search over the last doubling): O(1 + log k) per node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _bit_length(x: np.ndarray) -> np.ndarray:
    """bit_length of each positive int (exact below 2^53)."""
    return np.frexp(x.astype(np.float64))[1].astype(np.int64)


def _sorted_distinct(x: np.ndarray) -> np.ndarray:
    """``np.unique`` by a sort and a mask (numpy's own takes seconds on millions of int64)."""
    x = np.sort(x)
    keep = np.ones(len(x), dtype=bool)
    keep[1:] = x[1:] != x[:-1]
    return x[keep]


def _prefix(values: np.ndarray, lo: int, hi: int, limit: int) -> int:
    """How many of ``values[lo:hi]`` (ascending) are ≤ ``limit``, by galloping: O(1 + log answer)."""
    if lo >= hi or values[lo] > limit:
        return 0
    step = 1
    while lo + step < hi and values[lo + step] <= limit:
        step *= 2
    a, b = lo + step // 2, min(lo + step, hi)  # values[a] ≤ limit; the first above it lies in (a, b]
    return a - lo + int(np.searchsorted(values[a:b], limit, side="right"))


@dataclass
class AliveIndex:
    """Blocks by node of the rank tree: ``by_start``/``by_end`` list each node's blocks by start
    rank (earliest first) and by end rank (latest first, kept negated so both lists ascend)."""

    times: np.ndarray  # sorted distinct times (ns): rank r is times[r - 1]
    levels: int  # the tree's height: ranks 1 .. 2^levels - 1
    node_ptr: np.ndarray  # int64, blocks of node c are positions node_ptr[c]:node_ptr[c + 1]
    start_order: np.ndarray  # block numbers, by node then start rank
    start_rank: np.ndarray  # their start ranks
    end_order: np.ndarray  # block numbers, by node then end rank, latest first
    neg_end_rank: np.ndarray  # minus their end ranks (ascending)

    @classmethod
    def build(cls, allocated_ns: np.ndarray, released_ns: np.ndarray) -> AliveIndex:
        """The index of blocks [allocated_ns, released_ns) (a never-released block ends at int64 max;
        a block released when allocated is alive at no instant and is left out)."""
        allocated_ns = np.asarray(allocated_ns, dtype=np.int64)
        released_ns = np.asarray(released_ns, dtype=np.int64)
        times = _sorted_distinct(np.concatenate([allocated_ns, released_ns]))
        levels = int(_bit_length(np.array([len(times)]))[0]) if len(times) else 1
        a = np.searchsorted(times, allocated_ns) + 1  # rank of the allocation
        b = np.searchsorted(times, released_ns)  # the last rank before the release
        blocks = np.flatnonzero(b >= a)
        a, b = a[blocks], b[blocks]
        h = _bit_length((a - 1) ^ b) - 1
        node = (b >> h) << h  # the rank of [a, b] with the most trailing zeros
        n_nodes = 1 << levels
        by_start = np.lexsort((a, node))
        by_end = np.lexsort((-b, node))
        node_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(node, minlength=n_nodes), out=node_ptr[1:])
        return cls(times, levels, node_ptr, blocks[by_start], a[by_start], blocks[by_end], -b[by_end])

    def rank(self, t: int) -> int:
        """The rank of instant ``t``: that of the last time at or before it (0: before every block)."""
        return int(np.searchsorted(self.times, t, side="right"))

    def alive_at(self, t: int) -> np.ndarray:
        """The numbers of the blocks alive at ``t`` (allocated at or before, released after or never), unordered."""
        r = self.rank(t)
        if r == 0 or r >= (1 << self.levels):
            return np.zeros(0, dtype=np.int64)
        found = []
        for level in range(self.levels - 1, -1, -1):
            node = ((r >> (level + 1)) << (level + 1)) | (1 << level)
            lo, hi = int(self.node_ptr[node]), int(self.node_ptr[node + 1])
            if lo == hi:
                continue
            if r == node:
                found.append(self.start_order[lo:hi])
            elif r < node:  # every block starts at or before node: alive if it starts at or before r
                k = _prefix(self.start_rank, lo, hi, r)
                found.append(self.start_order[lo:lo + k])
            else:  # every block ends at or after node: alive if it ends at or after r
                k = _prefix(self.neg_end_rank, lo, hi, -r)
                found.append(self.end_order[lo:lo + k])
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
