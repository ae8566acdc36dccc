"""Decode one byte range of a trace file into compact columns (runs in worker processes).

Fast path: the whole range as one typed msgspec decode. If that fails, the tolerant
reader (``range_split.split``) finds every element; the whole ones are typed in one decode
(or kept from what the compiled scanner read around the damage: ``ScannedRows``) and the
rest checked field by field, so one bad event costs only itself. Either way the result is
the same ``ChunkResult``.
"""

from __future__ import annotations

import gc
import math
import re
import threading
from dataclasses import dataclass, replace
from itertools import repeat
from operator import itemgetter

import msgspec
import numpy as np

from timelineview.model.decode import event_types as ev
from timelineview.model.decode.chunk_result import (
    X_COLS,
    ChunkResult,
    FlowColumns,
    Interner,
    add_instants,
    in_file_order,
)
from timelineview.model.decode.damaged.range_split import Elements, object_starts, split
from timelineview.model.decode.damaged.tolerant import UNREADABLE, parse_object
from timelineview.model.decode.scan.scan_codes import LOOK
from timelineview.model.decode.typed_columns import columnarise
from timelineview.model.store import file_digest
from timelineview.producers import TASK_TYPE_ARG

EXTRA_BYTES = 64 << 10  # read past a range's end for its last element (4x more each time it is not enough);
# whoever splits a tolerant range again reads this much past its end, with the end as ``stop``
_ELEMENT_AT = re.compile(r"at `\$\[(\d+)\]")
_buffers: dict[tuple[int, str], bytearray] = {}  # reused read buffers: (thread, use) -> buffer
_FIRST = itemgetter(0)  # sort key: meta and B/E records


def release_read_buffers() -> None:
    """Let go of the reused read buffers (a load is over). A read in progress keeps its own."""
    _buffers.clear()


def read_range(path: str, start: int, end: int, reuse: str = "") -> bytearray | memoryview:
    """``[`` + file bytes [start, end) + ``]`` in one buffer (no extra copies).

    With ``reuse`` the bytes land in a buffer this thread keeps for that use between
    calls (until ``release_read_buffers``): touching fresh pages costs more than parsing
    them on some VMs. The view is valid until the thread's next call with the same
    ``reuse``.
    """
    size = end - start + 2
    if reuse:
        key = (threading.get_ident(), reuse)
        buffer = _buffers.get(key)
        if buffer is None or len(buffer) < size:
            buffer = _buffers[key] = bytearray(size)
        buf = memoryview(buffer)[:size]
    else:
        buf = bytearray(size)
    buf[0] = 0x5B
    with open(path, "rb", buffering=0) as f:
        f.seek(start)
        view = memoryview(buf)[1:-1]
        got = 0
        while got < len(view):
            n = f.readinto(view[got:])
            if not n:
                break
            got += n
        file_digest.seen(path, start, view[:got])  # a file whose digest a caller wants is read once
        view.release()
    if got < end - start:
        size = got + 2
        buf = buf[:size]
    buf[size - 1] = 0x5D
    return buf


PENDING_LANE = -2  # ``ScannedRows``' lane ids: PENDING_LANE - k is row k of ``lane_tokens``, not interned yet


@dataclass
class ScannedRows:
    """The elements the compiled scanner read in a range it could not read whole: their columns
    (``result``, ordinals counting these elements only), their bytes [starts, ends) in the file,
    those the typed decode reads there (metadata, B/E, counters...: ``typed``), and the (pid, tid)
    tokens of the lanes its ids wait for. Nothing of them is interned before the typed path keeps
    them: elements read after a damaged one may lie inside it."""

    result: ChunkResult
    starts: np.ndarray
    ends: np.ndarray
    typed: np.ndarray  # bool per element
    lanes: np.ndarray  # per element: its row of ``lane_tokens`` (-1: none)
    lane_tokens: list[tuple]


