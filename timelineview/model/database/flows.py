"""Flows from connection ids: a host call and the device task (or framework range) sharing one.

``connectionCats(connectionId, cat)`` says which kinds of link a connection id carries:
``HostToDevice`` (a CANN call → its device tasks), ``async_npu`` (a framework op → its device
tasks), and framework-to-framework links (``async_task_queue``: enqueue → dequeue; ``fwdbwd``:
forward → backward), drawn from the earliest range of the id to each later one. Without the
table, CANN → device links are ``HostToDevice`` and framework → device links ``async_npu``.
"""

from __future__ import annotations

import sqlite3
from functools import partial

import numpy as np

from timelineview.model.database.keys import sorted_unique
from timelineview.model.database.slices.key_joins import join_all
from timelineview.model.database.slices.slice_parts import Endpoints
from timelineview.model.database.sqlite.pages import narrowed
from timelineview.model.database.sqlite.tables import Schema, read_columns
from timelineview.model.database.strings import CardStrings
from timelineview.model.store.interval_index import slice_index_dtype
from timelineview.model.store.trace_store import FlowTable, LazyFlowTable
from timelineview.producers.cann_tasks import HOST_TO_DEVICE_FLOW
from timelineview.producers.torch_npu import LAUNCH_FLOW

CATS_TABLE = "connectionCats"
HOST_TO_DEVICE = HOST_TO_DEVICE_FLOW
ASYNC_NPU = LAUNCH_FLOW
SIDES_OF_CAT = {HOST_TO_DEVICE: ("host", "device"), ASYNC_NPU: ("framework", "device")}
FRAMEWORK_SIDES = ("framework", "framework")  # any other category


def _pairs(src_cid, src_slice, dst_cid, dst_slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (src, dst) with the same connection id: (cid, src slice, dst slice)."""
    order = np.argsort(dst_cid, kind="stable")
    d_cid, d_slice = dst_cid[order], dst_slice[order]
    rows, counts = join_all(d_cid, src_cid)
    return np.repeat(src_cid, counts), np.repeat(src_slice, counts), d_slice[rows]


def _first_to_rest(cid: np.ndarray, sl: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Within each connection id, the earliest range → each later one."""
    if not len(cid):
        z = np.zeros(0, np.int64)
        return z, z, z
    order = np.lexsort((sl, start[sl], cid))
    c, s = cid[order], sl[order]
    head = np.ones(len(c), bool)
    head[1:] = c[1:] != c[:-1]
    first_of = s[np.maximum.accumulate(np.where(head, np.arange(len(c)), 0))]
    rest = ~head
    return c[rest], first_of[rest], s[rest]


def _ids_by_cat(conn: sqlite3.Connection) -> dict[str, np.ndarray]:
    """{category: sorted connection ids}, one ``group_concat`` per category (no Python row per id; faster
    than SQLite's ``group by``, which sorts the table)."""
    out = {}
    cats = [r[0] for r in conn.execute(f"select distinct cat from {CATS_TABLE}") if isinstance(r[0], str)]
    for cat in cats:
        text = conn.execute(f"select group_concat(cast(connectionId as integer), ',') from {CATS_TABLE} "
                            f"where cat = ? and connectionId is not null", (cat,)).fetchone()[0]
        if text is None:
            continue
        ids = np.fromstring(text, dtype=np.int64, sep=",")
        if len(ids) != text.count(",") + 1:  # not integers throughout: read row by row
            got = read_columns(conn, CATS_TABLE, {"connectionId": "int", "cat": "text"})
            return {c: sorted_unique(got["connectionId"][got["cat"] == c]) for c in np.unique(got["cat"]).tolist()}
        out[cat] = narrowed(sorted_unique(ids))  # held until the flows are made
    return out


def build_flows(conn: sqlite3.Connection, schema: Schema, ends: Endpoints, strings: CardStrings,
                start: np.ndarray, lane: np.ndarray, notes: list[str]) -> LazyFlowTable:
    """Flow edges bound to their slices (slice indices are final; ``lane`` already remapped), made when
    first asked for: what says which connection ids carry which category is read now (the connection
    may be gone by then), the edges, ~44 bytes each and one for every few slices, only once somebody
    looks at an arrow (``stats`` never does)."""
    cats: dict[str, np.ndarray | None] = {}
    if schema.has(CATS_TABLE, "connectionId", "cat"):
        try:
            cats = dict(_ids_by_cat(conn))
        except sqlite3.DatabaseError as exc:
            notes.append(f"table {CATS_TABLE} unreadable ({exc}): flows by the side they join")
    if not cats:  # no table: what each side can only mean
        cats = {HOST_TO_DEVICE: None, ASYNC_NPU: None}
    cat_ids = {cat: strings.intern(cat) for cat in cats}  # interned now: a card's strings do not change later
    return LazyFlowTable(partial(_flow_table, ends, cats, cat_ids, start, lane))


def _flow_table(ends: Endpoints, cats: dict[str, np.ndarray | None], cat_ids: dict[str, int], start: np.ndarray,
                lane: np.ndarray) -> FlowTable:
    edges_cid, edges_src, edges_dst, edges_cat = [], [], [], []
    for cat, ids in cats.items():
        src_side, dst_side = SIDES_OF_CAT.get(cat, FRAMEWORK_SIDES)
        s_cid, s_sl = ends.of(src_side)
        if ids is not None:
            keep = np.isin(s_cid, ids)
            s_cid, s_sl = s_cid[keep], s_sl[keep]
        if src_side == dst_side:
            c, a, b = _first_to_rest(s_cid, s_sl, start)
        else:
            d_cid, d_sl = ends.of(dst_side)
            if ids is not None:
                keep = np.isin(d_cid, ids)
                d_cid, d_sl = d_cid[keep], d_sl[keep]
            c, a, b = _pairs(s_cid, s_sl, d_cid, d_sl)
        edges_cid.append(c)
        edges_src.append(a)
        edges_dst.append(b)
        edges_cat.append(np.full(len(c), cat_ids[cat], np.int32))
    cid = np.concatenate(edges_cid) if edges_cid else np.zeros(0, np.int64)
    slice_number = slice_index_dtype(len(start))
    src = np.concatenate(edges_src).astype(slice_number) if edges_src else np.zeros(0, slice_number)
    dst = np.concatenate(edges_dst).astype(slice_number) if edges_dst else np.zeros(0, slice_number)
    cat = np.concatenate(edges_cat) if edges_cat else np.zeros(0, np.int32)
    return FlowTable(src_event=src, cat=cat, flow_id=cid.astype(np.int64), src_ts=start[src], src_lane=lane[src],
                     src_slice=src, dst_ts=start[dst], dst_lane=lane[dst], dst_slice=dst)
