"""Damage costs about what clean bytes cost: the whole events between damaged
ones are checked and decoded in runs, and a damaged event is settled without walking its bytes
one character at a time in Python; every whole event is kept, with its args, and each damaged
one is counted at its file offset and event index."""

from __future__ import annotations

import json
import re

import pytest

from timelineview.model import load
from timelineview.model.decode import chunk_decode
from timelineview.model.decode.damaged import range_split, tolerant
from timelineview.model.load.jit import scanner_available
from timelineview.model.store.report import MAX_EXAMPLES

from ..tracefile import reference_slices, slice_set, x_event
from .test_scanner_equivalence import assert_same

MISSING_BRACKET = (b'"args": {"k"', b'"args": [{"k"')  # an array opened and never closed: the issue's case


def encode(events: list[dict]) -> list[bytes]:
    return [json.dumps(e).encode() for e in events]


def write(tmp_path, parts: list[bytes], sep: bytes = b", ") -> str:
    path = tmp_path / "t.json"
    path.write_bytes(b"[" + sep.join(parts) + b"]")
    return str(path)


def offsets(parts: list[bytes], sep: bytes = b", ") -> list[int]:
    """File offset of each part when written by ``write``."""
    out, pos = [], 1
    for p in parts:
        out.append(pos)
        pos += len(p) + len(sep)
    return out


def events_with_args(n: int) -> list[dict]:
    return [x_event(f"op{i}", 1, i % 3, 1000 + i * 10, 2, args={"k": "v", "i": i}) for i in range(n)]


