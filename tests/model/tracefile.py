"""Write small trace files for loader tests (plain json, independent of the loader)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest


def use_jit(monkeypatch, jit: str) -> None:
    """Load with ``TIMELINEVIEW_JIT=jit``; with "1" the scanner is warmed first (the test skipped without numba)."""
    from timelineview.model.load.jit import scanner_available, warm_scanner

    if jit == "1":
        if not scanner_available():
            pytest.skip("numba is not installed")
        warm_scanner()
    monkeypatch.setenv("TIMELINEVIEW_JIT", jit)


def dump_events(events: list[dict], path: Path, style: str = "compact", wrap: str = "array",
                before: dict | None = None, after: dict | None = None) -> Path:
    """Write ``events`` as a JSON array (or ``{"traceEvents": ...}``) in a given style."""
    if style == "compact":
        items = [json.dumps(e, separators=(",", ":")) for e in events]
        body = ",".join(items)
    elif style == "lines":
        body = ",\n".join(json.dumps(e) for e in events)
    elif style == "pretty":
        body = ",\n".join(json.dumps(e, indent=2) for e in events)
    else:  # "spaces": separators with random whitespace
        rng = random.Random(len(events))
        body = "".join((rng.choice([",", " ,", ", ", "\n,\n  ", ",\t"]) if i else "") + json.dumps(e)
                       for i, e in enumerate(events))
    text = f"[{body}]"
    if wrap == "object":
        head = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in (before or {}).items())
        tail = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in (after or {}).items())
        text = "{" + head + '"traceEvents": ' + text + tail + "}"
    path.write_text(text, encoding="utf-8")
    return path


def x_event(name: str, pid, tid, ts, dur, **extra) -> dict:
    e = {"name": name, "ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    e.update(extra)
    return e


def slice_set(store) -> list[tuple]:
    """(pid, tid, start_ns, dur_ns, name) of every slice, sorted: for comparisons."""
    out = []
    for i in range(len(store.slices)):
        lane = int(store.slices.lane[i])
        pid = store.processes.pid[int(store.lanes.process[lane])]
        out.append((pid, store.lanes.tid[lane], int(store.slices.start[i]), int(store.slices.dur[i]),
                    store.strings[int(store.slices.name[i])]))
    return sorted(out)


def reference_slices(events: list[dict]) -> list[tuple]:
    """The same tuples computed from parsed events with Python's Decimal (exact)."""
    from decimal import ROUND_HALF_UP, Decimal

    def ns(v) -> int:
        d = Decimal(str(v)) if not isinstance(v, str) else Decimal(v)
        return int((d * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))

    seen = set()
    out = []
    for e in events:
        if e.get("ph") != "X":
            continue
        key = (str(e["pid"]), str(e["tid"]), ns(e["ts"]), ns(e.get("dur", 0)), e.get("name", ""))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return sorted(out)
