"""The loader reads every shape of Chrome-trace JSON the producers write, exactly."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from timelineview.model import load

from ..tracefile import dump_events, reference_slices, slice_set, x_event


def sample_events() -> list[dict]:
    return [
        {"name": "process_name", "ph": "M", "pid": 3254508960, "tid": 0, "args": {"name": "Ascend Hardware"}},
        x_event("MatMul", 3254508960, 2, "1736412474721123.620", 55.1610625,
                args={"Task Type": "AI_CORE", "Physic Stream Id": 2}),
        x_event("Cast", 3254508960, 2, "1736412474721200.001", "14.070", args={"Task Type": "AI_VECTOR_CORE"}),
        x_event("aten::add", 437675, 437675, "1736412474721000.999", 13.08, cat="cpu_op"),
        x_event("Old", 1, "519", 6042909.559994936, 3.1),
        x_event("Zero", 1, 519, 6042920.0, 0),
        {"name": "thread_name", "ph": "M", "pid": 3254508960, "tid": 2, "args": {"name": "Stream 2"}},
    ]


@pytest.mark.parametrize("style", ["compact", "lines", "pretty", "spaces"])
@pytest.mark.parametrize("wrap", ["array", "object"])
def test_shapes_give_the_same_slices(tmp_path, style, wrap):
    events = sample_events()
    path = dump_events(events, tmp_path / "t.json", style=style, wrap=wrap,
                       before={"displayTimeUnit": "ns"}, after={"otherData": {"v": [1, {"a": "]"}]}})
    [store] = load(path)
    assert slice_set(store) == reference_slices(events)
    assert not store.report.truncated
    assert store.report.dropped_events == 0


def test_string_timestamps_keep_nanoseconds(tmp_path):
    [store] = load(dump_events(sample_events(), tmp_path / "t.json"))
    starts = set(store.slices.start.tolist())
    assert 1736412474721123620 in starts  # a float64 would give ...123625 or ...123500
    assert 1736412474721200001 in starts
    durs = set(store.slices.dur.tolist())
    assert 55161 in durs and 14070 in durs


def test_string_and_int_tids_are_one_lane(tmp_path):
    [store] = load(dump_events(sample_events(), tmp_path / "t.json"))
    lanes = [(store.processes.pid[int(store.lanes.process[i])], store.lanes.tid[i]) for i in range(len(store.lanes))]
    assert lanes.count(("1", "519")) == 1


def test_huge_pids_and_flow_ids_stay_exact(tmp_path):
    big_id = 1736412474725417508  # above 2^53
    events = [
        x_event("launch", 3178231, 3178231, "100.000", 10),
        x_event("kernel", 3254508960, 2, "200.000", 5),
        {"ph": "s", "bp": "e", "name": "torch_to_npu", "id": big_id, "pid": 3178231, "tid": 3178231,
         "ts": "105.000", "cat": "async_npu"},
        {"ph": "f", "bp": "e", "name": "torch_to_npu", "id": big_id, "pid": 3254508960, "tid": 2,
         "ts": "200.000", "cat": "async_npu"},
        {"ph": "s", "name": "x", "id": big_id + 1, "pid": 3178231, "tid": 3178231, "ts": "106.000", "cat": "async_npu"},
    ]
    [store] = load(dump_events(events, tmp_path / "t.json"))
    assert "3254508960" in store.processes.pid
    assert len(store.flows) == 1
    assert str(store.flows.flow_id[0]) == str(big_id)  # int64, exact above 2^53
    names = [store.strings[int(store.slices.name[i])] for i in (store.flows.src_slice[0], store.flows.dst_slice[0])]
    assert names == ["launch", "kernel"]
    assert "1 flow point(s) have no other end" in store.report.warnings


def test_metadata_anywhere_last_one_wins_and_orders_lanes(tmp_path):
    events = [
        x_event("a", 7, 1, 1.0, 1.0),
        x_event("b", 7, 2, 1.0, 1.0),
        x_event("c", 9, 1, 1.0, 1.0),
        {"name": "process_name", "ph": "M", "pid": 7, "args": {"name": "Old name"}},
        {"name": "process_name", "ph": "M", "pid": 7, "args": {"name": "Seven"}},
        {"name": "process_sort_index", "ph": "M", "pid": 9, "args": {"sort_index": 1}},
        {"name": "process_sort_index", "ph": "M", "pid": 7, "args": {"sort_index": 2}},
        {"name": "thread_sort_index", "ph": "M", "pid": 7, "tid": 2, "args": {"sort_index": -1}},
        {"name": "thread_name", "ph": "M", "pid": 7, "tid": 2, "args": {"name": "Two"}},
    ]
    [store] = load(dump_events(events, tmp_path / "t.json"))
    assert store.processes.name == ["Process 9", "Seven"]
    assert [store.lane_full_name(i) for i in range(len(store.lanes))] == [
        "Process 9 / Thread 1", "Seven / Two", "Seven / Thread 1"]


def test_exact_duplicates_dropped_and_counted(tmp_path):
    e = x_event("k", 1, 2, "10.000", 5)
    events = [e, dict(e), dict(e, name="other"), dict(e, dur=6), dict(e)]
    [store] = load(dump_events(events, tmp_path / "t.json"))
    assert len(store.slices) == 3
    assert store.report.duplicates_dropped == 2


def test_counters_instants_and_be_pairs(tmp_path):
    events = [
        {"name": "AI Core Freq", "ph": "C", "pid": 5, "tid": 0, "ts": "3.000", "args": {"MHz": 1800}},
        {"name": "AI Core Freq", "ph": "C", "pid": 5, "tid": 0, "ts": "1.000", "args": {"MHz": 1000}},
        {"name": "mem", "ph": "C", "pid": 5, "ts": 2.0, "args": {"read": 1.5, "write": "2.5"}},
        {"name": "mark", "ph": "i", "pid": 1, "tid": 1, "ts": 4.0},
        {"name": "outer", "ph": "B", "pid": 1, "tid": 1, "ts": 1.0},
        {"name": "inner", "ph": "B", "pid": 1, "tid": 1, "ts": 2.0},
        {"name": "inner", "ph": "E", "pid": 1, "tid": 1, "ts": 3.0},
        {"name": "never", "ph": "B", "pid": 1, "tid": 1, "ts": 3.5},
        {"name": "outer", "ph": "E", "pid": 1, "tid": 1, "ts": 9.0},
        {"name": "orphan", "ph": "E", "pid": 1, "tid": 2, "ts": 9.0},
        x_event("x", 1, 3, 0.0, 20.0),
    ]
    [store] = load(dump_events(events, tmp_path / "t.json"))
    c = store.counters
    i = c.series_name.index("AI Core Freq")
    ts, val = c.series(i)
    assert ts.tolist() == [1000, 3000] and val.tolist() == [1000.0, 1800.0]
    assert sorted(n for n in c.series_name if n.startswith("mem")) == ["mem.read", "mem.write"]
    assert len(store.instants) == 1 and store.instants.ts[0] == 4000
    got = {store.strings[int(n)]: (int(s), int(d)) for n, s, d in
           zip(store.slices.name, store.slices.start, store.slices.dur)}
    # 'never' was closed by the last E on its lane (stack order); 'outer' stays open to the end
    assert got["inner"] == (2000, 1000)
    assert got["never"] == (3500, 5500)
    assert got["outer"] == (1000, 20000 - 1000)
    assert store.report.open_slices == 1
    assert store.report.dropped["'E' without a matching 'B'"] == 1


def test_args_are_lazy_and_exact(tmp_path):
    events = [x_event(f"op{i}", 1, i % 3, float(i), 1.0, args={"i": i, "s": "x},{y", "n": [1, {"k": i}]})
              for i in range(2000)]
    path = dump_events(events, tmp_path / "t.json", style="spaces")
    [store] = load(path, chunk_bytes=4096)
    rng = np.random.default_rng(1)
    picks = rng.choice(len(store.slices), 50, replace=False)
    for i, args in zip(picks, store.args_many(picks)):
        k = int(store.strings[int(store.slices.name[i])][2:])
        assert args == {"i": k, "s": "x},{y", "n": [1, {"k": k}]}
    assert store.args(int(picks[0])) == store.args_many(picks[:1])[0]


def test_task_type_is_a_column(tmp_path):
    [store] = load(dump_events(sample_events(), tmp_path / "t.json"))
    tt = {store.strings[int(n)]: (store.strings[int(t)] if t >= 0 else None)
          for n, t in zip(store.slices.name, store.slices.task_type)}
    assert tt["MatMul"] == "AI_CORE" and tt["Cast"] == "AI_VECTOR_CORE" and tt["Old"] is None


def test_gzipped_trace_is_reported_under_the_name_given(tmp_path):
    """The decompressed copy is an implementation detail: the report, the store's paths and
    the problems all name the ``.gz`` file, while the args still come from the readable copy."""
    events = [x_event("a", 1, 1, 1.0, 2.0, args={"k": 1}), x_event("b", 1, 1, "bad", 1.0),
              {"name": "orphan", "ph": "E", "pid": 1, "tid": 2, "ts": 9.0}, x_event("c", 1, 1, 5.0, 1.0)]
    plain = dump_events(events, tmp_path / "t.json")
    gz = tmp_path / "trace.json.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    [store] = load(gz)
    assert store.paths == [gz]
    assert store.report.dropped == {"'ts' is not a number": 1, "'E' without a matching 'B'": 1}
    # event #1 is the bad ts, event #2 the unmatched E (indices within the file)
    assert sorted((p.path, p.event) for p in store.report.examples) == [(str(gz), 1), (str(gz), 2)]
    assert store.args(0) == {"k": 1}


def test_gzipped_file_that_is_not_a_trace_names_the_gz(tmp_path):
    gz = tmp_path / "notes.json.gz"
    gz.write_bytes(gzip.compress(b"hello, not json"))
    [store] = load(gz)
    assert store.report.error.startswith(f"{gz}: not a JSON trace")
