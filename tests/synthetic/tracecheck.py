"""Independent reading of generated files for the tests: exact ns, lanes, plain-Python unions."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path


def load_events(path: Path) -> list[dict]:
    """All events of a file; numbers with a fraction are kept as Decimal (exact)."""
    with open(path) as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def ns(value) -> int:
    """Microseconds (number or string) to integer nanoseconds, exactly."""
    d = Decimal(value) * 1000
    assert d == d.to_integral_value(), value
    return int(d)


def x_rows(events: list[dict]) -> Counter:
    """Multiset of (pid, tid, ts_ns, dur_ns, name) of the X events."""
    return Counter((str(e["pid"]), str(e["tid"]), ns(e["ts"]), ns(e["dur"]), e["name"])
                   for e in events if e.get("ph") == "X")


def truth_rows(gt) -> Counter:
    """The same multiset rebuilt from a GroundTruth (X rows only, copies expanded)."""
    out: Counter = Counter()
    for i in range(len(gt.start_ns)):
        if gt.phase[i] != 0:
            continue
        lane = int(gt.lane[i])
        key = (gt.lane_pid[lane], gt.lane_tid[lane], int(gt.start_ns[i]), int(gt.dur_ns[i]),
               gt.names[int(gt.name[i])])
        out[key] += int(gt.copies[i])
    return out


def py_union(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def py_minus(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """a - b for sorted disjoint lists."""
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append((cur, bs))
            cur = max(cur, be)
        if cur < e:
            out.append((cur, e))
    return py_union(out)


def py_intersect(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for s, e in a:
        for bs, be in b:
            lo, hi = max(s, bs), min(e, be)
            if lo < hi:
                out.append((lo, hi))
    return py_union(out)


def py_gaps(a: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(a[i][1], a[i + 1][0]) for i in range(len(a) - 1)]


_FIXED = {9000: "AICPU OP", 10000: "Communication Op", 11000: "Host CPU OP", 12000: "Op Overlap Analyse",
          13000: "Activity Op"}


def display_lanes(events: list[dict]) -> list[tuple[str, str, str, str]]:
    """Lanes holding slices, named and ordered by docs/trace-format.md §9.3, from the file alone."""
    meta: dict[tuple, object] = {}
    for e in events:
        if e.get("ph") == "M":
            key = (e["name"], str(e["pid"]), str(e.get("tid", 0)) if e["name"].startswith("thread") else "")
            meta[key] = next(iter(e["args"].values()))  # last one wins
    named = any(k[0] == "process_name" for k in meta)
    lanes = {(str(e["pid"]), str(e["tid"])) for e in events if e.get("ph") in ("X", "B")}

    def pname(pid: str) -> str:
        for key in ("process_name", "process_labels"):
            if (key, pid, "") in meta:
                return str(meta[(key, pid, "")])
        if int(pid) in _FIXED:
            return _FIXED[int(pid)]
        return f"Device {pid}" if not named and int(pid) < 9000 else f"Process {pid}"

    def tname(pid: str, tid: str) -> str:
        if ("thread_name", pid, tid) in meta:
            return str(meta[("thread_name", pid, tid)])
        if tid in ("100000", "100001"):
            return "Steps" if tid == "100000" else "Scope Name"
        if not named and (int(pid) < 9000 or int(pid) in (9000, 10000)):
            return f"Stream {tid}"  # device, AI CPU and communication tids are stream ids
        return f"Thread {tid}"

    def key(lane: tuple[str, str]) -> tuple:
        pid, tid = lane
        ps = meta.get(("process_sort_index", pid, ""), int(pid))
        ts = meta.get(("thread_sort_index", pid, tid), int(tid))
        return (ps, int(pid), ts, int(tid))

    return [(p, t, pname(p), tname(p, t)) for p, t in sorted(lanes, key=key)]
