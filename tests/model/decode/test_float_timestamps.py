"""Timestamps the JSON decoder hands over as float64: whole epoch microseconds (Kineto's, ~1.7e15 µs) become
exact nanoseconds, not the multiples of 256 ns that scaling the float by 1000 gives."""

from __future__ import annotations

import json

import numpy as np

from timelineview.model import load
from timelineview.model.decode.timestamps import floats_to_ns, tokens_to_ns

KINETO_US = [1_695_835_542_514_261, 1_695_835_585_863_857, 1_695_835_573_040_765]


def test_whole_epoch_microseconds_scale_exactly():
    ns, ok = floats_to_ns(np.array(KINETO_US, dtype=np.float64))
    assert ok.all() and ns.tolist() == [us * 1000 for us in KINETO_US]  # Python ints: exact by construction
    ns, ok, _ = tokens_to_ns([float(us) for us in KINETO_US] + ["1695835542514261"])
    assert ok.all() and ns.tolist() == [us * 1000 for us in KINETO_US] + [KINETO_US[0] * 1000]


def test_fractions_below_the_float_limit_still_round_to_the_written_ns():
    written = ["12.345", "-7.5", "123456789.001", "0.0005"]
    ns, ok = floats_to_ns(np.array([float(w) for w in written]))
    assert ok.all() and ns.tolist() == [12_345, -7_500, 123_456_789_001, 0]  # 0.5 ns rounds to even
    assert tokens_to_ns([float(w) for w in written] + [None])[0].tolist()[:4] == ns.tolist()


def test_a_kineto_trace_loads_its_epoch_timestamps_exactly(tmp_path):
    events = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": us, "dur": 3, "args": {}}
              for i, us in enumerate(KINETO_US)]
    path = tmp_path / "a.pt.trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    (store,) = load(path)
    assert sorted(np.asarray(store.slices.start).tolist()) == sorted(us * 1000 for us in KINETO_US)
