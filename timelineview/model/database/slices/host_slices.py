"""``CANN_API`` and ``PYTORCH_API`` on thread lanes, with the framework's flow endpoints."""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database import layout as L
from timelineview.model.database.slices.key_joins import join_all
from timelineview.model.database.slices.slice_parts import KIND_CANN, KIND_FRAMEWORK, SliceParts, slice_numbers
from timelineview.model.database.slices.table_reads import read_table
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.sqlite.tables import Schema
from timelineview.model.database.strings import CardStrings

HOST_COLUMNS = ("startNs", "endNs", "globalTid", "name", "type")
CONNECTION_COLUMNS = ("id", "connectionId")
TID_BITS = 32  # globalTid = pid << 32 | tid
TID_MASK = (1 << TID_BITS) - 1


def add_host(conn: sqlite3.Connection, schema: Schema, parts: SliceParts, enums: dict[str, dict[int, str]]) -> None:
    """``CANN_API`` on ``CANN`` thread lanes (``AscendCL@…`` names), ``PYTORCH_API`` on ``Python`` thread
    lanes (with their categories)."""
    api_names = enums.get("ENUM_API_TYPE", {})
    cann = read_table(conn, schema, parts, "CANN_API", HOST_COLUMNS, ("connectionId",))
    if cann is not None:
        prefixes = sorted(set(L.API_PREFIX.values()))
        types, inverse = np.unique(cann["type"], return_inverse=True)
        per_type = np.array([prefixes.index(L.API_PREFIX[api_names[t]]) if api_names.get(t) in L.API_PREFIX else -1
                             for t in types.tolist()], dtype=np.int64)
        prefix_of = per_type[inverse.reshape(-1)] if len(types) else np.zeros(0, np.int64)
        name = parts.strings.prefixed(prefix_of, prefixes, cann["name"])
        lanes = _thread_lanes(parts, L.CANN, cann["globalTid"])
        first = parts.add(start=cann["startNs"], end=cann["endNs"], lane=lanes, name=name, kind=KIND_CANN,
                          row=cann[ROWID])
        if "connectionId" in cann:
            parts.ends.add("host", cann["connectionId"], first)
    torch = read_table(conn, schema, parts, "PYTORCH_API", HOST_COLUMNS, ("connectionId",))
    if torch is not None:
        name = parts.strings.of_ids(torch["name"])
        types, inverse = np.unique(torch["type"], return_inverse=True)
        cats = np.array([parts.strings.intern(L.FRAMEWORK_CAT[api_names[t]]) if api_names.get(t) in L.FRAMEWORK_CAT
                         else -1 for t in types.tolist()], dtype=np.int32)
        cat = cats[inverse.reshape(-1)] if len(types) else np.zeros(0, np.int32)
        cat = _queue_cats(parts.strings, name, cat)
        lanes = _thread_lanes(parts, L.PYTHON, torch["globalTid"])
        first = parts.add(start=torch["startNs"], end=torch["endNs"], lane=lanes, name=name, kind=KIND_FRAMEWORK,
                          row=torch[ROWID], cat=cat)
        if "connectionId" in torch:
            _framework_endpoints(conn, schema, parts, torch["connectionId"], first)


def _queue_cats(s: CardStrings, name: np.ndarray, cat: np.ndarray) -> np.ndarray:
    """``Enqueue@…`` / ``Dequeue@…`` ranges get the JSON's ``enqueue`` / ``dequeue`` category."""
    out = cat.copy()
    for u in np.unique(name).tolist():
        text = s.strings[u].split("@", 1)[0].lower() if u >= 0 else ""
        if text in L.QUEUE_CATS:
            out[name == u] = s.intern(L.QUEUE_CATS[text])
    return out


def _thread_lanes(parts: SliceParts, proc: tuple[str, str, int], global_tid: np.ndarray) -> np.ndarray:
    uniq, inverse = np.unique(global_tid, return_inverse=True)
    lane_of = []
    for g in uniq.tolist():
        tid = g & TID_MASK if g >= 0 else g
        lane_of.append(parts.book.lane(proc, str(tid), L.THREAD_LANE.format(tid), tid))
    return np.array(lane_of, dtype=np.int32)[inverse.reshape(-1)] if len(uniq) else np.zeros(0, np.int32)


def _framework_endpoints(conn: sqlite3.Connection, schema: Schema, parts: SliceParts, ref: np.ndarray,
                         first: int) -> None:
    """``PYTORCH_API.connectionId`` is an id into ``CONNECTION_IDS(id, connectionId)`` (one range can
    hold several connections)."""
    ids = read_table(conn, schema, parts, "CONNECTION_IDS", CONNECTION_COLUMNS)
    if ids is None:
        return
    order = np.argsort(ids["id"], kind="stable")
    key, cid = ids["id"][order], ids["connectionId"][order]
    slices = np.flatnonzero(ref >= 0)
    rows, counts = join_all(key, ref[slices])
    parts.ends.cid.setdefault("framework", []).append(cid[rows])
    parts.ends.slice.setdefault("framework", []).append(slice_numbers(np.repeat(slices, counts), first))

