"""Scanner kernels for its hash tables: a task's strings, its lanes and counter series, and metadata copies.

All are open addressing over arrays the caller owns (the compiled code allocates
nothing): a lookup returns the row found, or ``-1 - slot`` for the free slot where the
caller inserts it once it has made room.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.decode.scan.scan_columns import SPAN_END, SPAN_START
from timelineview.model.decode.scan.scan_jit import byte_at, jit

FNV_OFFSET, FNV_PRIME = 14695981039346656037, 1099511628211  # 64-bit FNV-1a
LANE_MIX_PID, LANE_MIX_TID = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F  # odd multipliers spreading the ids
LANE_HASH_SHIFT = 17  # the mixed bits kept: the high ones
MAX_COPY_PROBES = 64  # a crowded metadata table finds fewer copies rather than probing on
TOKEN_KINDS = 4  # ``scan_codes.TOK_*`` values fit below this


@jit
def string_hash(buf, a, b):
    """FNV-1a of the bytes [a, b)."""
    h = np.uint64(FNV_OFFSET)
    for k in range(a, b):
        h = (h ^ np.uint64(byte_at(buf, k))) * np.uint64(FNV_PRIME)
    return h


@jit
def same_bytes(buf, a, b, n):
    """The n bytes at a and at b are the same."""
    for k in range(n):
        if byte_at(buf, a + k) != byte_at(buf, b + k):
            return False
    return True


@jit
def find_string(buf, a, b, h, table, spans):
    """Id of the string with content bytes [a, b) (hash h), or -1 - its free slot.

    ``table`` rows are (hash >> 1, id + 1) in open addressing; ``spans`` rows SPAN_*.
    """
    mask = len(table) - 1
    slot = np.int64(h & np.uint64(mask))
    hs = np.int64(h >> np.uint64(1))
    while True:
        sid1 = table[slot, 1]
        if sid1 == 0:
            break
        if table[slot, 0] == hs:
            s = sid1 - 1
            sa, sb = spans[s, SPAN_START], spans[s, SPAN_END]
            if sb - sa == b - a and same_bytes(buf, sa, a, b - a):
                return s
        slot = (slot + 1) & mask
    return -1 - slot  # not found: the free slot, encoded


@jit
def rehash_strings(buf, spans, count, table):
    """Fill the empty string ``table`` with the first ``count`` strings of ``spans``."""
    mask = len(table) - 1
    for s in range(count):
        h = string_hash(buf, spans[s, SPAN_START], spans[s, SPAN_END])
        slot = np.int64(h & np.uint64(mask))
        while table[slot, 1] != 0:
            slot = (slot + 1) & mask
        table[slot, 0] = np.int64(h >> np.uint64(1))
        table[slot, 1] = s + 1


@jit
def lane_hash(pk, pv, tk, tv):
    h = np.uint64(pv) * np.uint64(LANE_MIX_PID) ^ np.uint64(tv) * np.uint64(LANE_MIX_TID)
    return (h ^ np.uint64(pk * TOKEN_KINDS + tk)) >> np.uint64(LANE_HASH_SHIFT)


@jit
def find_lane(pk, pv, tk, tv, table, rows):
    """Local id of the (pid, tid) token pair, or -1 - its free slot.

    ``table`` slots hold id + 1 (0 = free); ``rows`` are (pid kind, pid value, tid kind, tid value).
    Counter series use the same table, keyed (pid kind, pid value, name id, key id).
    """
    mask = len(table) - 1
    slot = np.int64(lane_hash(pk, pv, tk, tv) & np.uint64(mask))
    while table[slot] != 0:
        s = table[slot] - 1
        if rows[s, 0] == pk and rows[s, 1] == pv and rows[s, 2] == tk and rows[s, 3] == tv:
            return s
        slot = (slot + 1) & mask
    return -1 - slot


@jit
def insert_lane(pk, pv, tk, tv, slot, table, rows, count):
    """Add a new lane at the free ``slot`` (the caller made room): its id."""
    rows[count, 0] = pk
    rows[count, 1] = pv
    rows[count, 2] = tk
    rows[count, 3] = tv
    table[slot] = count + 1
    return count


@jit
def rehash_lanes(rows, count, table):
    """Fill the empty lane ``table`` with the first ``count`` lanes of ``rows``."""
    mask = len(table) - 1
    for s in range(count):
        slot = np.int64(lane_hash(rows[s, 0], rows[s, 1], rows[s, 2], rows[s, 3]) & np.uint64(mask))
        while table[slot] != 0:
            slot = (slot + 1) & mask
        table[slot] = s + 1


@jit
def earlier_copy(buf, a, b, j, gen, table, e_start, e_end):
    """Row of an earlier element of this range (``gen``) with the same bytes as [a, b), or
    -1; element j takes its place in ``table`` (rows: hash, row, gen). Probes are capped:
    a crowded table only finds fewer copies."""
    h = string_hash(buf, a, b)
    mask = len(table) - 1
    slot = np.int64(h & np.uint64(mask))
    hs = np.int64(h >> np.uint64(1))
    for _ in range(MAX_COPY_PROBES):
        if table[slot, 2] != gen:  # free for this range
            table[slot, 0] = hs
            table[slot, 1] = j
            table[slot, 2] = gen
            return -1
        if table[slot, 0] == hs:
            k = table[slot, 1]
            if e_end[k] - e_start[k] == b - a and same_bytes(buf, e_start[k], a, b - a):
                table[slot, 1] = j
                return k
        slot = (slot + 1) & mask
    return -1
