"""The bulk read of plane-task args gives what the store's own reader gives, event by event, on the
fast path, on damaged chunks and on odd elements."""

from __future__ import annotations

import json

import numpy as np

from timelineview.analysis.classify import classify
from timelineview.analysis.communication.plane_args import from_dict, read_plane_args
from timelineview.analysis.communication.plane_tasks import plane_lanes
from timelineview.model import load
from timelineview.synthetic import CardSpec, generate_card


def _plane_slices(store) -> np.ndarray:
    planes, _ = plane_lanes(store, classify(store))
    return np.flatnonzero(np.isin(store.slices.lane, planes))


def _check(store) -> int:
    idx = _plane_slices(store)
    assert len(idx)
    expected = [repr(from_dict(a)) for a in store.args_many(idx)]  # repr: NaN equals NaN
    assert [repr(a) for a in read_plane_args(store, idx)] == expected
    shuffled = np.random.default_rng(0).permutation(idx)
    assert [repr(a) for a in read_plane_args(store, shuffled)] == [repr(from_dict(a))
                                                                   for a in store.args_many(shuffled)]
    return len(idx)


def test_generated_card(tmp_path) -> None:
    path = tmp_path / "card.json"
    generate_card(path, CardSpec(seed=2, steps=3, tasks_per_step=100))
    (store,) = load([str(path)])
    assert _check(store) > 100


def _event(name: str, tid: int, ts: float, args) -> dict:
    return {"name": name, "pid": 7, "tid": tid, "ts": ts, "dur": 1.0, "ph": "X", "args": args}


def test_damaged_and_odd_events(tmp_path) -> None:
    meta = [{"name": "process_name", "ph": "M", "pid": 7, "args": {"name": "HCCL"}},
            {"name": "thread_name", "ph": "M", "pid": 7, "tid": 0, "args": {"name": "Group 0 Communication"}},
            {"name": "thread_name", "ph": "M", "pid": 7, "tid": 1, "args": {"name": "Plane 0"}},
            {"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "Ascend Hardware"}}]
    good = {"task type": "Memcpy", "src rank": 0, "dst rank": 1, "transport type": "SDMA", "size(Byte)": 64,
            "link type": "HCCS", "bandwidth(GB/s)": 1.5}
    events = [_event("hcom_allReduce_1", 0, 10.0, {}), *meta]
    events += [_event("Memcpy", 1, 11.0 + i, dict(good, **{"size(Byte)": 64 + i})) for i in range(30)]
    events += [_event("Odd", 1, 50.0, ["not", "an", "object"]), _event("Notify_Wait", 1, 51.0, None),
               _event("Memcpy", 1, 52.0, {"src rank": "0", "dst rank": "2", "size(Byte)": 1.0e3})]
    text = json.dumps(events)
    damaged = text.replace('"size(Byte)": 70,', '"size(Byte)": NaN,')  # not JSON: the tolerant path
    for i, body in enumerate((text, damaged)):
        path = tmp_path / f"t{i}.json"
        path.write_text(body)
        (store,) = load([str(path)])
        assert _check(store) == 33
