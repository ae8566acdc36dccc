"""Bad input never raises: everything readable loads and the report says what and where."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from timelineview.model import load

from ..tracefile import dump_events, reference_slices, slice_set, x_event


def events_with_offsets(n: int, seed: int = 0) -> tuple[list[dict], bytes, list[int]]:
    """Events, the file bytes, and the byte offset just after each event's closing brace."""
    rng = random.Random(seed)
    events = []
    for i in range(n):
        e = x_event(rng.choice(["a},{b", "MatMul", 'q"u\\"ote', "ü"]) + str(i), rng.randint(1, 3), rng.randint(0, 2),
                    f"{1700000000000000 + i * 7}.{rng.randint(0, 999):03d}", round(rng.random() * 5, 3),
                    args={"nested": [{"x": "]}"}, {"y": i}]})
        events.append(e)
    parts, ends, pos = [], [], 1
    for i, e in enumerate(events):
        text = json.dumps(e, indent=rng.choice([None, 1]))
        sep = ", " if i else ""
        pos += len(sep.encode()) + len(text.encode())
        parts.append(sep + text)
        ends.append(pos)
    data = ("[" + "".join(parts) + "]").encode()
    return events, data, ends


def test_truncation_at_any_offset_loads_the_complete_prefix(tmp_path):
    events, data, ends = events_with_offsets(60)
    rng = random.Random(5)
    cuts = sorted(rng.sample(range(1, len(data) - 1), 40)) + [ends[10], ends[10] + 1, ends[-1]]
    for cut in cuts:
        path = tmp_path / f"cut{cut}.json"
        path.write_bytes(data[:cut])
        [store] = load(path, chunk_bytes=512)
        complete = [e for e, end in zip(events, ends) if end <= cut]
        assert slice_set(store) == reference_slices(complete), cut
        assert store.report.truncated, cut
        last_end = max([end for end in ends if end <= cut], default=None)
        if last_end is not None:
            assert store.report.truncated_offset == last_end, cut


@pytest.mark.parametrize("tail,truncated", [(b",", True), (b",\n", True), (b"", True), (b"]", False),
                                            (b",]", False), (b"\n]\n", False)])
def test_endings_written_by_interrupted_producers(tmp_path, tail, truncated):
    events = [x_event("a", 1, 1, 1.0, 1.0), x_event("b", 1, 1, 3.0, 1.0)]
    body = ",".join(json.dumps(e) for e in events).encode()
    path = tmp_path / "t.json"
    path.write_bytes(b"[" + body + tail)
    [store] = load(path)
    assert slice_set(store) == reference_slices(events)
    assert store.report.truncated == truncated