def decode_range(path: str, file_index: int, start: int, end: int, last: bool,
                 interner: Interner | None = None, scanner: bool = False,
                 rows: ScannedRows | None = None) -> ChunkResult:
    """Decode elements of ``path`` starting at ``start`` (a top-level position) up to ``end``.

    For the last range of a file, scanning continues to the end of the data so a
    truncated tail is read as far as it goes. A file cut shorter since its layout was read
    gives what its bytes hold, the range marked truncated where they end. With ``scanner``
    (the caller's compiled scanner is ready) the whole events in a damaged range are read by
    it, as clean ranges are: ``rows`` are those it read already.
    """
    own = interner is None
    interner = interner or Interner()
    gc_was = gc.isenabled()
    gc.disable()
    try:
        buf = read_range(path, start, end, reuse="typed")
        if len(buf) - 2 < end - start:  # the file is shorter than when its layout was read
            res = _decode_tolerant(path, file_index, start, end, True, bytes(buf[1:-1]), interner)
            res.truncated = True
            res.problems.append((start + len(buf) - 2, f"the file ends at byte {start + len(buf) - 2} while "
                                 f"it is read (it was {end - start - len(buf) + 2:,} bytes longer): the rest is lost"))
            if own:
                interner.finish([res])
            return res
        try:
            if scanner:  # the scanner declined it: a damaged range fails this pass ~4x sooner than a typed one
                ev.raw_list_decoder.decode(buf)
            events = ev.typed_decoder.decode(buf)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError,  # bad UTF-8 in a str field
                RecursionError):  # args nested ~1000 deep: the tolerant reader drops that event alone
            events = None
        if events is not None:
            res = ChunkResult(file_index, start, end, len(events), True)
            columnarise(res, events, None, interner=interner)
        else:
            res = _decode_tolerant(path, file_index, start, end, last, bytes(buf[1:-1]), interner, scanner, rows)
        if own:
            interner.finish([res])
        return res
    finally:
        if gc_was:
            gc.enable()


def unread(ranges: list[tuple[int, int]], file_index: int, reason: str) -> list[ChunkResult]:
    """Empty results for ranges that could not be read, the first saying why; marked truncated,
    so the report says the file's readable data ends where they begin."""
    results = []
    for a, _ in ranges:
        res = ChunkResult(file_index, a, a, 0, False)
        columnarise(res, [], None)
        results.append(res)
    results[0].truncated = results[-1].truncated = True
    results[0].problems.append((ranges[0][0], reason))
    Interner().finish(results)
    return results


def split_chunk(path: str, start: int, end: int, data: bytes | None = None, base: int = 0,
                compiled: bool = False) -> tuple[bytes, Elements]:
    """The elements of ``path`` from ``start`` (a top-level position) that start before ``end``, as
    the tolerant decode splits a range, and the bytes split: [start, end) (``data`` when the caller
    read them), then as much past ``end`` as the last element needs (EXTRA_BYTES, four times more
    each time it runs past that). The loader's places and the args reader split chunks so too."""
    if data is None:
        data = bytes(read_range(path, start, end)[1:-1])
    extra = EXTRA_BYTES
    with open(path, "rb") as f:
        f.seek(end)
        while True:
            more = f.read(extra)
            data += more
            found = split(data, stop=end - start, base=base, compiled=compiled)
            if not found.info.truncated or not more:
                return data, found
            extra *= 4


