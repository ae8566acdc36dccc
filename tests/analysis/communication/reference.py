"""A plain Python pass over plane tasks: the §6 numbers the code under test must reproduce.

Times are small integers, so covered time is counted nanosecond by nanosecond with sets.
"""

from __future__ import annotations

from collections import defaultdict

INVALID = 4294967295


def is_transfer(args: dict) -> bool:
    src, dst, size = args.get("src rank"), args.get("dst rank"), args.get("size(Byte)", 0)
    real = all(isinstance(r, int) and 0 <= r < INVALID for r in (src, dst))
    return real and src != dst and isinstance(size, int) and size > 0


def is_wait(name: str, args: dict) -> bool:
    spellings = {"Notify_Wait", "Notify Wait", "notify_wait", "NOTIFY_WAIT", "NOTIFY WAIT"}
    return name in spellings or args.get("task type") in spellings


def distinct(tasks: list[tuple]) -> list[tuple]:
    """Tasks are (start, dur, name, args); exact copies are kept once."""
    seen, out = set(), []
    for t in tasks:
        key = (t[0], t[1], t[2], tuple(sorted(t[3].items())))
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def operator_times(op: tuple[int, int], tasks: list[tuple]) -> dict:
    """§6 times of one operator (start, end) over the tasks assigned to it, clipped to it."""
    s0, e0 = op
    xfer, wait = set(), set()
    first = None
    for start, dur, name, args in tasks:
        points = set(range(max(start, s0), min(start + dur, e0)))
        if is_transfer(args):
            xfer |= points
            first = max(start, s0) if first is None else min(first, max(start, s0))
        elif is_wait(name, args):
            wait |= points
    only_wait = wait - xfer
    limit = e0 if first is None else first
    return {"elapse": e0 - s0, "transit": len(xfer), "wait": len(only_wait),
            "synchronization": len({t for t in only_wait if t < limit}), "idle": (e0 - s0) - len(xfer | wait)}


def assign(ops: list[tuple[int, int]], start: int) -> int | None:
    """The operator holding ``start`` (the latest-starting one when several do)."""
    best = None
    for i, (s, e) in enumerate(ops):
        if s <= start <= e and (best is None or s >= ops[best][0]):
            best = i
    return best


def links(tasks: list[tuple]) -> dict[tuple, dict]:
    out: dict[tuple, dict] = defaultdict(lambda: {"bytes": 0, "transit": 0, "count": 0})
    for _start, dur, _name, args in tasks:
        if is_transfer(args):
            row = out[(args["src rank"], args["dst rank"], args["transport type"], args["link type"])]
            row["bytes"] += args["size(Byte)"]
            row["transit"] += dur
            row["count"] += 1
    return dict(out)
