"""Extreme but valid input costs about what ordinary input of its size costs: a name of megabytes is cut
(and said to be), not copied through every stage and matched by every rule; a million distinct threads
are laid out without a Python sort key per thread. The costs themselves are measured by
``benchmarks/bench_extreme.py``; these tests check the results."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from timelineview.model.decode.chunk_result import CUT_MARK, MAX_NAME_CHARS
from timelineview.model.decode.scan import scan_decode
from timelineview.model.store.lanes import Metadata, _num_key, layout_lanes

from .decode.test_scanner_equivalence import assert_same, load_both
from .tracefile import dump_events, x_event


def test_a_name_longer_than_the_bound_is_cut_and_reported(tmp_path, monkeypatch):
    long = "Default/network/" + "x" * (3 * MAX_NAME_CHARS) + "/AllReduce-op1"
    path = dump_events([x_event(long, 1, 1, 0.0, 1.0), x_event("short", 1, 1, 2.0, 1.0),
                        x_event(long, 1, 2, 4.0, 1.0)], tmp_path / "long_name.json")
    for store in load_both(path, monkeypatch):  # the typed decode and the scanner alike
        names = sorted({store.strings[i] for i in store.slices.name}, key=len)
        assert names == ["short", long[:MAX_NAME_CHARS] + CUT_MARK]
        assert len(store.slices) == 3
        [warning] = [w for w in store.report.warnings if "cut" in w]
        assert f"1 name(s) longer than {MAX_NAME_CHARS:,} characters" in warning and "long_name.json" in warning
    assert_same(path, monkeypatch)


def test_names_at_the_bound_are_kept_whole(tmp_path, monkeypatch):
    exact = "y" * MAX_NAME_CHARS
    path = dump_events([x_event(exact, 1, 1, 0.0, 1.0)], tmp_path / "exact.json")
    for store in load_both(path, monkeypatch):
        assert [store.strings[i] for i in store.slices.name] == [exact]
        assert not [w for w in store.report.warnings if "cut" in w]


@given(st.lists(st.text(alphabet="abé\u4e2d/_-0123456789", min_size=0, max_size=40), min_size=1, max_size=60),
       st.integers(1, 64))
def test_strings_are_gathered_in_batches_as_a_whole(texts, batch):
    """The strings of a scan come out the same whatever the gather's batch (a string longer than a batch is
    copied on its own)."""
    raw, a, b = b"", [], []
    for t in texts:
        data = t.encode()
        raw += b'"'
        a.append(len(raw))
        raw += data
        b.append(len(raw))
        raw += b'",'
    buf = np.frombuffer(raw, dtype=np.uint8)
    old = scan_decode.GATHER_BYTES
    try:
        scan_decode.GATHER_BYTES = batch
        got = scan_decode._plain_texts(buf, np.array(a, dtype=np.int64), np.array(b, dtype=np.int64))
    finally:
        scan_decode.GATHER_BYTES = old
    assert got == texts


TOKENS = st.one_of(st.integers(-10**20, 10**20).map(str), st.sampled_from(["+5", " 5", "1_000", "0007", "-0", "--1",
                                                                          "Ops", "ops", "", "\u0663", "x" * 80]),
                   st.text(alphabet="ab-_ 019", max_size=6))


@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10", "Ops"]), TOKENS), max_size=80),
       st.dictionaries(st.sampled_from(["1", "2", "10"]), st.integers(-3, 3), max_size=3))
def test_lanes_are_ordered_as_their_sort_keys_say(keys, thread_sort_by_pid):
    """Processes, then the producer's thread sort index, then tids: integers in numeric order before texts in
    text order, as ``_num_key`` orders them one by one."""
    thread_sort = {k: thread_sort_by_pid[k[0]] for k in keys if k[0] in thread_sort_by_pid}
    md = Metadata({"1": "P1", "2": "P2"}, {}, {}, {}, thread_sort)
    layout = layout_lanes(keys, [], md)
    pids = layout.process_pid
    lanes = list(zip([pids[i] for i in layout.lane_process.tolist()], layout.lane_tid))
    assert sorted(lanes) == sorted(set(keys))
    expected = sorted(set(keys), key=lambda k: (pids.index(k[0]), thread_sort.get(k, 1 << 40), _num_key(k[1])))
    assert [(pids.index(p), thread_sort.get((p, t), 1 << 40), _num_key(t)) for p, t in lanes] == \
        [(pids.index(p), thread_sort.get((p, t), 1 << 40), _num_key(t)) for p, t in expected]
    assert layout.lane_of_key == {k: i for i, k in enumerate(lanes)}


@pytest.mark.parametrize("legacy", [True, False])
def test_a_hundred_thousand_threads_load_with_their_names(tmp_path, monkeypatch, legacy):
    n = 100_000
    events = [x_event("op", 1, k, float(k), 0.5) for k in range(n)]
    if not legacy:
        events.append({"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Host"}})
    path = dump_events(events, tmp_path / "threads.json")
    for store in load_both(path, monkeypatch):
        assert len(store.lanes) == n
        assert store.lanes.tid == [str(k) for k in range(n)]
        assert store.lanes.name[:3] == (["Stream 0", "Stream 1", "Stream 2"] if legacy
                                        else ["Thread 0", "Thread 1", "Thread 2"])