def _decode_tolerant(path: str, file_index: int, start: int, end: int, last: bool,
                     data: bytes, interner: Interner, scanner: bool = False,
                     rows: ScannedRows | None = None) -> ChunkResult:
    if not last:
        data, found = split_chunk(path, start, end, data, base=start, compiled=scanner)
    else:
        found = split(data, base=start, compiled=scanner)
    info = found.info
    near = max(0, min(info.end, end - start) - 2 * LOOK)  # before it, both splits see the same starts
    if not np.array_equal(object_starts(data, info.end, near), found.objects[found.objects >= near]):
        # the args reader splits the range again with the end found as its stop (``ArgsReader``):
        # where its last stretches differ from this split's, its pieces are the ones kept
        again = split(data, stop=info.end, base=start, compiled=scanner)
        found = replace(again, info=info)
    n = len(found.starts)
    res = ChunkResult(file_index, start, start + info.end, n, False)
    res.closed = info.closed
    res.truncated = info.truncated
    res.problems = [(start + off, text) for off, text in (info.problems or [])]
    offsets = (found.starts + start).tolist()
    read_alone = sorted(found.exact)
    typed = np.ones(n, dtype=bool)  # whole elements, typed together
    typed[read_alone] = False
    typed[found.unreadable] = False
    scanned: list[tuple[np.ndarray, ChunkResult]] = []  # (the piece of each of its elements, columns)
    kept = _pieces_of(rows, found, start) if rows is not None else None
    if kept is not None:  # the elements the scanner read around the damage
        _intern_lanes(rows, interner)
        scanned.append((kept, rows.result))
        by_scanner = kept[~rows.typed]
    else:  # (none read, or they do not match the split: the typed decode reads every whole element)
        by_scanner = np.zeros(0, dtype=np.int64)
    typed[by_scanner] = False
    by_scanner = set(by_scanner.tolist())
    events: list = []
    ordinals: list[int] = []
    _typed_pieces(data, found.starts.tolist(), found.ends.tolist(), np.flatnonzero(typed).tolist(), events,
                  ordinals, res, offsets)
    unreadable = found.unreadable
    res.dropped.extend(zip((found.starts[unreadable] + start).tolist(), unreadable.tolist(), repeat(UNREADABLE)))
    alone_events: list = []
    alone_ordinals: list[int] = []
    for q in read_alone:
        if q in by_scanner:
            continue
        piece = found.exact[q]
        if piece.value is None:
            res.dropped.extend(repeat((offsets[q], q, piece.problem or "unreadable event"), piece.events))
        else:
            _keep(piece.value, piece.problem, q, alone_events, alone_ordinals, res, offsets)
    if alone_events:  # in file order among the others
        order = np.argsort(np.array(ordinals + alone_ordinals, dtype=np.int64), kind="stable").tolist()
        both = events + alone_events
        events = [both[i] for i in order]
        ordinals = sorted(ordinals + alone_ordinals)
    columnarise(res, events, np.array(ordinals, dtype=np.int64), offsets, interner)
    if scanned:
        _merge(res, scanned, offsets)
    in_file_order(res)
    return res


def _pieces_of(rows: ScannedRows, found: Elements, start: int) -> np.ndarray | None:
    """The piece of each element the scanner read, when each is exactly one that holds an
    element (whole, or read alone and parsed); None when some is not (its columns are then
    the typed path's)."""
    if not len(rows.starts):
        return None
    starts, ends = found.starts + start, found.ends + start
    at = np.searchsorted(starts, rows.starts)
    if at[-1] >= len(starts) or not (np.array_equal(starts[at], rows.starts) and np.array_equal(ends[at], rows.ends)):
        return None
    unparsed = [k for k, piece in found.exact.items() if piece.value is None]
    if np.isin(at, found.unreadable).any() or (unparsed and np.isin(at, unparsed).any()):
        return None
    return at


def _intern_lanes(rows: ScannedRows, interner: Interner) -> None:
    """Give the lanes ``rows`` waits for their ids (they are kept)."""
    res = rows.result
    lanes = interner.lanes
    used = rows.lanes[rows.lanes >= 0]  # (dropped events' lanes too, as the typed path makes them)
    _, first = np.unique(used, return_index=True)
    to_id = {k: lanes.setdefault(rows.lane_tokens[k], len(lanes)) for k in used[np.sort(first)].tolist()}

    def ids(lane: np.ndarray) -> np.ndarray:
        pending = lane <= PENDING_LANE
        if not pending.any():
            return lane
        out = lane.copy()
        out[pending] = [to_id[k] for k in (PENDING_LANE - lane[pending]).tolist()]
        return out

    res.x_lane = ids(res.x_lane)
    if res.instants is not None:
        o, lane, name, ts = res.instants
        res.instants = (o, ids(lane), name, ts)
    if res.flows is not None:
        res.flows = replace(res.flows, lane=ids(res.flows.lane))


