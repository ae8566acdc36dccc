"""Decode one byte range of a trace file into compact columns (runs in worker processes).

Fast path: the whole range as one typed msgspec decode. If that fails, the tolerant
reader (``tolerant.split``) finds every element; the runs of whole ones are typed in one
decode each and the rest checked field by field, so one bad event costs only itself.
Either way the result is the same ``ChunkResult``.
"""

from __future__ import annotations

import gc
import re
import threading
from itertools import repeat

import msgspec
import numpy as np

from timelineview.model.decode import event_types as ev
from timelineview.model.decode.chunk_result import ChunkResult, Interner
from timelineview.model.decode.tolerant import Elements, object_starts, parse_object, split
from timelineview.model.decode.typed_columns import columnarise

EXTRA_BYTES = 64 << 10  # read past a range's end for its last element (4x more each time it is not enough);
# whoever splits a tolerant range again reads this much past its end, with the end as ``stop``
_ELEMENT_AT = re.compile(r"at `\$\[(\d+)\]")
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
    truncated tail is read as far as it goes. A file cut shorter since its layout was read
    gives what its bytes hold, the range marked truncated where they end.
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


def _decode_tolerant(path: str, file_index: int, start: int, end: int, last: bool,
                     data: bytes, interner: Interner) -> ChunkResult:
    if not last:
        # the last element may run past ``end`` when ``end`` was not a real boundary
        extra = EXTRA_BYTES
        with open(path, "rb") as f:
            f.seek(end)
            while True:
                more = f.read(extra)
                data += more
                found = split(data, stop=end - start, base=start)
                if not found.info.truncated or not more:
                    break
                extra *= 4
    else:
        found = split(data, base=start)
    info = found.info
    if not np.array_equal(object_starts(data, info.end), found.objects):
        # the args reader splits the range again with the end found as its stop (``ArgsReader``):
        # where its last stretches differ from this split's, its pieces are the ones kept
        again = split(data, stop=info.end, base=start)
        found = Elements(again.starts, again.ends, again.exact, info, again.objects)
    n = len(found.starts)
    res = ChunkResult(file_index, start, start + info.end, n, False)
    res.closed = info.closed
    res.truncated = info.truncated
    res.problems = [(start + off, text) for off, text in (info.problems or [])]
    offsets = (found.starts + start).tolist()
    events: list = []
    ordinals: list[int] = []
    k = 0
    for q in sorted(found.exact) + [n]:
        if q > k:  # whole elements between the pieces read one by one: typed in one C call
            _typed_elements(data, found, k, q, events, ordinals, res, offsets)
        if q == n:
            break
        piece = found.exact[q]
        if piece.value is None:
            res.dropped.extend(repeat((offsets[q], q, piece.problem or "unreadable event"), piece.events))
        else:
            _keep(piece.value, piece.problem, q, events, ordinals, res, offsets)
        k = q + 1
    columnarise(res, events, np.array(ordinals, dtype=np.int64), offsets, interner)
    return res


def _typed_elements(data: bytes, found: Elements, k: int, stop: int, events: list, ordinals: list[int],
                    res: ChunkResult, offsets: list[int]) -> None:
    """Typed events of the whole elements k .. stop-1 (consecutive, commas between them): one
    decode, then for an element of a wrong type the ones before it in one decode, that element
    checked field by field, and the rest again."""
    starts, ends = found.starts, found.ends
    while k < stop:
        try:
            typed = ev.typed_decoder.decode(b"[" + data[starts[k]:ends[stop - 1]] + b"]")
        except msgspec.ValidationError as exc:
            bad = _element_of(str(exc), k, stop)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # bad UTF-8 in a string …
            bad = k
        else:
            if len(typed) == stop - k:
                events.extend(typed)
                ordinals.extend(range(k, stop))
                return
            bad = k
        if bad > k:
            _typed_elements(data, found, k, bad, events, ordinals, res, offsets)
        value, note = parse_object(data[starts[bad]:ends[bad]])
        if value is None:
            res.dropped.append((offsets[bad], bad, note))
        else:
            _keep(value, note, bad, events, ordinals, res, offsets)
        k = bad + 1


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
