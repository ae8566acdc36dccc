"""One stray or damaged byte costs at most the event it sits in."""

from __future__ import annotations

import json

import pytest

from timelineview.model import load
from timelineview.model.decode.damaged import tolerant

from ..tracefile import reference_slices, slice_set, x_event

N_EVENTS = 400
CHUNK = 2048  # many ranges, so the damage lands in a range that is not the last


def make_events(n: int = N_EVENTS) -> list[dict]:
    return [x_event(f"op{i}", 1, i % 3, f"{1700000000000000 + i * 7}.{i % 1000:03d}", 1.5,
                    args={"k": "v", "nested": [{"x": i}]}) for i in range(n)]


def encode(events: list[dict]) -> list[bytes]:
    return [json.dumps(e).encode() for e in events]


def write(tmp_path, parts: list[bytes], name: str = "t.json") -> str:
    path = tmp_path / name
    path.write_bytes(b"[" + b",".join(parts) + b"]")
    return str(path)


def offset_of(parts: list[bytes], k: int) -> int:
    """File offset of element k when written by ``write``."""
    return 1 + sum(len(p) + 1 for p in parts[:k])


@pytest.mark.parametrize("stray", [b'"', b",]", b"}", b"{", b"[", b"]", b"},"])
@pytest.mark.parametrize("after", [100, 396])
def test_stray_bytes_between_events_lose_nothing(tmp_path, stray, after):
    events = make_events()
    parts = encode(events)
    parts[after] = parts[after] + b"," + stray if stray != b",]" else parts[after] + stray
    [store] = load(write(tmp_path, parts), chunk_bytes=CHUNK)
    assert slice_set(store) == reference_slices(events)
    assert store.report.dropped_events == 0
    assert any(f"@ byte {offset_of(parts, after + 1) - 1 - len(stray)}" in w or "stray" in w
               for w in store.report.warnings), store.report.warnings


def test_a_stray_quote_after_event_100_of_8000_costs_nothing(tmp_path):
    events = make_events(8000)
    parts = encode(events)
    parts[101] = b'"' + parts[101]  # the issue's case: [{a},"{b},{c}]
    [store] = load(write(tmp_path, parts), chunk_bytes=64 << 10)
    assert slice_set(store) == reference_slices(events)


@pytest.mark.parametrize("damage, lost", [
    (lambda p: p.replace(b'"tid": 1', b'"tid": [1'), "extra ["),
    (lambda p: p.replace(b'"name": "', b'"name": '), "lost quote"),
    (lambda p: p.replace(b'{"k"', b'[{"k"', 1).replace(b'"v",', b'"v"},', 1), "missing ]"),
    (lambda p: p[:-1], "missing }"),
    (lambda p: p.replace(b'"ph"', b'"ph" "'), "broken key"),
])
@pytest.mark.parametrize("k", [1, 151, N_EVENTS - 3])  # events on tid 1, for the "tid" damage
def test_a_damaged_event_costs_only_itself_counted_and_located(tmp_path, damage, lost, k):
    events = make_events()
    parts = encode(events)
    damaged = damage(parts[k])
    assert damaged != parts[k], lost
    parts[k] = damaged
    [store] = load(write(tmp_path, parts), chunk_bytes=CHUNK)
    assert slice_set(store) == reference_slices(events[:k] + events[k + 1:]), lost
    assert store.report.dropped_events == 1, (lost, store.report.summary())
    [example] = store.report.examples
    assert example.offset == offset_of(parts, k), (lost, str(example))
    assert any(w.endswith(f"unreadable bytes {offset_of(parts, k)}..{offset_of(parts, k + 1)}")
               for w in store.report.warnings), store.report.warnings


def test_every_event_damaged_the_same_way_is_counted(tmp_path):
    """Each event's damage costs that event alone, at any count (that resync stays linear in the events is
    measured by benchmarks/bench_damaged.py, not timed here)."""
    def damaged_file(n: int) -> str:
        parts = [p.replace(b'"args": {"k": "v", "nested": [{"x": ', b'"args": [{"k": "v", "nested": [{"x": ')
                 for p in encode(make_events(n))]  # a '[' that never closes in every event
        return write(tmp_path, parts, f"d{n}.json")

    for n in (2000, 8000):
        [store] = load(damaged_file(n), chunk_bytes=64 << 10)
        assert len(store.slices) == 0 and store.report.dropped_events == n


def test_the_scanner_walks_a_damaged_buffer_once():
    # a resync that restarted from each damaged element's start would call element_end
    # O(n^2) times; count the calls instead of timing them
    parts = [p.replace(b'"tid": 0', b'"tid": [0') for p in encode(make_events(300))]
    buf = b",".join(parts)
    calls = 0
    real = tolerant.element_end

    def counting(b, s):
        nonlocal calls
        calls += 1
        return real(b, s)

    tolerant.element_end = counting
    try:
        pieces, _ = tolerant.scan(buf)
    finally:
        tolerant.element_end = real
    assert sum(p.value is not None for p in pieces) == 200  # tids 1 and 2 are intact
    assert sum(p.events for p in pieces if p.value is None) == 100
    assert calls < 6 * len(parts)


def test_two_arrays_one_after_the_other_are_both_read(tmp_path):
    events = make_events(6)
    parts = encode(events)
    path = tmp_path / "ab.json"
    path.write_bytes(b"[" + b",".join(parts[:3]) + b"][" + b",".join(parts[3:]) + b"]")
    [store] = load(path)
    assert slice_set(store) == reference_slices(events)
    assert any("second event array" in w for w in store.report.warnings)


def test_a_nested_traceevents_key_is_not_the_event_array(tmp_path):
    events = make_events(2)
    path = tmp_path / "o.json"
    path.write_text(json.dumps({"meta": {"traceEvents": [1, 2, 3]}, "traceEvents": events}))
    [store] = load(path)
    assert slice_set(store) == reference_slices(events)
    assert any("nested" in w and "skipped" in w for w in store.report.warnings)


def test_scalar_elements_are_reported_as_drops(tmp_path):
    events = make_events(3)
    parts = encode(events)
    path = write(tmp_path, [parts[0], b"42", parts[1], b"null", b'"text"', parts[2]])
    [store] = load(path)
    assert slice_set(store) == reference_slices(events)
    assert store.report.dropped_events == 3
    assert sorted(p.offset for p in store.report.examples) == [
        offset_of([parts[0], b"42", parts[1], b"null", b'"text"'], k) for k in (1, 3, 4)]


def test_fast_path_drops_carry_their_byte_offset(tmp_path):
    events = make_events(50)
    events[7]["ts"] = "abc"
    parts = encode(events)
    [store] = load(write(tmp_path, parts))
    [example] = store.report.examples
    assert example.offset == offset_of(parts, 7) and example.event == 7
    # no unknown place (-1) is printed; the path is left out, as pytest's folders count past -1 (pytest-137)
    assert "-1" not in store.report.summary().replace(str(tmp_path), "")


def test_unreadable_bytes_are_given_as_file_offsets(tmp_path):
    events = make_events()
    parts = encode(events)
    k = 301
    parts[k] = parts[k].replace(b'"tid": 1', b'"tid": [1')
    [store] = load(write(tmp_path, parts), chunk_bytes=CHUNK)
    a, b = offset_of(parts, k), offset_of(parts, k + 1)
    assert f"unreadable bytes {a}..{b}" in " ".join(store.report.warnings)