def _merge(res: ChunkResult, parts: list[tuple[np.ndarray, ChunkResult]], offsets: list[int]) -> None:
    """Add the columns of ``parts`` (each with the piece index of each of its elements) to
    ``res``, everything in file order as the typed path gives it."""
    maps = [(at, at.tolist()) for at, _ in parts]
    order = np.argsort(np.concatenate([res.x_ord] + [at[p.x_ord] for (at, _), (_, p) in zip(maps, parts)]),
                       kind="stable")
    for c in X_COLS:
        pieces = [at[p.x_ord].astype(res.x_ord.dtype) if c == "x_ord" else getattr(p, c)
                  for (at, _), (_, p) in zip(maps, parts)]
        setattr(res, c, np.concatenate([getattr(res, c)] + pieces)[order])
    for (at, piece), (_, part) in zip(maps, parts):
        res.counts_by_ph.update(part.counts_by_ph)
        res.lossy_numbers |= part.lossy_numbers
        res.dropped += [(off if off >= 0 else offsets[piece[o]], piece[o], why) for off, o, why in part.dropped]
        res.notes += [(off if off >= 0 else offsets[piece[o]], piece[o], why) for off, o, why in part.notes]
        res.meta += [(piece[o], *rest) for o, *rest in part.meta]
        res.be += [(piece[o], *rest) for o, *rest in part.be]
        if part.instants is not None:
            o, lane, name, ts = part.instants
            add_instants(res, at[o], lane, name, ts)
        if part.counter_points is not None:  # (the card orders each series' samples by time)
            series, ts, value = part.counter_points
            series = series + len(res.counter_series)
            if res.counter_points is not None:
                old_series, old_ts, old_value = res.counter_points
                series = np.concatenate([old_series, series])
                ts, value = np.concatenate([old_ts, ts]), np.concatenate([old_value, value])
            res.counter_series = res.counter_series + part.counter_series
            res.counter_points = (series.astype(np.int32), ts, value)
    res.meta.sort(key=_FIRST)
    res.be.sort(key=_FIRST)
    if res.instants is not None:
        order = np.argsort(res.instants[0], kind="stable")
        res.instants = tuple(c[order] for c in res.instants)
    flows = [f for f in [res.flows] + [replace(p.flows, ordinal=at[p.flows.ordinal]) for (at, _), (_, p)
                                       in zip(maps, parts) if p.flows is not None] if f is not None and len(f.ts)]
    if flows:
        res.flows = _joined_flows(flows)


def _joined_flows(parts: list[FlowColumns]) -> FlowColumns:
    """Flow points of ``parts`` in file order (ids as text when some part has text ids)."""
    if len(parts) == 1:
        return parts[0]
    order = np.argsort(np.concatenate([f.ordinal for f in parts]), kind="stable")
    cols = {c: np.concatenate([getattr(f, c) for f in parts])[order]
            for c in ("ordinal", "ph", "cat", "lane", "ts", "bp_e")}
    if all(f.id_num is not None for f in parts):
        return FlowColumns(**cols, id_num=np.concatenate([f.id_num for f in parts])[order], id_text=None)
    texts = [t for f in parts for t in ([str(v) for v in f.id_num.tolist()] if f.id_text is None else f.id_text)]
    return FlowColumns(**cols, id_num=None, id_text=[texts[i] for i in order.tolist()])


