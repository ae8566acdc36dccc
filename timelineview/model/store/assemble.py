"""Merge the decoded chunks of one card into a ``TraceStore`` (lanes, dedupe, index, flows)."""

from __future__ import annotations

import bisect
import copy
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import numpy as np

from timelineview.model.decode.chunk_result import X_COLS, ChunkResult, PackedResults
from timelineview.model.decode.unicode_repair import REPAIRED_WARNING, repair_in_place, repaired_texts
from timelineview.model.store.args_reader import ArgsReader, ChunkTable
from timelineview.model.store.flows import build_edges, enclosing_slices, next_slices
from timelineview.model.store.interval_index import build_index, lane_time_order, radix_argsort, tie_runs
from timelineview.model.store.lanes import Metadata, detect_generation, layout_lanes
from timelineview.model.store.report import LoadReport
from timelineview.model.store.store_factory import empty_flows, empty_instants
from timelineview.model.store.trace_store import (
    FLAG_FROM_BE,
    FLAG_OPEN,
    CounterTable,
    FlowTable,
    InstantTable,
    LaneTable,
    LazyFlowTable,
    ProcessTable,
    SliceColumns,
    TraceStore,
)


class _Interner:
    """The card's string table."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.repaired = 0  # strings whose lone surrogates became U+FFFD

    def remap(self, local: list[str]) -> np.ndarray:
        """Array mapping local ids (and -1 at the end) to global ids."""
        ids = self.ids
        local, repaired = repaired_texts(local)
        self.repaired += repaired
        for s in local:
            if s not in ids:
                ids[s] = len(ids)
        out = np.empty(len(local) + 1, dtype=np.int32)
        out[:-1] = np.fromiter(map(ids.__getitem__, local), np.int32, len(local))
        out[-1] = -1
        return out


class _Columns:
    """Slice columns that grow as chunks arrive (amortised doubling, trimmed at the end)."""

    def __init__(self, capacity: int) -> None:
        self.n = 0
        self.cols = [np.empty(max(capacity, 1024), dtype=d) for d in _DTYPES]

    def reserve(self, k: int) -> list[np.ndarray]:
        need = self.n + k
        if need > len(self.cols[0]):
            cap = max(need, int(len(self.cols[0]) * 1.5))
            for c in self.cols:
                c.resize(cap, refcheck=False)  # realloc in place: no second copy kept alive
        part = slice(self.n, need)
        self.n = need
        return [c[part] for c in self.cols]

    def finish(self) -> list[np.ndarray]:
        for c in self.cols:
            c.resize(self.n, refcheck=False)
        return self.cols


class _ChunkPlace(NamedTuple):
    """Where one decoded chunk lies: its file, bytes and first card ordinal (for ``args``
    read again and for naming an event's file and index in the report)."""

    file: int  # index in the card's files
    start: int
    end: int
    first: int  # card ordinal of its first element
    count: int
    fast: bool


class CardBuilder:
    """Builds one card's store from its chunks, fed in file order as they are decoded.

    Each chunk's columns are remapped into the card's tables and copied into growing
    columns at once, then dropped: the decoded chunks never pile up in memory.
    """

    def __init__(self, card: str, rank: int | None, paths: list[str], read_paths: list[str] | None = None,
                 estimate: int = 0) -> None:
        """``paths``: the card's files as the user gave them (the store and its report name
        these); ``read_paths``: the files read for them, where ``args`` are read again (a
        ``.gz`` file's decompressed copy; default ``paths``)."""
        self.card, self.rank, self.paths = card, rank, paths
        self.read_paths = paths if read_paths is None else read_paths
        self.strings = _Interner()
        self.lane_keys: dict[tuple[str, str], int] = {}  # normalised key -> pre-layout id
        self.columns = _Columns(estimate)
        self.meta_records: list = []
        self.series: dict[tuple[str, str, str], int] = {}  # (pid, counter, key) -> card series id
        self.counter_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.flows: list = []
        self.instant_parts: list = []  # (ordinal, lane, name id, ts) arrays, in card ids
        self.be: list = []
        self.base = 0
        self.places: list[_ChunkPlace] = []
        self._maps = (None, None, None, None)

    def _remaps(self, ch: ChunkResult) -> tuple[np.ndarray, np.ndarray]:
        seen_strings, s_map, seen_lanes, l_map = self._maps
        if ch.strings is not seen_strings:  # ranges of one task share their tables
            s_map, seen_strings = self.strings.remap(ch.strings), ch.strings
        if ch.lane_keys is not seen_lanes:
            keys = self.lane_keys
            l_map = np.array([keys.setdefault(k, len(keys)) for k in self._repaired_keys(ch.lane_keys)] + [-1],
                             dtype=np.int32)
            seen_lanes = ch.lane_keys
        self._maps = (seen_strings, s_map, seen_lanes, l_map)
        return s_map, l_map

    def _repaired_keys(self, keys: list[tuple]) -> list[tuple]:
        """Lane or series keys with lone surrogates replaced (counted with the strings')."""
        flat, repaired = repaired_texts([t for key in keys for t in key])
        if not repaired:
            return keys
        self.strings.repaired += repaired
        width = len(keys[0])
        return [tuple(flat[k:k + width]) for k in range(0, len(flat), width)]

    def _where(self, ordinals: list[int]) -> list[tuple[str, int]]:
        """File and index within that file of each of the card's event ``ordinals``."""
        places = self.places
        firsts = [p.first for p in places]
        file_first: dict = {}  # file index -> ordinal of the file's first event
        for p in places:
            file_first.setdefault(p.file, p.first)
        out = []
        for o in ordinals:
            k = bisect.bisect_right(firsts, o) - 1
            out.append(("", o) if k < 0 else (str(self.paths[places[k].file]), o - file_first[places[k].file]))
        return out

    def add(self, ch: ChunkResult) -> None:
        """Take one chunk (the next in file order); its arrays are released."""
        s_map, l_map = self._remaps(ch)
        first = self.base
        self.base += ch.n_elements
        self._copy_columns([getattr(ch, c) for c in X_COLS], s_map, l_map, first)
        _release_columns(ch)
        self._add_extras(ch, first, s_map, l_map)

    def add_packed(self, packed: PackedResults) -> None:
        """Take the consecutive ranges of one worker task whose columns arrive joined."""
        ranges = packed.results
        s_map, l_map = self._remaps(ranges[0])  # one task: one set of tables
        counts = np.array([r.n_elements for r in ranges], dtype=np.int64)
        firsts = self.base + np.concatenate(([0], np.cumsum(counts)[:-1]))
        self._copy_columns(packed.x_cols, s_map, l_map, np.repeat(firsts, packed.x_counts))
        for r, first in zip(ranges, firsts.tolist()):
            _release_columns(r)
            self._add_extras(r, first, s_map, l_map)
        self.base = int(firsts[-1] + counts[-1])

    def _copy_columns(self, x_cols: list[np.ndarray], s_map: np.ndarray, l_map: np.ndarray,
                      first: int | np.ndarray) -> None:
        """Append chunk columns (``X_COLS`` order) in card ids; ordinals offset by ``first``."""
        start, dur, lane, name, cat, task, ordinal = x_cols
        if not len(start):
            return
        c_start, c_dur, c_lane, c_name, c_cat, c_task, c_src = self.columns.reserve(len(start))
        c_start[:] = start
        c_dur[:] = dur
        np.take(l_map, lane, out=c_lane)
        np.take(s_map, name, out=c_name)
        np.take(s_map, cat, out=c_cat)
        np.take(s_map, task, out=c_task)
        np.add(ordinal, first, out=c_src)

    def _add_extras(self, ch: ChunkResult, first: int, s_map: np.ndarray, l_map: np.ndarray) -> None:
        """Everything of a chunk but its slice columns: file place, metadata, counters, flows …"""
        self.places.append(_ChunkPlace(ch.file_index, ch.start, ch.end, first, ch.n_elements, ch.fast))
        meta, repaired = repair_in_place([[name, pid, tid, args] for _, name, pid, tid, args in ch.meta])
        self.strings.repaired += repaired
        self.meta_records.extend((o + first, *record) for (o, *_), record in zip(ch.meta, meta))
        if ch.counter_points is not None:
            to_card = np.array([self.series.setdefault(k, len(self.series))
                                for k in self._repaired_keys(ch.counter_series)], dtype=np.int32)
            sid, ts, value = ch.counter_points
            self.counter_parts.append((to_card[sid], ts, value))
            ch.counter_points = None
        if ch.flows is not None and len(ch.flows.ts):
            f = ch.flows
            self.flows.append((f.ordinal + first, f.ph, s_map[f.cat], l_map[f.lane], f.ts,
                               f.bp_e, f.id_num, f.id_text))
        ch.flows = None
        if ch.instants is not None:
            o, ln, nm, t = ch.instants
            self.instant_parts.append((o + first, l_map[ln], s_map[nm], t))
            ch.instants = None
        self.be.extend((o + first, ph, int(l_map[ln]), int(s_map[nm]), int(s_map[ct]), t)
                       for o, ph, ln, nm, ct, t in ch.be)

    def snapshot(self) -> TraceStore:
        """A store of the chunks taken so far, the builder left to go on (``finish`` works in
        place on its columns and tables, so it runs on copies): a load's picture in progress."""
        part = copy.copy(self)
        part.strings = _Interner()
        part.strings.ids = dict(self.strings.ids)
        part.lane_keys = dict(self.lane_keys)
        part.columns = _Columns(0)
        part.columns.n = self.columns.n
        part.columns.cols = [c[:self.columns.n].copy() for c in self.columns.cols]
        part.series = dict(self.series)
        for name in ("meta_records", "counter_parts", "flows", "instant_parts", "be", "places"):
            setattr(part, name, list(getattr(self, name)))
        return part.finish(LoadReport())

    def finish(self, report: LoadReport) -> TraceStore:
        """Lanes, duplicates, the index and the other tables: the store."""
        if self.strings.repaired:
            report.warn(REPAIRED_WARNING.format(n=self.strings.repaired))
        cols = self.columns.finish()
        cols.append(np.zeros(len(cols[0]), dtype=np.uint8))  # flags
        key_list = list(self.lane_keys)
        be_cols = _pair_be(self.be, cols, report, self._where)
        if be_cols is not None:
            cols = [np.concatenate([a, b]) for a, b in zip(cols, be_cols)]
        md = Metadata.from_records([r[1:] for r in sorted(self.meta_records, key=lambda r: r[0])])
        layout = layout_lanes(key_list, sorted({pid for pid, _, _ in self.series}), md)
        to_display = np.array([layout.lane_of_key[k] for k in key_list] + [-1], dtype=np.int32)
        start, dur, lane, name, cat, task, src, flags = cols
        np.take(to_display, lane, out=lane)
        seq = lane_time_order(lane, start, dur, src)
        keep = _first_of_duplicates(seq, start, dur, lane, name, src)
        if not keep.all():
            report.duplicates_dropped += int((~keep).sum())
            new_id = np.cumsum(keep) - 1
            seq = new_id[seq[keep[seq]]]
            start, dur, lane, name, cat, task, src, flags = (c[keep] for c in (start, dur, lane, name, cat, task,
                                                                               src, flags))
        n_lanes = len(layout.lane_tid)
        index, depth, overlapping = build_index(start, dur, lane, n_lanes, seq=seq)
        del seq
        report.overlapping_slices += overlapping
        slices = SliceColumns(start=start, dur=dur, lane=lane, name=name, cat=cat,
                              task_type=task, depth=depth, src=src, flags=flags)
        strings = self.strings
        store = TraceStore(
            card=self.card,
            rank=self.rank,
            paths=[Path(p) for p in self.paths],
            strings=list(strings.ids),
            processes=ProcessTable(layout.process_pid, layout.process_name, layout.process_label,
                                   layout.process_sort),
            lanes=LaneTable(layout.lane_process, layout.lane_tid, layout.lane_name, layout.lane_sort),
            slices=slices,
            counters=_counter_table(self.series, self.counter_parts, layout.process_of_pid),
            instants=_instant_table(self.instant_parts, to_display),
            flows=empty_flows(),  # replaced below by the lazily linked table
            report=report,
            generation=detect_generation(md, layout.process_name),
            index=index,
        )
        places, flows = self.places, self.flows
        store._string_ids = strings.ids
        # linking flows is done now, so that their load report (points without another end) is the same whether
        # anything looks at the flows or not (a card saved to the cache resolves them, one read without does not);
        # binding them to slices waits for the first look (most of the cost)
        edges = _flow_edges(flows, to_display, report)
        store.flows = LazyFlowTable(lambda: _flow_table(edges, store))
        store._args_reader = ArgsReader(ChunkTable(
            path=[self.read_paths[p.file] for p in places],
            start=np.array([p.start for p in places], dtype=np.int64),
            end=np.array([p.end for p in places], dtype=np.int64),
            first=np.array([p.first for p in places], dtype=np.int64),
            count=np.array([p.count for p in places], dtype=np.int64),
            fast=np.array([p.fast for p in places], dtype=bool),
        ))
        return store


def _release_columns(ch: ChunkResult) -> None:
    """Drop a chunk's slice columns once they are in the card (only its metadata stays)."""
    for c in X_COLS:
        setattr(ch, c, _EMPTY)


_EMPTY = np.zeros(0, np.int64)
_DTYPES = (np.int64, np.int64, np.int32, np.int32, np.int32, np.int32, np.int64)


def _first_of_duplicates(seq, start, dur, lane, name, src) -> np.ndarray:
    """Mask keeping the first in the file of each exact duplicate (lane, start, dur, name).

    ``seq`` (``lane_time_order``) puts equal (lane, start, dur) next to each other; only
    those short runs are sorted by name.
    """
    keep = np.ones(len(start), dtype=bool)
    if len(seq) < 2:
        return keep
    a, b = seq[:-1], seq[1:]
    tie = (lane[b] == lane[a]) & (start[b] == start[a]) & (dur[b] == dur[a])
    if not tie.any():
        return keep
    pos, run = tie_runs(tie)
    sub = seq[pos]
    order = np.lexsort((src[sub], name[sub], run))
    s, r = sub[order], run[order]
    dup = (r[1:] == r[:-1]) & (name[s[1:]] == name[s[:-1]])
    keep[s[1:][dup]] = False
    return keep


def _pair_be(be: list, cols: list[np.ndarray], report: LoadReport, where) -> list[np.ndarray] | None:
    """Match ``B``/``E`` per lane with a stack; unclosed ``B`` runs to the end of the card.

    Unmatched ``E`` events are reported in file order, with their file and index there
    (``where(ordinals)``).
    """
    if not be:
        return None
    be.sort(key=lambda r: (r[2], r[5], r[0]))
    ends = [int((cols[0] + cols[1]).max())] if len(cols[0]) else []
    ends += [r[5] for r in be]
    card_end = max(ends)
    out = []  # start, dur, lane, name, cat, task, src, flags
    stacks: dict[int, list] = {}
    unmatched = []
    for o, ph, lane, name, cat, t in be:
        stack = stacks.setdefault(lane, [])
        if ph == "B":
            stack.append((o, lane, name, cat, t))
        elif stack:
            bo, bl, bn, bc, bt = stack.pop()
            out.append((bt, max(t - bt, 0), bl, bn, bc, -1, bo, FLAG_FROM_BE))
        else:
            unmatched.append(o)
    for path, event in where(sorted(unmatched)):
        report.drop("'E' without a matching 'B'", path=path, event=event)
    for stack in stacks.values():
        for bo, bl, bn, bc, bt in stack:
            out.append((bt, max(card_end - bt, 0), bl, bn, bc, -1, bo, FLAG_FROM_BE | FLAG_OPEN))
            report.open_slices += 1
    if not out:
        return None
    dtypes = (np.int64, np.int64, np.int32, np.int32, np.int32, np.int32, np.int64, np.uint8)
    return [np.array(c, dtype=d) for c, d in zip(zip(*out), dtypes)]


def _counter_table(series: dict[tuple[str, str, str], int], parts: list, process_of_pid: dict[str, int],
                   ) -> CounterTable:
    """Samples grouped by series, each series by time; a series is named after its counter
    alone, or ``counter.key`` when that counter has several keys."""
    keys = list(series)  # in id order
    sid = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int32)
    ts = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    value = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.float64)
    order = radix_argsort(sid)  # file order inside each series: usually time order already
    s_sid, s_ts = sid[order], ts[order]
    if ((s_ts[1:] < s_ts[:-1]) & (s_sid[1:] == s_sid[:-1])).any():
        order = np.lexsort((ts, sid))
    offsets = np.searchsorted(sid[order], np.arange(len(keys) + 1), side="left").astype(np.int64)
    n_keys = Counter((pid, name) for pid, name, _ in keys)
    return CounterTable(
        series_process=np.array([process_of_pid[p] for p, _, _ in keys], dtype=np.int32),
        series_name=[n if n_keys[(p, n)] == 1 else f"{n}.{k}" for p, n, k in keys],
        series_counter=[n for _, n, _ in keys],
        series_key=[k for _, _, k in keys],
        ts=ts[order],
        value=value[order],
        offsets=offsets,
    )


