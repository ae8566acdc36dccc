"""The compiled scanner and the typed decode give the same store, value for value.

The scanner is only a faster way to the same columns: every generator layout, the
damaged and adversarial inputs, and the real samples (when present) load identically
with it and without it (``TIMELINEVIEW_JIT=0``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from timelineview.model import load
from timelineview.model.decode.scan.scan_codes import RANGE_OK
from timelineview.model.load.jit import scanner_available, warm_scanner
from timelineview.synthetic import CardSpec, WriteOptions, generate_card

from .test_fuzz_damage import MUTATION, mutate

pytestmark = pytest.mark.skipif(not scanner_available(), reason="numba is not installed")

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"


def canonical(store) -> dict:
    """Everything a store says, by value (string and lane ids may be numbered differently)."""
    s = store.strings
    lane_name = [store.lane_full_name(i) for i in range(len(store.lanes))]
    sl = store.slices

    def text(ids):
        return [s[i] if i >= 0 else None for i in ids.tolist()]

    slices = sorted(zip([lane_name[i] for i in sl.lane.tolist()], sl.start.tolist(), sl.dur.tolist(),
                        text(sl.name), text(sl.cat), text(sl.task_type), sl.depth.tolist(), sl.src.tolist(),
                        sl.flags.tolist()))
    fl = store.flows

    def slice_src(ids):  # a slice by its place in the file, not its index in the store
        return [int(sl.src[i]) if i >= 0 else -1 for i in ids.tolist()]

    flow_names = [store.flow_name(e) for e in range(len(fl))]
    flows = sorted(zip(flow_names, text(fl.cat), [str(v) for v in fl.flow_id.tolist()], fl.src_ts.tolist(),
                       [lane_name[i] for i in fl.src_lane.tolist()], slice_src(fl.src_slice), fl.dst_ts.tolist(),
                       [lane_name[i] for i in fl.dst_lane.tolist()], slice_src(fl.dst_slice)))
    c = store.counters
    counters = {(c.series_name[k], c.series_counter[k], c.series_key[k], store.processes.name[c.series_process[k]]):
                (c.ts[c.offsets[k]:c.offsets[k + 1]].tolist(), c.value[c.offsets[k]:c.offsets[k + 1]].tolist())
                for k in range(len(c.series_name))}
    it = store.instants
    instants = sorted(zip(it.ts.tolist(), [lane_name[i] for i in it.lane.tolist()], text(it.name),
                          it.src.tolist()))
    report = json.loads(json.dumps(store.report.to_json(), default=str))
    return {"lanes": lane_name, "processes": list(store.processes.name), "slices": slices, "flows": flows,
            "counters": counters, "instants": instants, "report": report, "rank": store.rank,
            "index_rows": store.index.n_rows}


def load_both(path, monkeypatch, **kw):
    warm_scanner()  # small inputs use the scanner in this process only when it is ready
    monkeypatch.setenv("TIMELINEVIEW_JIT", "0")
    [typed] = load(path, workers=1, **kw)
    monkeypatch.setenv("TIMELINEVIEW_JIT", "1")
    [scanned] = load(path, workers=1, **kw)
    return typed, scanned


def assert_same(path, monkeypatch, **kw):
    typed, scanned = load_both(path, monkeypatch, **kw)
    a, b = canonical(typed), canonical(scanned)
    for key in a:
        assert a[key] == b[key], key
    return scanned


@pytest.mark.parametrize("layout", ["msprof", "msprof_per_iteration", "mindspore_gen_c", "mindspore_gen_b",
                                    "object"])
@pytest.mark.parametrize("pretty", [False, True])
def test_generated_layouts_load_the_same(tmp_path, monkeypatch, layout, pretty):
    spec = CardSpec(seed=5, rank=1, steps=3, streams=2, tasks_per_step=60, with_duplicates=True,
                    with_overlaps=pretty, clock_offset_ns=77)
    opts = WriteOptions(pretty=pretty, be_events=pretty, instants=pretty, step_trace=True)
    name = "card" if layout == "msprof_per_iteration" else "trace_view.json"
    target = tmp_path / name
    generate_card(target, spec, layout, options=opts)
    store = assert_same(target, monkeypatch, chunk_bytes=4096)
    assert len(store.slices) > 100


def test_the_scanner_reads_most_ranges_of_a_generated_file(tmp_path):
    """It is a fast path only if it is taken: count the ranges it declines."""
    from timelineview.model.decode.layout_scan import locate_array, plan_ranges
    from timelineview.model.decode.scan import byte_scan

    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=1, steps=2, tasks_per_step=80), "msprof")
    ranges = plan_ranges(str(target), locate_array(str(target)), 4096)
    data = np.frombuffer(bytearray(target.read_bytes()), dtype=np.uint8)  # as the loader passes it
    starts = np.array([a for a, _ in ranges])
    ends = np.array([b for _, b in ranges])
    state = byte_scan.scan_ranges(data, starts, ends).r_state
    assert (state[:-1] == RANGE_OK).all()


def test_a_scan_that_stops_to_grow_its_arrays_gives_the_same_output(tmp_path):
    """The compiled scan allocates nothing: when an array is full it stops, the caller
    grows it, and the scan resumes at that element. Starting every array at its smallest
    size makes it stop hundreds of times; the output must not change."""
    from timelineview.model.decode.layout_scan import locate_array, plan_ranges
    from timelineview.model.decode.scan import byte_scan

    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=3, steps=2, streams=3, tasks_per_step=60), "msprof")
    extra = [{"ph": "C", "name": f"mem{k % 5}", "pid": k % 3, "tid": 0, "ts": 10 + k,
              "args": {f"key{m}": k * m + 0.5 for m in range(1 + k % 8)}} for k in range(200)]
    extra += [{"ph": "X", "name": f"op{k}", "pid": 9, "tid": k, "ts": k, "dur": 1} for k in range(300)]
    text = target.read_text().rstrip().rstrip("]") + "," + json.dumps(extra)[1:]
    target.write_text(text)
    ranges = plan_ranges(str(target), locate_array(str(target)), 4096)
    data = np.frombuffer(bytearray(target.read_bytes()), dtype=np.uint8)
    starts = np.array([a for a, _ in ranges])
    ends = np.array([b for _, b in ranges])
    roomy = byte_scan.scan_ranges(data, starts, ends)
    cramped = byte_scan.scan_ranges(data, starts, ends, smallest=True)
    assert roomy._fields == cramped._fields
    for a, b in zip(roomy, cramped):
        np.testing.assert_array_equal(a, b)
    assert (roomy.r_state == RANGE_OK).all()
    events = json.loads(text)
    counters = [e for e in events if e["ph"] == "C"]
    assert len(roomy.samples) == len(roomy.values) == sum(len(e["args"]) for e in counters) > 800
    assert len(roomy.series_rows) == len({(e["pid"], e["name"], k) for e in counters for k in e["args"]})
    assert len(roomy.lane_rows) == len({(e["pid"], e["tid"]) for e in events if e["ph"] in "Xstf"})


def _event_text(rng: random.Random) -> str:
    """One event with the odd corners of real files: key order, numbers, strings, nesting."""
    ph = rng.choice(["X", "X", "X", "s", "f", "t", "M", "C", "i", "B", "E", "b"])
    ev: dict = {"ph": ph, "name": rng.choice(["op", "Conv2D", "a,b", 'q"uote', "é", "tab\t", "", "\\u0041"]),
                "pid": rng.choice([1, 4403217824, "7", "Device", None, -3]),
                "tid": rng.choice([0, 2, "519", "Ops"])}
    ts = rng.choice(["1736412474721123.620", "12.5", 3.25, 56635864664.91, 1.2800000000000011, 1e-05, 0,
                     "1736412474721123.6205", "12", -4.5, 5e15, "x"])
    ev["ts"] = ts
    if ph == "X":
        ev["dur"] = rng.choice([14.653, "2.5", 0.9799999999999999, 7, -1, 0.0005, 1.0005])
        if rng.random() < 0.5:
            ev["args"] = rng.choice([{"Task Type": "AI_CORE", "shape": [[1, 2], {"a": None}]}, {"Task Type": 3},
                                     {}, None, {"x": "}, {"}])
        if rng.random() < 0.3:
            ev["cat"] = rng.choice(["kernel", None])
    if ph in "stf":
        ev["id"] = rng.choice([5, "5", "0x1f", 1736412483535122875, "1736412483535122875123", 9223372036854775807])
        ev["cat"] = rng.choice(["HostToDevice", "async_npu", None])
        if rng.random() < 0.5:
            ev["bp"] = rng.choice(["e", "s"])
    if ph == "M":
        ev["args"] = {"name": rng.choice(["Stream 1", "HCCL"])}
    if ph == "C":
        ev["args"] = {"value": rng.choice([1, 2.5, "3"])}
    keys = list(ev)
    rng.shuffle(keys)
    return json.dumps({k: ev[k] for k in keys}, ensure_ascii=rng.random() < 0.5,
                      separators=rng.choice([(",", ":"), (", ", ": "), (",\n ", " : ")]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), chunk=st.sampled_from([64, 256, 1024, 4096]))
def test_random_events_load_the_same(tmp_path_factory, monkeypatch, seed, chunk):
    rng = random.Random(seed)
    text = "[" + ", ".join(_event_text(rng) for _ in range(rng.randint(1, 60))) + "]"
    path = tmp_path_factory.mktemp("ev") / "trace_view.json"
    path.write_text(text, encoding="utf-8")
    assert_same(path, monkeypatch, chunk_bytes=chunk)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_events_scan_the_same_when_the_scan_stops_for_room(seed):
    """Stops to grow arrays in ranges that the scanner then declines, or that hold
    counters and flows, change nothing in what it returns."""
    from timelineview.model.decode.scan import byte_scan

    rng = random.Random(seed)
    events = [_event_text(rng) for _ in range(rng.randint(1, 80))]
    text = ("[" + ", ".join(events) + "]").encode()
    cuts = sorted(rng.sample(range(1, len(events)), min(len(events) - 1, 6)))
    starts, ends, pos = [], [], 1
    for k, ev in enumerate(events):  # ranges of whole elements, cut at a few of them
        if k == 0 or k in cuts:
            starts.append(pos)
            if k:
                ends.append(pos - 2)
        pos += len(ev.encode()) + 2
    ends.append(len(text) - 1)
    data = np.frombuffer(bytearray(text), dtype=np.uint8)
    roomy = byte_scan.scan_ranges(data, np.array(starts), np.array(ends))
    cramped = byte_scan.scan_ranges(data, np.array(starts), np.array(ends), smallest=True)
    for a, b in zip(roomy, cramped):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), chunk=st.sampled_from([64, 256, 1024, 4096]),
       mutations=st.lists(MUTATION, min_size=1, max_size=6))
def test_damaged_random_events_load_the_same(tmp_path_factory, monkeypatch, seed, chunk, mutations):
    """The scanner reads on past an element it cannot read; what it read there is kept only where
    the tolerant split finds the same elements, so damage loads as with the typed decode alone
    (lanes and processes included: an element read inside a damaged one must not leave a lane)."""
    rng = random.Random(seed)
    text = ("[" + ", ".join(_event_text(rng) for _ in range(rng.randint(1, 80))) + "]").encode()
    damaged, _ = mutate(text, mutations)
    path = tmp_path_factory.mktemp("ev") / "trace_view.json"
    path.write_bytes(damaged)
    assert_same(path, monkeypatch, chunk_bytes=chunk)


def test_an_instant_dropped_for_its_time_makes_no_lane(tmp_path, monkeypatch):
    """With the typed decode an instant whose time does not fit int64 ns makes no lane; the scanner
    made one (an empty lane, its process listed), whether or not its range was read whole."""
    events = [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
              {"ph": "i", "name": "i", "pid": 7, "tid": "Ops", "ts": 12800000000000011},
              {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 1}]
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(events))
    scanned = assert_same(path, monkeypatch, chunk_bytes=64)
    assert [scanned.lane_full_name(i) for i in range(len(scanned.lanes))] == ["Device 1 / Stream 1"]
    assert scanned.report.dropped_events == 1


@pytest.mark.parametrize("after", ["x", "}", "x]"])
def test_a_bare_integer_time_reads_as_a_float_in_an_element_read_alone(tmp_path, monkeypatch, after):
    """An element the tolerant scan parses alone kept a JSON integer exact where the typed decode
    (and the scanner) read it as float64: 2^42 µs or more then loaded differently on the two paths."""
    ok = json.dumps({"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": 5, "dur": 1})
    big = json.dumps({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1736412474721123, "dur": 7})
    path = tmp_path / "trace_view.json"
    path.write_text(f"[{ok}, {big}{after}, {ok}]")
    scanned = assert_same(path, monkeypatch, chunk_bytes=4096)
    assert 1736412474721123000 in scanned.slices.start.tolist()  # the written µs, exactly


def test_the_scanner_reads_on_past_a_damaged_element():
    from timelineview.model.decode.scan import byte_scan
    from timelineview.model.decode.scan.scan_codes import RANGE_HOLES

    events = [json.dumps({"ph": "X", "name": f"op{k}", "pid": 1, "tid": 1, "ts": k, "dur": 1}) for k in range(9)]
    events[3] = events[3].replace('"dur"', '"dur" "')  # broken
    events[6] += "}"  # a stray '}' after a whole event
    text = ("[" + ", ".join(events) + "]").encode()
    data = np.frombuffer(bytearray(text), dtype=np.uint8)
    scan = byte_scan.scan_ranges(data, np.array([1]), np.array([len(text) - 1]))
    assert scan.r_state.tolist() == [RANGE_HOLES]
    where = [text.index(e.encode()) for e in events]
    # every whole event is read, the stray byte's included; only the broken one is left out
    assert scan.e_start.tolist() == [where[k] for k in range(9) if k != 3]
    assert scan.r_count.tolist() == [8]


@pytest.mark.parametrize("cut", [0.3, 0.61, 0.999])
def test_truncated_files_load_the_same(tmp_path, monkeypatch, cut):
    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=4, steps=2, tasks_per_step=40), "msprof")
    data = target.read_bytes()
    target.write_bytes(data[:int(len(data) * cut)])
    assert_same(target, monkeypatch, chunk_bytes=2048)


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="shared/samples is not present")
@pytest.mark.parametrize("sample", ["torch_npu/rank0_ascend_pt", "cann_per_iteration", "mindspore_1x", "misc"])
def test_real_samples_load_the_same(monkeypatch, sample):
    for path in sorted((SAMPLES / sample).rglob("*.json")):
        if "summary" in path.name:
            continue
        assert_same(path, monkeypatch, chunk_bytes=16384)


def test_small_loads_do_not_import_the_compiler(tmp_path):
    """numba and LLVM cost a process ~100 MB: a small file in a fresh process goes without."""
    import subprocess
    import sys

    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=2, steps=1, tasks_per_step=20), "msprof")
    code = ("import sys; from timelineview.model import load; [s] = load(sys.argv[1]); "
            "print(len(s.slices), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, check=True)
    count, imported = out.stdout.split()
    assert int(count) > 0 and imported == "False"


def test_a_large_load_in_a_fresh_process_leaves_numba_out_of_the_collectors_way(tmp_path):
    """A full garbage collection walking numba's ~120 000 objects held the GIL for 50-80 ms
    during loads (the GUI thread stalled): a large load readies the scanner first, which
    freezes them, and collections then walk only what came after."""
    import subprocess
    import sys

    from timelineview.model.load.chunked.decode_run import INLINE_BYTES

    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=8, steps=6, streams=3, tasks_per_step=2500), "msprof")
    assert target.stat().st_size > INLINE_BYTES
    # a file worth the scanner (above SCANNER_WORTH_BYTES, as it were) whose machine code is in numba's cache
    code = ("import gc, sys; from timelineview.model import load; "
            "from timelineview.model.load.chunked import decode_pool, decode_run; "
            "decode_run.SCANNER_WORTH_BYTES = decode_run.INLINE_BYTES; decode_pool.scanner_cached = lambda: True; "
            "[s] = load(sys.argv[1], workers=2); "
            "print(len(s.slices), 'numba' in sys.modules, gc.get_freeze_count(), len(gc.get_objects()))")
    out = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, check=True)
    count, imported, frozen, tracked = out.stdout.split()
    assert int(count) > 0 and imported == "True"
    assert int(frozen) > 50_000 and int(tracked) < int(frozen) / 5


@pytest.mark.parametrize("text", [
    b'"a\x01b"',  # a raw control character: not JSON
    b'"bad\\qescape"',  # an escape JSON does not have
    b'"caf\xc3\xa9"',  # valid UTF-8
    b'"caf\xff"',  # invalid UTF-8
    b'"\\ud800x"',  # a lone surrogate escape
    b'"tab\\t\\"quoted\\" \\u00e9"',
])
@pytest.mark.parametrize("where", ["name", "args"])
def test_odd_strings_load_the_same(tmp_path, monkeypatch, text, where):
    good = b'{"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": "%d.5", "dur": 1}'
    odd = (b'{"ph": "X", "name": ' + text + b', "pid": 1, "tid": 1, "ts": "7.5", "dur": 2}' if where == "name" else
           b'{"ph": "X", "name": "odd", "pid": 1, "tid": 1, "ts": "7.5", "dur": 2, "args": {"v": ' + text + b'}}')
    events = [good % k for k in range(40)] + [odd] + [good % k for k in range(40, 80)]
    path = tmp_path / "trace_view.json"
    path.write_bytes(b"[" + b", ".join(events) + b"]")
    assert_same(path, monkeypatch, chunk_bytes=512)


def test_thread_and_process_pools_load_the_same(tmp_path, monkeypatch):
    """A file past the in-process size decodes in the pool: threads with the scanner,
    processes with it, and processes with the typed decode all give the same store."""
    from timelineview.model.decode import chunk_decode
    from timelineview.model.load.chunked.decode_run import INLINE_BYTES
    from timelineview.model.load.loader import shutdown_pool

    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=8, steps=6, streams=3, tasks_per_step=2500), "msprof")
    assert target.stat().st_size > INLINE_BYTES
    stores = []
    for pool, jit in (("threads", "1"), ("processes", "1"), ("processes", "0")):
        monkeypatch.setenv("TIMELINEVIEW_POOL", pool)
        monkeypatch.setenv("TIMELINEVIEW_JIT", jit)
        shutdown_pool()  # the next load starts a pool of this kind
        try:
            [store] = load(target, workers=2)
        finally:
            shutdown_pool()
        stores.append(canonical(store))
        assert not chunk_decode._buffers  # the threads' read buffers are let go after the load
    for other in stores[1:]:
        for key in stores[0]:
            assert stores[0][key] == other[key], key


@pytest.mark.parametrize("args", [
    b'{"Task Type": null, "Task Type": "AI_CORE"}',
    b'{"Task Type": "A", "Task Type": "B"}',
    b'{"Task Type": "A", "Task Type": null}',
    b'{"Task Type": null}',
    b'{"a": {"Task Type": "nested"}, "b": ["Task Type"]}',
    b'{"Task Type": ["AI_CORE"]}',
    b'{"Task\\u0020Type": "escaped key"}',
])
def test_odd_task_types_load_the_same(tmp_path, monkeypatch, args):
    good = b'{"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": "%d.5", "dur": 1, "args": {"Task Type": "AI_CPU"}}'
    odd = b'{"ph": "X", "name": "odd", "pid": 1, "tid": 1, "ts": "7.5", "dur": 2, "args": ' + args + b'}'
    events = [good % k for k in range(30)] + [odd] + [good % k for k in range(30, 60)]
    path = tmp_path / "trace_view.json"
    path.write_bytes(b"[" + b", ".join(events) + b"]")
    store = assert_same(path, monkeypatch, chunk_bytes=512)
    assert len(store.slices) == 61


def test_counters_load_the_same(tmp_path, monkeypatch):
    """Counters the scanner reads (numbers, several keys, string pids, empty args) and ones
    it leaves to the typed decoder (an id, a string value, no args, an unreadable time),
    alone and side by side."""
    rng = random.Random(11)
    events = []
    for k in range(400):
        ev = {"ph": "C", "name": rng.choice(["HBM", "LLC", "AI Core Freq"]), "pid": rng.choice([7, "Device 2", 44032]),
              "tid": 0, "ts": f"{1736412474000000 + k * 10}.{k % 1000:03d}",
              "args": {"Read(MB/s)": rng.choice([0, 12.5, -3, 1e-05, 123456789012]), "Write(MB/s)": rng.random()}}
        odd = rng.random()
        if odd < 0.05:
            ev["id"] = 3
        elif odd < 0.1:
            ev["args"]["Read(MB/s)"] = "7"
        elif odd < 0.12:
            del ev["args"]
        elif odd < 0.14:
            ev["args"] = {}
        elif odd < 0.15:
            ev["ts"] = "soon"
        events.append(ev)
        if k % 7 == 0:
            events.append({"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": k * 10.0, "dur": 1.5})
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(events))
    store = assert_same(path, monkeypatch, chunk_bytes=2048)
    assert len(store.counters.ts) > 500


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=12), max_size=40))
def test_the_string_table_decodes_as_each_string_would(strings):
    """``_texts`` decodes the scanner's strings in one go; each must come out as
    ``json.loads`` reads it, escaped ones (quotes, controls, unicode escapes) included."""
    from timelineview.model.decode.scan.scan_decode import _texts

    text = "[" + ",".join(json.dumps(s, ensure_ascii=len(s) % 2 == 0) for s in strings) + "]"
    data = memoryview(bytearray(text.encode()))
    spans, pos = [], 1
    for s in strings:  # each string's content span and whether it holds escapes
        raw = json.dumps(s, ensure_ascii=len(s) % 2 == 0).encode()
        spans.append((pos + 1, pos + len(raw) - 1, 1 if b"\\" in raw else 0))
        pos += len(raw) + 1
    got = _texts(data, np.array(spans, dtype=np.int64).reshape(-1, 3))
    assert got == json.loads(text)


@pytest.mark.parametrize("distinct", [3, 3000])
def test_repeated_metadata_loads_the_same(tmp_path, monkeypatch, distinct):
    """MindSpore Gen C repeats the same M records for every event. The scanner reads only
    the last copy of each within a range: names must still be the last ones the file
    gives (a different record for the same thread in between), and the counts all of
    them. 3000 distinct records overflow its table of one range: copies it cannot place
    are read like any other."""
    events = []
    for k in range(4 * distinct):
        tid = k % distinct
        name = f"Stream {tid}" if k < 3 * distinct else f"Renamed {tid}"
        events.append({"name": "thread_name", "pid": 7, "tid": tid, "ts": 0, "ph": "M", "args": {"name": name}})
        events.append({"name": "thread_sort_index", "pid": 7, "tid": tid, "ts": 0, "ph": "M",
                       "args": {"sort_index": tid}})
        if k % 3 == 0:
            events.append({"name": "thread_name", "pid": 7, "tid": tid, "ts": 0, "ph": "M",
                           "args": {"name": f"Stream {tid}"}})
        events.append({"name": "op", "pid": 7, "tid": tid, "ts": k * 2.0, "dur": 1.0, "ph": "X"})
    path = tmp_path / "ascend_timeline_display_0.json"
    path.write_text(json.dumps(events, indent=1))
    for chunk in (2048, 1 << 20):
        store = assert_same(path, monkeypatch, chunk_bytes=chunk)
        names = {store.lane_full_name(i).split("/")[-1].strip() for i in range(len(store.lanes))}
        expected = {f"Renamed {t}" if (3 * distinct + t) % 3 else f"Stream {t}" for t in range(distinct)}
        assert expected <= names, sorted(expected - names)[:5]
        assert store.report.counts_by_ph["M"] == sum(e["ph"] == "M" for e in events)


def test_instants_load_the_same(tmp_path, monkeypatch):
    """Instants the scanner reads ("i") next to ones it leaves to the typed decoder ("I",
    odd fields), with times that do not convert, in ranges of every mix."""
    rng = random.Random(5)
    events = []
    for k in range(600):
        ev = {"ph": rng.choice("iiiiiiI"), "name": rng.choice(["step", "sync", "é", ""]),
              "pid": rng.choice([1, "2", 4403217632]), "tid": rng.choice([7, "7", 8]),
              "ts": rng.choice([f"{1736412474000000 + k}.{k % 1000:03d}", 12.5 + k, 56635864664.91])}
        odd = rng.random()
        if odd < 0.03:
            ev["ts"] = 1e400  # JSON's largest numbers become infinity: not a time
        elif odd < 0.05:
            del ev["ts"]
        elif odd < 0.07:
            ev["s"] = "g"
        elif odd < 0.09:
            ev["cat"] = None
        elif odd < 0.1:
            del ev["name"]
        elif odd < 0.11:
            ev["args"] = [1, {"a": None}]
        events.append(ev)
        if k % 5 == 0:
            events.append({"ph": "X", "name": "op", "pid": 1, "tid": 7, "ts": k * 10.0, "dur": 1.5})
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(events).replace("Infinity", "1e400"))
    for chunk in (512, 4096, 1 << 20):
        store = assert_same(path, monkeypatch, chunk_bytes=chunk)
        assert len(store.instants) > 500


@pytest.mark.parametrize("where", ["x_ts", "x_dur", "flow_ts", "counter_value", "meta_ts"])
def test_numbers_beyond_float64_load_the_same(tmp_path, monkeypatch, where):
    """1e400 is valid JSON but no float64: the typed decoder refuses it (its range goes to
    the tolerant reader). It once raised out of the scanner's path; now its range is left
    to the typed path there too."""
    events = []
    for k in range(40):
        events.append({"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": 2.5 * k, "dur": 1.5})
        events.append({"ph": "s", "name": "f", "cat": "c", "id": k, "pid": 1, "tid": 1, "ts": 2.5 * k + 0.5})
        events.append({"ph": "C", "name": "mem", "pid": 1, "tid": 0, "ts": 2.5 * k, "args": {"v": k + 0.25}})
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "ts": 0, "args": {"name": "T"}})
    target = {"x_ts": (0, "ts"), "x_dur": (4, "dur"), "flow_ts": (9, "ts"), "meta_ts": (15, "ts")}
    if where == "counter_value":
        events[10]["args"]["v"] = 1e300
    else:
        k, key = target[where]
        events[k][key] = 1e300
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(events).replace("1e+300", "1e400"))
    for chunk in (512, 1 << 20):
        assert_same(path, monkeypatch, chunk_bytes=chunk)
