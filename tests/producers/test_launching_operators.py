"""The host operator holding each launch: the innermost and the outermost, against a brute-force search over
randomly nested operators on two threads."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from timelineview.model import load
from timelineview.producers.launches import LaunchEdges, launching_operators

T0 = 1_700_000_000_000  # µs
PID = 77
THREADS = (1, 2)


def _nested(rng: random.Random, start: int, end: int, depth: int, out: list[tuple[int, int]]) -> None:
    """Children strictly inside [start, end], apart from one another, each with its own children."""
    t = start + 1
    while depth < 5 and t + 4 < end and rng.random() < 0.8:
        length = rng.randint(2, max(2, (end - t) // 2))
        child_end = min(t + length, end - 1)
        out.append((t, child_end))
        _nested(rng, t, child_end, depth + 1, out)
        t = child_end + rng.randint(1, 6)


def _trace(seed: int) -> tuple[dict, dict[int, list[tuple[int, int]]]]:
    rng = random.Random(seed)
    events, ops = [], {}
    for tid in THREADS:
        spans: list[tuple[int, int]] = []
        t = 0
        for _ in range(4):  # top-level operators with gaps between them
            end = t + rng.randint(20, 200)
            spans.append((t, end))
            _nested(rng, t, end, 1, spans)
            t = end + rng.randint(1, 20)
        ops[tid] = spans
        events += [{"ph": "X", "cat": "cpu_op", "name": f"op{tid}_{k}", "pid": PID, "tid": tid, "ts": T0 + a,
                    "dur": b - a} for k, (a, b) in enumerate(spans)]
    return {"traceEvents": events}, ops


def _brute_force(spans: list[tuple[int, int]], at: int, innermost: bool) -> int:
    holding = [k for k, (a, b) in enumerate(spans) if a <= at <= b]
    if not holding:
        return -1
    return max(holding, key=lambda k: spans[k][0]) if innermost else min(holding, key=lambda k: spans[k][0])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("innermost", [True, False], ids=["innermost", "outermost"])
def test_launching_operators_match_a_brute_force_search(tmp_path, seed, innermost):
    trace, spans = _trace(seed)
    path = tmp_path / "t.pt.trace.json"
    path.write_text(json.dumps(trace))
    (store,) = load(path)
    sl = store.slices
    slice_of = {store.strings[sl.name[i]]: i for i in range(len(sl))}
    rng = random.Random(seed)
    lanes, times, expected = [], [], []
    for tid in THREADS:
        lane = int(sl.lane[slice_of[f"op{tid}_0"]])
        horizon = max(b for _, b in spans[tid]) + 5
        for at in rng.sample(range(horizon), 150):
            k = _brute_force(spans[tid], at, innermost)
            lanes.append(lane)
            times.append((T0 + at) * 1000)
            expected.append(slice_of[f"op{tid}_{k}"] if k >= 0 else -1)
    edges = LaunchEdges(np.array(lanes, np.int32), np.array(times, np.int64), np.zeros(len(times), np.int64))
    operators = np.arange(len(sl), dtype=np.int64)
    found = launching_operators(store, edges, operators, innermost=innermost)
    assert found.tolist() == expected
    assert (found >= 0).any() and (found < 0).any()  # both kinds of launch drawn