def _instant_table(parts: list, to_display: np.ndarray) -> InstantTable:
    """Instants of all parts by time, ties in file order."""
    if not parts:
        return empty_instants()
    o, lane, name, ts = (np.concatenate(c) for c in zip(*parts))
    order = np.lexsort((o, ts))
    return InstantTable(ts[order].astype(np.int64), to_display[lane[order]].astype(np.int32),
                        name[order].astype(np.int32), o[order].astype(np.int64))


def _flow_ids(parts: list) -> tuple[np.ndarray, np.ndarray]:
    """Flow ids of all parts (int64 if every part has integer ids, else text) and id codes."""
    if all(p[6] is not None for p in parts):
        ids = np.concatenate([p[6] for p in parts])
        return ids, ids
    text = []
    for p in parts:
        text.extend(p[7] if p[7] is not None else map(str, p[6].tolist()))
    codes: dict[str, int] = {}
    for t in text:
        if t not in codes:
            codes[t] = len(codes)
    return np.array(text, dtype=object), np.fromiter(map(codes.__getitem__, text), np.int64, len(text))


def _flow_edges(parts: list, to_display: np.ndarray, report: LoadReport) -> dict | None:
    """Group flow points by (cat, id) and link them; slices are bound later, on first use."""
    if not parts:
        return None
    cols = [np.concatenate([p[k] for p in parts]) for k in range(6)]
    o_a, ph_a, cat_a, lane_local, ts_a, bp_a = cols
    ids, id_code = _flow_ids(parts)
    key_order = np.lexsort((id_code, cat_a))
    new_group = np.ones(len(key_order), dtype=bool)
    a, b = key_order[:-1], key_order[1:]
    new_group[1:] = (id_code[b] != id_code[a]) | (cat_a[b] != cat_a[a])
    group = np.empty(len(key_order), dtype=np.int64)
    group[key_order] = np.cumsum(new_group) - 1
    src, dst, dangling = build_edges(ph_a.astype(np.int8), group, ts_a, o_a)
    if dangling:
        report.warn(f"{dangling} flow point(s) have no other end")
    return {"lane": to_display[lane_local].astype(np.int64), "ts": ts_a, "ph": ph_a, "bp": bp_a,
            "ordinal": o_a, "cat": cat_a, "ids": ids, "src": src, "dst": dst}


def _flow_table(edges: dict | None, store: TraceStore) -> FlowTable:
    """Bind both ends of every edge to slices (enclosing, or next for ``f`` without ``bp``)."""
    if edges is None:
        return empty_flows()
    lane_a, ts_a, src, dst = edges["lane"], edges["ts"], edges["src"], edges["dst"]
    bound = enclosing_slices(store.index, lane_a, ts_a)
    use_next = (edges["ph"] == 2) & ~edges["bp"]
    if use_next.any():
        bound[use_next] = next_slices(store.index, lane_a[use_next], ts_a[use_next])
    return FlowTable(
        src_event=edges["ordinal"][src].astype(np.int64), cat=edges["cat"][src].astype(np.int32),
        flow_id=edges["ids"][src],
        src_ts=ts_a[src], src_lane=lane_a[src].astype(np.int32), src_slice=bound[src],
        dst_ts=ts_a[dst], dst_lane=lane_a[dst].astype(np.int32), dst_slice=bound[dst],
    )
