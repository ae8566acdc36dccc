"""Fuzz: byte flips, insertions and deletions in a generated trace never raise and never cost an
event the damage does not touch ("Done when"). Bounded to run in CI in well under a minute."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from timelineview.model import load
from timelineview.synthetic import CardSpec, WriteOptions, generate_card

from ..tracefile import reference_slices, slice_set

CHUNK = 4096  # small ranges: damage falls near and across range boundaries
EXAMPLES = 120


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> tuple[bytes, list[dict], list[tuple[int, int]]]:
    """A generated card re-written one event a line: (bytes, events, each event's [start, end))."""
    folder = tmp_path_factory.mktemp("fuzz")
    generated = folder / "gen.json"
    generate_card(generated, CardSpec(steps=2, tasks_per_step=60), options=WriteOptions(be_events=True,
                                                                                       instants=True))
    doc = json.loads(generated.read_bytes())
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out, spans, pos = [b"[\n"], [], 2
    for k, event in enumerate(events):
        text = json.dumps(event, ensure_ascii=False).encode()
        spans.append((pos, pos + len(text)))
        sep = b",\n" if k < len(events) - 1 else b"\n"
        out += [text, sep]
        pos += len(text) + len(sep)
    out.append(b"]")
    return b"".join(out), events, spans


MUTATION = st.tuples(st.sampled_from(["flip", "insert", "delete"]), st.floats(0, 1, exclude_max=True),
                     st.sampled_from(list(b'"{}[],:\\0 x') + list(range(256))))


def mutate(data: bytes, mutations) -> tuple[bytes, list[int]]:
    """Apply mutations at distinct positions, last first (so earlier positions stay put);
    returns the new bytes and the positions touched, in the original's offsets."""
    at = {}
    for kind, where, byte in mutations:
        at.setdefault(min(int(where * len(data)), len(data) - 1), (kind, byte))
    out = bytearray(data)
    for pos in sorted(at, reverse=True):
        kind, byte = at[pos]
        if kind == "flip":
            out[pos] = byte if byte != out[pos] else byte ^ 0x01
        elif kind == "insert":
            out[pos:pos] = bytes([byte])
        else:
            del out[pos]
    return bytes(out), sorted(at)


def test_the_unmutated_trace_loads_every_slice(tmp_path, trace):
    data, events, _ = trace
    (tmp_path / "t.json").write_bytes(data)
    [store] = load(tmp_path / "t.json", chunk_bytes=CHUNK)
    expected = reference_slices(events)  # the X events; B/E pairs add slices of their own
    assert len(expected) > 500 and not Counter(expected) - Counter(slice_set(store))
    assert store.report.dropped_events == 0


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutations=st.lists(MUTATION, min_size=1, max_size=4))
def test_damage_costs_only_the_events_it_touches(tmp_path, trace, mutations):
    data, events, spans = trace
    damaged, touched = mutate(data, mutations)
    path = tmp_path / "fuzz.json"
    path.write_bytes(damaged)
    [store] = load(path, chunk_bytes=CHUNK)  # never raises
    # an insertion at an event's first byte leaves the event whole, after the inserted byte
    intact = [e for e, (a, b) in zip(events, spans) if not any(a <= p < b for p in touched)]
    loaded = Counter(slice_set(store))
    missing = Counter(reference_slices(intact)) - loaded
    assert not missing, (mutations, touched, list(missing)[:3], store.report.summary()[:300])