def _typed_pieces(data: bytes, starts: list[int], ends: list[int], pieces: list[int], events: list,
                  ordinals: list[int], res: ChunkResult, offsets: list[int]) -> None:
    """Typed events of the whole elements ``pieces`` (piece indices, ascending), in one decode
    of them all when it succeeds. Otherwise an element of a wrong type (named by the error) is
    checked field by field, those before it are typed in one decode, and those after it in
    halves; a decode failing without saying where is halved too, so a range of many bad
    elements costs n log n decodes, not n squared."""
    if not pieces:
        return
    try:
        typed = ev.typed_decoder.decode(b"[" + b",".join([data[starts[k]:ends[k]] for k in pieces]) + b"]")
    except msgspec.ValidationError as exc:
        bad = _element_of(str(exc), 0, len(pieces))
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # bad UTF-8 in a string …
        bad = -1
    else:
        if len(typed) == len(pieces):
            events.extend(typed)
            ordinals.extend(pieces)
            return
        bad = -1
    if bad < 0 and len(pieces) > 1:
        half = len(pieces) // 2
        _typed_pieces(data, starts, ends, pieces[:half], events, ordinals, res, offsets)
        _typed_pieces(data, starts, ends, pieces[half:], events, ordinals, res, offsets)
        return
    bad = max(bad, 0)
    _typed_pieces(data, starts, ends, pieces[:bad], events, ordinals, res, offsets)
    q = pieces[bad]
    value, note = parse_object(data[starts[q]:ends[q]])
    if value is None:
        res.dropped.append((offsets[q], q, note))
    else:
        _keep(value, note, q, events, ordinals, res, offsets)
    rest = pieces[bad + 1:]
    half = len(rest) // 2
    _typed_pieces(data, starts, ends, rest[:half], events, ordinals, res, offsets)
    _typed_pieces(data, starts, ends, rest[half:], events, ordinals, res, offsets)


def _element_of(message: str, k: int, stop: int) -> int:
    """The element a typed decode's validation error names (``… at `$[3].tid```)."""
    at = _ELEMENT_AT.search(message)
    return min(k + int(at.group(1)), stop - 1) if at else k


def _keep(value: object, note: str, q: int, events: list, ordinals: list[int], res: ChunkResult,
          offsets: list[int]) -> None:
    """A parsed element: its typed event kept, or dropped with the reason."""
    obj, reason = event_from_dict(value)
    if obj is None:
        res.dropped.append((offsets[q], q, reason))
        return
    if note:
        res.notes.append((offsets[q], q, note))
    events.append(obj)
    ordinals.append(q)


def _scalar_token(v: object) -> tuple[bool, object]:
    if v is None or type(v) in (int, str):
        return True, v
    if type(v) is float:
        return True, (int(v) if v.is_integer() and abs(v) < 2**63 else repr(v))
    return False, None


def _number(v: object) -> tuple[bool, object]:
    """A time as the typed decode reads it: a JSON integer is a float there (``Number``)."""
    if type(v) is int:
        try:
            return True, float(v)
        except OverflowError:
            return True, math.copysign(math.inf, v)
    return (True, v) if v is None or type(v) in (float, str) else (False, None)


def event_from_dict(d: object) -> tuple[object, str]:
    """Check one parsed element and build the typed event, or return a reason to drop it."""
    if not isinstance(d, dict):
        return None, "element is not an object"
    ph = d.get("ph")
    if not isinstance(ph, str):
        return None, "missing or non-string 'ph'"
    cls = ev.TYPE_OF_PHASE.get(ph)
    if cls is None:
        return None, f"unknown phase {ph!r}"
    name = d.get("name", "")
    if not isinstance(name, str):
        name = "" if name is None else str(name)
    ok_p, pid = _scalar_token(d.get("pid"))
    ok_t, tid = _scalar_token(d.get("tid"))
    if not (ok_p and ok_t):
        return None, "pid/tid of a wrong type"
    kw: dict = {"name": name, "pid": pid, "tid": tid}
    fields = cls.__struct_fields__
    if "ts" in fields:
        ok, kw["ts"] = _number(d.get("ts"))
        if not ok:
            return None, "'ts' of a wrong type"
    if "dur" in fields:
        ok, kw["dur"] = _number(d.get("dur"))
        if not ok:
            return None, "'dur' of a wrong type"
    if "cat" in fields:
        cat = d.get("cat")
        kw["cat"] = cat if cat is None or isinstance(cat, str) else str(cat)
    if "id" in fields:
        kw["id"] = d.get("id")
    if "bp" in fields:
        bp = d.get("bp")
        kw["bp"] = bp if isinstance(bp, str) else None
    if "args" in fields:
        args = d.get("args")
        if cls is ev.XEvent:
            kw["args"] = ev.XArgs(task_type=args.get(TASK_TYPE_ARG)) if isinstance(args, dict) else None
        else:
            kw["args"] = args
    return cls(**kw), ""
