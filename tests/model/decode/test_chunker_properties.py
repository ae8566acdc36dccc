"""Property tests: any chunk size and any string content give the events json.loads gives."""

from __future__ import annotations

import json
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from timelineview.model import load
from timelineview.model.decode.timestamps import decimal_text_to_ns, strings_to_ns, tokens_to_ns

from ..tracefile import reference_slices, slice_set

tricky_text = st.text(alphabet=st.sampled_from(list('ab},{[]":\\ \n\t\u00e9\u4e2d')), max_size=12)
ts_text = st.builds(lambda i, f: f"{i}.{f:03d}", st.integers(0, 9 * 10**15), st.integers(0, 999))

event = st.fixed_dictionaries({
    "name": tricky_text,
    "ph": st.just("X"),
    "pid": st.one_of(st.integers(0, 2**40), st.integers(0, 99).map(str)),
    "tid": st.integers(0, 5),
    "ts": st.one_of(ts_text, st.integers(0, 10**9).map(lambda v: v / 100)),
    "dur": st.one_of(st.integers(0, 10**6).map(lambda v: v / 1000), st.integers(0, 999).map(str)),
}, optional={"args": st.dictionaries(tricky_text, st.one_of(tricky_text, st.integers()), max_size=3),
             "cat": tricky_text})


def render(events: list[dict], spacing: list[str]) -> str:
    parts = []
    for i, e in enumerate(events):
        parts.append((spacing[i % len(spacing)] if i else "") + json.dumps(e, ensure_ascii=False))
    return "[" + "".join(parts) + "]"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(event, min_size=1, max_size=25),
       spacing=st.lists(st.sampled_from([",", ", ", "\n,", ",\n  ", " , "]), min_size=1, max_size=3),
       chunk=st.integers(16, 2048))
def test_chunked_load_equals_json_loads(tmp_path_factory, events, spacing, chunk):
    path = tmp_path_factory.mktemp("p") / "t.json"
    path.write_text(render(events, spacing), encoding="utf-8")
    expected = reference_slices(json.loads(path.read_text(encoding="utf-8")))
    [store] = load(path, chunk_bytes=chunk, workers=1)
    assert slice_set(store) == expected
    assert store.report.dropped_events == 0 and not store.report.truncated


@given(st.integers(-(10**15), 10**15), st.integers(0, 10**9 - 1), st.integers(1, 9))
def test_decimal_strings_are_exact(whole, frac, places):
    text = f"{whole}.{str(frac).zfill(9)[:places]}"
    expected = int((Decimal(text) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))
    assert decimal_text_to_ns(text) == expected
    ns, ok = strings_to_ns([text, text])
    assert ok.all() and ns.tolist() == [expected, expected]


@given(st.lists(st.floats(0, 2**41, allow_nan=False), min_size=1, max_size=20))
def test_floats_below_2_42_us_round_to_written_ns(values):
    ns, ok, lossy = tokens_to_ns(values)
    assert ok.all() and not lossy
    for v, got in zip(values, ns.tolist()):
        assert abs(got - float(Decimal(v) * 1000)) <= 0.5 + 1e-6


@given(st.integers(1, 19), st.integers(0, 7), st.lists(st.integers(0, 10**19), min_size=1, max_size=8))
def test_same_shape_strings_match_the_exact_parser(width, decimals, numbers):
    """The numpy fast path for equal-length strings agrees with the exact parser, overflow included."""
    texts = []
    for v in numbers:
        digits = str(v).zfill(width + decimals)[-(width + decimals):]
        texts.append(digits[:width] + ("." + digits[width:] if decimals else ""))
    ns, ok = strings_to_ns(texts)
    for text, got, good in zip(texts, ns.tolist(), ok.tolist()):
        want = decimal_text_to_ns(text)
        if want is not None and -(2**63) <= want < 2**63:
            assert good and got == want, text
        else:
            assert not good, text


def test_a_cut_inside_an_event_two_ranges_before_the_end_is_read_past(tmp_path):
    """Strings holding '},{' put cuts inside the one event: the range decoded again from the
    event's real end ended past its own cut, inside the next range, which was taken as starting
    at a boundary and read as a fragment (the load said the file was cut short)."""
    event = {"name": "", "ph": "X", "pid": 0, "tid": 0, "ts": 0.0, "dur": 0.0, "args": {"},{": ""}, "cat": "},{"}
    path = tmp_path / "t.json"
    path.write_text(json.dumps([event]))
    [store] = load(str(path), chunk_bytes=16)
    assert len(store.slices) == 1
    assert store.report.dropped_events == 0 and not store.report.truncated