def count_calls(monkeypatch, name: str) -> list[int]:
    calls = [0]
    real = getattr(tolerant, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(tolerant, name, counting)
    return calls


def test_every_other_event_damaged_is_counted_without_a_walk_per_event(tmp_path, monkeypatch):
    events = events_with_args(600)
    parts = encode(events)
    damaged = set(range(0, 600, 2))
    for k in damaged:
        parts[k] = parts[k].replace(*MISSING_BRACKET)
    walks = count_calls(monkeypatch, "element_end")
    [store] = load(write(tmp_path, parts), chunk_bytes=4096)
    kept = [e for k, e in enumerate(events) if k not in damaged]
    assert slice_set(store) == reference_slices(kept)
    assert store.report.dropped_events == len(damaged)
    where = offsets(parts)
    first = sorted(damaged)[:MAX_EXAMPLES]
    assert [(p.offset, p.event) for p in store.report.examples] == [(where[k], k) for k in first]
    assert all("unreadable" in p.reason for p in store.report.examples)
    # the character walk reads only each range's last element (the old resync walked each damaged event 2+ times)
    assert walks[0] < len(damaged) // 4, walks[0]


def test_a_damaged_event_is_located_up_to_the_next_event(tmp_path):
    parts = encode(events_with_args(50))
    parts[20] = parts[20].replace(*MISSING_BRACKET)
    [store] = load(write(tmp_path, parts))
    where = offsets(parts)
    assert store.report.dropped_events == 1
    [example] = store.report.examples
    assert (example.offset, example.event) == (where[20], 20)
    assert any(w.endswith(f"unreadable bytes {where[20]}..{where[21]}") for w in store.report.warnings)


def tricky_events(n: int) -> list[dict]:
    """Events whose bytes hold '{"' after ',' inside them: arrays of objects, strings."""
    return [x_event(f"op{i}, {{", 1, i % 2, 5000 + i * 10, 3,
                    args={"arr": [{"a": i}, {"b": "x, {"}, {"c": [{"d": 1}, {"e": 2}]}], "s": 'q,{"ph": 1}', "i": i})
            for i in range(n)]


@pytest.mark.parametrize("chunk", [700, 2048, 1 << 20])
@pytest.mark.parametrize("damage, survives", [
    (lambda p: p.replace(b'"arr": [{"a"', b'"arr": [[{"a"', 1), False),  # an extra '['
    (lambda p: p.replace(b'"s": "q', b'"s": q', 1), False),  # a lost quote
    (lambda p: p[:-1], False),  # a missing '}'
    (lambda p: p.replace(b'"ph"', b'"ph" "', 1), False),  # a broken key
    (lambda p: p + b"}", True),  # a stray '}' after the event
])
def test_whole_events_keep_their_args_around_damage(tmp_path, chunk, damage, survives):
    events = tricky_events(120)
    parts = encode(events)
    touched = set(range(3, 120, 9))
    for k in touched:
        changed = damage(parts[k])
        assert changed != parts[k]
        parts[k] = changed
    [store] = load(write(tmp_path, parts, b",\n"), chunk_bytes=chunk)
    whole = [e for k, e in enumerate(events) if survives or k not in touched]
    assert slice_set(store) == reference_slices(whole)
    assert store.report.dropped_events == (0 if survives else len(touched))
    # the args reader finds the same elements as the loader: every slice's args are its own event's
    by_name = {e["name"]: e["args"] for e in events}
    for i in range(len(store.slices)):
        name = store.strings[int(store.slices.name[i])]
        assert store.args(i) == by_name[name], name


def test_the_split_settles_damaged_events_in_one_look_each():
    parts = encode(events_with_args(300))
    for k in range(1, 300, 3):
        parts[k] = parts[k].replace(*MISSING_BRACKET)
    buf = b", ".join(parts)
    found = range_split.split(buf)
    where = [o - 1 for o in offsets(parts)]  # offsets in ``buf`` (no leading '[')
    assert found.starts.tolist() == where
    damaged = {k for k, piece in found.exact.items() if piece.value is None}
    assert damaged == set(range(1, 300, 3))
    assert all(found.exact[k].end == where[k + 1] for k in damaged if k + 1 < len(where))
    intact = [k for k in range(300) if k not in found.exact]
    assert all(json.loads(buf[found.starts[k]:found.ends[k]]) == json.loads(parts[k]) for k in intact)


def damaged_card(tmp_path) -> tuple[str, int]:
    """A generated card (flows, counters, B/E, instants, metadata) with one host X event in 20 damaged."""
    from timelineview.synthetic import CardSpec, WriteOptions, generate_card

    path = tmp_path / "trace_view.json"
    generate_card(path, CardSpec(seed=3, steps=3, tasks_per_step=400), "msprof",
                  options=WriteOptions(be_events=True, instants=True))
    data = path.read_bytes()
    xs = [m.start() for m in re.finditer(rb'\{"ph": "X"', data)]
    out = bytearray(data)
    for at in reversed(xs[::20]):
        out[at + 1:at + 1] = b'"broken" '  # a key without its ':'
    path.write_bytes(bytes(out))
    return str(path), len(xs[::20])


@pytest.mark.skipif(not scanner_available(), reason="numba is not installed")
def test_runs_in_damaged_ranges_read_by_the_scanner_load_as_typed(tmp_path, monkeypatch):
    path, n_damaged = damaged_card(tmp_path)
    typed_elements = [0]
    real = chunk_decode._typed_pieces

    def counting(data, starts, ends, pieces, *rest):
        typed_elements[0] += len(pieces)
        return real(data, starts, ends, pieces, *rest)

    monkeypatch.setattr(chunk_decode, "_typed_pieces", counting)
    scanned = assert_same(path, monkeypatch, chunk_bytes=128 << 10)  # the typed decode, then the scanner
    assert n_damaged > 3 and scanned.report.dropped_events == n_damaged
    typed = {}
    for jit in ("0", "1"):
        typed_elements[0] = 0
        monkeypatch.setenv("TIMELINEVIEW_JIT", jit)
        load(path, workers=1, chunk_bytes=128 << 10)
        typed[jit] = typed_elements[0]
    # with the scanner, the whole events around each damaged one are its, not the typed decode's
    assert typed["1"] * 5 < typed["0"], typed


def test_a_range_ending_in_a_damaged_event_is_not_decoded_twice(tmp_path, monkeypatch):
    from timelineview.model.load.chunked import card_feed

    events = events_with_args(400)
    parts = [p.replace(*MISSING_BRACKET) for p in encode(events)]  # so every range ends in a damaged event
    redecoded = [0]
    real = card_feed.decode_range

    def counting(*args, **kwargs):
        redecoded[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(card_feed, "decode_range", counting)
    [store] = load(write(tmp_path, parts), chunk_bytes=2048)
    assert store.report.dropped_events == 400 and len(store.slices) == 0
    assert redecoded[0] == 0  # the loader re-decodes a range only when the one before ended elsewhere


def test_args_of_a_damaged_range_whose_last_event_runs_far_past_its_cut(tmp_path):
    """A '},{' inside a long string puts a cut inside its event, which runs 150 kB past it: the args
    reader splits each damaged range as the decode did (``split_chunk``, reading past the end as far
    as the last element needs), so every kept slice still gets its own args."""
    long_text = "a" * 3000 + "},{" + "v" * 150_000
    events = [x_event(f"op{i}", 1, 1, 1000 + i * 10, 2, args={"k": long_text if i % 4 == 3 else "v", "i": i})
              for i in range(12)]
    parts = encode(events)
    for k in (2, 6, 10):
        parts[k] = parts[k].replace(b'"ph"', b'"ph" "', 1)  # a broken key just before each long event
    [store] = load(write(tmp_path, parts), chunk_bytes=4096)
    kept = {e["name"]: e["args"] for k, e in enumerate(events) if k not in (2, 6, 10)}
    assert store.report.dropped_events == 3 and len(store.slices) == len(kept)
    for i in range(len(store.slices)):
        name = store.strings[int(store.slices.name[i])]
        assert store.args(i) == kept[name], name
