"""A bad value drops that value (or its event) with a report, never the load."""

from __future__ import annotations

import json

import pytest

from timelineview.model import load

from ..tracefile import reference_slices, slice_set, use_jit, x_event

GOOD = [x_event("a", 1, 1, 1.0, 1.0), x_event("b", 1, 2, 5.0, 2.0)]


def write(tmp_path, first: str, events=GOOD) -> str:
    path = tmp_path / "t.json"
    path.write_text("[" + ",".join([first, *map(json.dumps, events)]) + "]")
    return str(path)


@pytest.mark.parametrize("kind", ["process_sort_index", "thread_sort_index"])
@pytest.mark.parametrize("value", ["1e400", "-1e400", "Infinity", "-Infinity", '"Infinity"', '"1e400"', "9" * 401,
                                   "NaN"])
def test_sort_index_out_of_range_keeps_the_default_order(tmp_path, kind, value):
    meta = f'{{"name": "{kind}", "ph": "M", "pid": 1, "tid": 1, "args": {{"sort_index": {value}}}}}'
    [store] = load(write(tmp_path, meta))
    assert slice_set(store) == reference_slices(GOOD)
    assert all(abs(int(v)) < 2**63 for v in store.lanes.sort_index)


@pytest.mark.parametrize("value", ["9" * 401, "-" + "9" * 401, "1e400"])
def test_counter_value_beyond_float64_is_skipped_and_reported(tmp_path, value):
    counter = f'{{"name": "mem", "ph": "C", "pid": 1, "ts": 3, "args": {{"big": {value}, "ok": 7}}}}'
    [store] = load(write(tmp_path, counter))
    assert slice_set(store) == reference_slices(GOOD)
    assert list(store.counters.series_key) == ["ok"] and store.counters.value.tolist() == [7.0]
    assert any("out of range" in w and "@ byte 1," in w for w in store.report.warnings), store.report.warnings


@pytest.mark.parametrize("depth", [900, 1000, 5000])
def test_args_nested_deeply_drop_only_their_event(tmp_path, depth):
    deep = x_event("deep", 1, 3, 2.0, 1.0)
    text = json.dumps(deep)[:-1] + ', "args": {"v": ' + "[" * depth + "]" * depth + "}}"
    [store] = load(write(tmp_path, text))
    names = {n for *_, n in slice_set(store)}
    assert {"a", "b"} <= names
    assert store.report.dropped_events == (0 if "deep" in names else 1)
    if "deep" not in names:
        assert store.report.examples[0].offset == 1


@pytest.mark.parametrize("jit", ["0", "1"])
@pytest.mark.parametrize("flow_id", ['""', '"1\\u0000"', '"0965"'])
def test_odd_text_flow_ids_load(tmp_path, monkeypatch, jit, flow_id):
    """An empty flow id made the typed decode raise; such ids name flows of their own."""
    use_jit(monkeypatch, jit)
    flows = [f'{{"ph": "{ph}", "id": {flow_id}, "pid": 1, "tid": {tid}, "ts": {ts}, "cat": "c", "name": "n"}}'
             for ph, tid, ts in (("s", 1, 1.5), ("f", 2, 5.5))]
    path = tmp_path / "t.json"
    path.write_text("[" + ",".join([*flows, *map(json.dumps, GOOD)]) + "]")
    [store] = load(str(path), workers=1)
    assert slice_set(store) == reference_slices(GOOD)
    assert len(store.flows) == 1 and store.report.dropped_events == 0
