"""Decode one byte range of a trace file into compact columns (runs in worker processes).

Fast path: the whole range as one typed msgspec decode. If that fails, the tolerant
scanner finds every element, and each is checked field by field, so one bad event
costs only itself. Either way the result is the same ``ChunkResult``.
"""

from __future__ import annotations

import gc
import threading
from itertools import repeat

import msgspec
import numpy as np

from timelineview.model.decode import event_types as ev
from timelineview.model.decode.chunk_result import ChunkResult, Interner
from timelineview.model.decode.tolerant import scan
from timelineview.model.decode.typed_columns import columnarise

TYPED_RUN = 8  # intact elements in a row worth one typed decode in the tolerant path
_buffers: dict[tuple[int, str], bytearray] = {}  # reused read buffers: (thread, use) -> buffer


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
        view.release()
    if got < end - start:
        size = got + 2
        buf = buf[:size]
    buf[size - 1] = 0x5D
    return buf


def decode_range(path: str, file_index: int, start: int, end: int, last: bool,
                 interner: Interner | None = None) -> ChunkResult:
    """Decode elements of ``path`` starting at ``start`` (a top-level position) up to ``end``.

    For the last range of a file, scanning continues to the end of the data so a
    truncated tail is read as far as it goes.
    """
    own = interner is None
    interner = interner or Interner()
    gc_was = gc.isenabled()
    gc.disable()
    try:
        buf = read_range(path, start, end, reuse="typed")
        try:
            events = ev.typed_decoder.decode(buf)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError,  # bad UTF-8 in a str field
                RecursionError):  # args nested ~1000 deep: the tolerant reader drops that event alone
            events = None
        if events is not None:
            res = ChunkResult(file_index, start, end, len(events), True)
            columnarise(res, events, None, interner=interner)
        else:
            res = _decode_tolerant(path, file_index, start, end, last, bytes(buf[1:-1]), interner)
        if own:
            interner.finish([res])
        return res
    finally:
        if gc_was:
            gc.enable()


def _decode_tolerant(path: str, file_index: int, start: int, end: int, last: bool,
                     data: bytes, interner: Interner) -> ChunkResult:
    if not last:
        # the last element may run past ``end`` when ``end`` was not a real boundary
        extra = 1 << 20
        with open(path, "rb") as f:
            f.seek(end)
            while True:
                more = f.read(extra)
                data += more
                pieces, info = scan(data, 0, stop=end - start, base=start)
                if not info.truncated or not more:
                    break
                extra *= 4
    else:
        pieces, info = scan(data, 0, base=start)
    res = ChunkResult(file_index, start, start + info.end, len(pieces), False)
    res.closed = info.closed
    res.truncated = info.truncated
    res.problems = [(start + off, text) for off, text in (info.problems or [])]
    events: list = []
    ordinals: list[int] = []
    k = 0
    while k < len(pieces):
        run = _intact_run(pieces, k)
        typed = _typed_run(data, pieces, k, run) if run - k >= TYPED_RUN else None
        if typed is not None:  # the intact stretch between damage: typed in one C call
            events.extend(typed)
            ordinals.extend(range(k, run))
            k = run
            continue
        stop = max(run, k + 1)
        for q in range(k, stop):
            piece = pieces[q]
            offset = start + piece.start
            if piece.value is None:
                res.dropped.extend(repeat((offset, q, piece.problem or "unreadable event"), piece.events))
                continue
            obj, reason = event_from_dict(piece.value)
            if obj is None:
                res.dropped.append((offset, q, reason))
                continue
            if piece.problem:
                res.notes.append((offset, q, piece.problem))
            events.append(obj)
            ordinals.append(q)
        k = stop
    columnarise(res, events, np.array(ordinals, dtype=np.int64), [start + p.start for p in pieces],
                interner)
    return res


def _intact_run(pieces: list, k: int) -> int:
    """The end of the run of whole, parsed elements from ``pieces[k]``."""
    j = k
    while j < len(pieces) and pieces[j].value is not None and not pieces[j].problem:
        j += 1
    return j


def _typed_run(data: bytes, pieces: list, k: int, run: int) -> list | None:
    """Typed events of ``pieces[k:run]`` in one decode, or None (a stray byte between them,
    a value of a wrong type: they are checked one by one)."""
    try:
        typed = ev.typed_decoder.decode(b"[" + data[pieces[k].start:pieces[run - 1].end] + b"]")
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        return None
    return typed if len(typed) == run - k else None


def _scalar_token(v: object) -> tuple[bool, object]:
    if v is None or type(v) in (int, str):
        return True, v
    if type(v) is float:
        return True, (int(v) if v.is_integer() and abs(v) < 2**63 else repr(v))
    return False, None


def _number(v: object) -> tuple[bool, object]:
    return (True, v) if v is None or type(v) in (float, int, str) else (False, None)


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
            kw["args"] = ev.XArgs(task_type=args.get("Task Type")) if isinstance(args, dict) else None
        else:
            kw["args"] = args
    return cls(**kw), ""