@pytest.mark.parametrize("content,message", [
    (b"", "empty"),
    (b"   \n", "empty"),
    (b"]", ""),
    (b"hello world", "not a JSON trace"),
    (b'{"foo": 1}', "traceEvents"),
    (b"\x00\x01\x02", "not a JSON trace"),
])
def test_unreadable_files_report_and_do_not_raise(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    [store] = load(path)
    assert len(store.slices) == 0
    text = store.report.summary() + " ".join(store.report.to_json()["warnings"])
    assert message in text
    if content == b"]":
        assert any("only ']'" in w for w in store.report.warnings)


def test_bad_events_are_dropped_one_by_one_with_place(tmp_path):
    good = [x_event(f"g{i}", 1, 1, float(i * 10), 1.0) for i in range(6)]
    raw = [json.dumps(e) for e in good]
    raw.insert(2, '{"name": "nan", "ph": "X", "pid": 1, "tid": 1, "ts": NaN, "dur": 1}')
    raw.insert(3, '{"name": "inf", "ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": Infinity}')
    raw.insert(4, '{"name": "types", "ph": "X", "pid": [1], "tid": 1, "ts": 5, "dur": 1}')
    raw.insert(5, '{"name": "nots", "ph": "X", "pid": 1, "tid": 1, "ts": "abc", "dur": 1}')
    raw.insert(6, '{"name": "noph", "pid": 1, "tid": 1, "ts": 5, "dur": 1}')
    raw.insert(7, '{"name": "neg", "ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": -3}')
    raw.insert(8, '{"name": "weird", "ph": "Q", "pid": 1, "tid": 1, "ts": 5}')
    data = ("[" + ",\n".join(raw) + "]").encode()
    bad_utf8 = b'{"name": "bad\xff\xfeutf", "ph": "X", "pid": 1, "tid": 1, "ts": 99, "dur": 1}'
    data = data[:-1] + b",\n" + bad_utf8 + b"]"
    path = tmp_path / "t.json"
    path.write_bytes(data)
    [store] = load(path)
    names = sorted(store.strings[int(n)] for n in store.slices.name)
    assert names == sorted([e["name"] for e in good] + ["bad\ufffd\ufffdutf"])
    rep = store.report
    assert rep.dropped_events == 7
    assert rep.dropped["unknown phase 'Q'"] == 1
    assert rep.dropped["'ts' is not a number"] == 2  # NaN and "abc"
    assert rep.dropped["'dur' is not a number"] == 1
    assert rep.dropped["negative 'dur'"] == 1
    assert rep.dropped["pid/tid of a wrong type"] == 1
    assert rep.dropped["missing or non-string 'ph'"] == 1
    nan_at = data.index(b'{"name": "nan"')
    example = next(p for p in rep.examples if p.offset == nan_at)
    assert example.event == 2 and example.path == str(path)
    assert any("invalid UTF-8" in w for w in rep.warnings)


def test_garbage_between_events_is_skipped(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b'[{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}, }} garbage ,'
                     b'{"name":"b","ph":"X","pid":1,"tid":1,"ts":2,"dur":1}]')
    [store] = load(path)
    assert sorted(store.strings[int(n)] for n in store.slices.name) == ["a", "b"]


def test_lost_string_resyncs_on_next_event(tmp_path):
    events = [x_event(f"e{i}", 1, 1, float(i), 0.5) for i in range(8)]
    raw = [json.dumps(e) for e in events]
    raw[3] = raw[3].replace('"name": "e3"', '"name": "e3')  # an unterminated string
    path = tmp_path / "t.json"
    path.write_bytes(("[" + ", ".join(raw) + "]").encode())
    [store] = load(path)
    names = {store.strings[int(n)] for n in store.slices.name}
    assert {"e0", "e1", "e2"} <= names and {"e5", "e6", "e7"} <= names
    assert "e3" not in names
    assert store.report.warnings or store.report.dropped_events


def test_missing_dur_reads_as_zero_length(tmp_path):
    path = dump_events([{"name": "a", "ph": "X", "pid": 1, "tid": 1, "ts": 1.0}], tmp_path / "t.json")
    [store] = load(path)
    assert store.slices.dur.tolist() == [0]
    assert any("without 'dur'" in w for w in store.report.warnings)


def element_ends(data: bytes) -> tuple[list[dict], list[int]]:
    """Each top-level element and the byte offset just after it, by json.raw_decode."""
    text = data.decode("utf-8")
    assert text.lstrip().startswith("[")
    dec = json.JSONDecoder()
    pos = text.index("[") + 1
    events, ends = [], []
    while True:
        while text[pos] in " \n\r\t,":
            pos += 1
        if text[pos] == "]":
            return events, ends
        obj, pos = dec.raw_decode(text, pos)
        events.append(obj)
        ends.append(len(text[:pos].encode("utf-8")))


def test_truncated_generated_msprof_file_loads_the_complete_prefix(tmp_path):
    from timelineview.synthetic import CardSpec, generate_card

    src = tmp_path / "full.json"
    generate_card(src, CardSpec(seed=1, steps=2, tasks_per_step=30), "msprof")
    data = src.read_bytes()
    events, ends = element_ends(data)
    rng = random.Random(11)
    for cut in sorted(rng.sample(range(2, len(data) - 1), 25)):
        path = tmp_path / "cut.json"
        path.write_bytes(data[:cut])
        [store] = load(path, chunk_bytes=2048)
        complete = [e for e, end in zip(events, ends) if end <= cut]
        assert slice_set(store) == reference_slices(complete), cut
        assert store.report.truncated


@pytest.mark.parametrize("head", [b"]", b"\x00", b'"', b"]\n", b"\x00["])
def test_a_damaged_first_byte_costs_no_event(tmp_path, head):
    """A ']' or a NUL before the first event is damage, not an empty or UTF-16 file: every event after it
    is read and the report says where reading started."""
    events, data, _ = events_with_offsets(30, seed=3)
    damaged = head + data[1:] if head in (b"]", b"\x00", b'"') else head + data
    path = tmp_path / "t.json"
    path.write_bytes(damaged)
    [store] = load(path, chunk_bytes=512)
    assert slice_set(store) == reference_slices(events)
    first = damaged.index(b"{")
    assert any(f"read from the event at byte {first}" in w for w in store.report.warnings)


def test_a_utf16_file_is_still_refused(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(json.dumps([x_event("a", 1, 1, 1.0, 1.0)]).encode("utf-16-le"))
    [store] = load(path)
    assert len(store.slices) == 0 and "NUL byte" in store.report.summary()


def test_damage_in_the_first_event_too_costs_only_that_event(tmp_path):
    """The opening bracket and the first event's brace both damaged: reading starts inside or after that
    event (the first object holding a "ph" nearby), and every later event is read."""
    events, data, ends = events_with_offsets(30, seed=4)
    damaged = b'"\n"' + data[2:]  # '[' -> '"', and the first event's '{' -> '"'
    path = tmp_path / "t.json"
    path.write_bytes(damaged)
    [store] = load(path, chunk_bytes=512)
    assert ends[0] > 64  # the next object starts further than a few bytes away
    assert not Counter(reference_slices(events[1:])) - Counter(slice_set(store))  # none missing


def test_a_bracket_in_place_of_an_event_start_inside_a_range_does_not_end_the_array(tmp_path):
    """`},\\n]"ph": ...` in the middle of the file (a flipped '{'): the array goes on, as the layout
    found it; only the event the byte sits in is lost, and it is counted (it ended the range's read,
    losing the rest of the range without a word)."""
    from timelineview.model.store.report import MAX_EXAMPLES

    events = [x_event(f"op{k}", 1, 1, 10.0 * k, 2.0, args={"k": k}) for k in range(300)]
    parts = [json.dumps(e).encode() for e in events]
    parts[40] = b"]" + parts[40][1:]
    path = tmp_path / "t.json"
    path.write_bytes(b"[" + b",\n".join(parts) + b"]")
    for chunk in (2048, 1 << 20):  # the damage in a range before the last, and in the last
        [store] = load(str(path), chunk_bytes=chunk)
        kept = [e for k, e in enumerate(events) if k != 40]
        assert slice_set(store) == reference_slices(kept), chunk
        assert store.report.dropped_events == 1 and len(store.report.examples) <= MAX_EXAMPLES


@pytest.mark.parametrize("after", ['"samples": [{"cpu": 0, "tid": 1, "ts": 5, "name": "s", "weight": 1}]',
                                   '"other": [{"ph": "X", "name": "z", "pid": 9, "tid": 9, "ts": 1, "dur": 1}]'])
def test_an_array_after_trace_events_is_not_read_as_events(tmp_path, after):
    """The layout takes the last ']' that closes the object as the array's end, which may be a later
    array's: the ']' of traceEvents followed by ',' and a key ends the events there."""
    events = [x_event(f"op{k}", 1, 1, 10.0 * k, 2.0) for k in range(40)]
    path = tmp_path / "t.json"
    path.write_text('{"traceEvents": ' + json.dumps(events) + ", " + after + "}")
    [store] = load(str(path))
    assert slice_set(store) == reference_slices(events)
    assert store.report.dropped_events == 0 and not store.report.warnings


def test_an_integer_of_thousands_of_digits_drops_its_event_only(tmp_path):
    """Python's int parser refuses 4300+ digits with a plain ValueError (no position), which the
    tolerant scan took for a JSON error and raised on."""
    events = [x_event(f"op{k}", 1, 1, 10.0 * k, 2.0) for k in range(6)]
    parts = [json.dumps(e) for e in events]
    parts[2] = parts[2][:-1] + ', "z": 1' + "0" * 5000 + "}}"  # a stray '}' after it too
    path = tmp_path / "t.json"
    path.write_text("[" + ", ".join(parts) + "]")
    [store] = load(str(path))
    assert slice_set(store) == reference_slices([e for k, e in enumerate(events) if k != 2])
    assert store.report.dropped_events == 1
