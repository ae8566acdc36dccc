"""The compiled walk over a damaged range's stretches (``stretch_walk``) decides only what the
Python walk would decide the same way: its JSON reading never calls whole or broken what msgspec
reads otherwise, and a split with it equals the split without it on damaged traces of every kind
(byte flips, insertions, deletions, the issue's missing bracket, stray bytes, mixed at random)."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from timelineview.model.decode.damaged import range_split
from timelineview.model.decode.damaged.range_split import split
from timelineview.model.decode.damaged.tolerant import UNREADABLE
from timelineview.model.load.jit import scanner_available

from .test_fuzz_damage import MUTATION, mutate
from .test_resync_runs import MISSING_BRACKET, encode, events_with_args, tricky_events

pytestmark = pytest.mark.skipif(not scanner_available(), reason="numba is not installed")
_raw = msgspec.json.Decoder(msgspec.Raw)


def walk_kernel():
    from timelineview.model.decode.damaged import stretch_walk

    return stretch_walk


def pieces(found: range_split.Elements) -> tuple:
    """What a split found, with the damaged pieces wherever it keeps them."""
    exact = {k: (p.start, p.end, p.value, p.problem, p.events) for k, p in found.exact.items()}
    for k in found.unreadable.tolist():
        assert k not in exact
        exact[k] = (int(found.starts[k]), int(found.ends[k]), None, UNREADABLE, 1)
    return found.starts.tolist(), found.ends.tolist(), found.info, exact


def msgspec_says(data: bytes) -> tuple[str, int]:
    """("whole", -1), ("trailing", byte of the first trailing character), ("truncated", -1) or ("error", -1)."""
    try:
        _raw.decode(data)
    except msgspec.DecodeError as exc:
        text = str(exc)
        if "trailing characters" in text:
            return "trailing", int(text.rsplit("(byte ", 1)[1].rstrip(")")) - 1
        return ("truncated" if "truncated" in text else "error"), -1
    except RecursionError:
        return "deep", -1
    return "whole", -1


JSONISH = st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b",", b":", b'"', b'"a"', b'"ph"', b"1", b"-0.5e3",
                                    b"01", b"1.", b"true", b"nul", b" ", b"\n", b"\\", b'\\"', b"\\u00e9",
                                    b"\\ud800", b"\xc3\xa9", b"\x01", b"NaN", b'{"k":', b'[{"a":1}', b'"x"}']),
                    min_size=1, max_size=30).map(lambda parts: b"{" + b"".join(parts))


@settings(max_examples=400, deadline=None, database=None)
@given(data=JSONISH)
def test_value_end_never_disagrees_with_msgspec(data):
    sw = walk_kernel()
    buf = np.frombuffer(data, dtype=np.uint8)
    how, p = sw.value_end(buf, 0, len(data), np.zeros(sw.MAX_DEPTH, dtype=np.uint8))
    said, at = msgspec_says(data)
    if how == sw.DONE:
        rest = data[p:].lstrip(b" \t\r\n")
        assert (said, at) == (("trailing", len(data) - len(rest)) if rest else ("whole", -1)), data
        assert msgspec_says(data[:p]) == ("whole", -1)
    elif how == sw.BROKEN:
        assert said == "error", data


def test_value_end_by_hand():
    sw = walk_kernel()
    stack = np.zeros(sw.MAX_DEPTH, dtype=np.uint8)

    def ask(text: bytes) -> tuple[int, int]:
        how, p = sw.value_end(np.frombuffer(text, dtype=np.uint8), 0, len(text), stack)
        return int(how), int(p)

    whole = b'{"a": [1, {"b": null}], "c": "x"}'
    assert ask(whole + b" ,") == (sw.DONE, len(whole))
    assert ask(b'{"a": [{"k": "v"}}, {"ph": "X"}') == (sw.BROKEN, 17)  # the missing ']'
    assert ask(b'{"a": 1 "b": 2}') == (sw.BROKEN, 8)
    assert ask(b'{"a": 1,}') == (sw.BROKEN, 8)
    assert ask(b'{"a": [1, 2')[0] == sw.UNSURE  # cut short: msgspec says truncated
    assert ask(b'{"a": "\\ud800"}')[0] == sw.UNSURE  # msgspec reads a lone surrogate as truncated
    assert ask(b'{"a": NaN}')[0] == sw.UNSURE
    assert ask(b'{"a": "\xc3\xa9"}')[0] == sw.UNSURE  # non-ASCII: left to the Python walk
    assert ask(b'{"a": 01}')[0] == sw.UNSURE
    deep = b'{"a": ' + b"[" * sw.MAX_DEPTH + b"]" * sw.MAX_DEPTH + b"}"
    assert ask(deep)[0] == sw.UNSURE


def damaged_range(rng: np.random.Generator, n: int) -> bytes:
    """n events of three shapes, about half damaged in one of several ways."""
    instants = [{"ph": "i", "name": f"m{i}", "pid": 1, "tid": 2, "ts": i} for i in range(n - n // 2 - n // 4)]
    parts = encode(events_with_args(n // 2)) + encode(tricky_events(n // 4)) + encode(instants)
    rng.shuffle(parts)
    damage = [lambda p: p.replace(*MISSING_BRACKET), lambda p: p + b"}", lambda p: p + b" }}",
              lambda p: p[:-1], lambda p: p.replace(b'"ph"', b'"ph" "', 1), lambda p: b'"' + p,
              lambda p: p.replace(b": ", b": NaN, ", 1), lambda p: p.replace(b'"', b"\xff", 1),
              lambda p: p + b"]", lambda p: p[: len(p) // 2]]
    for k in rng.choice(n, size=n // 2, replace=False).tolist():
        parts[k] = damage[int(rng.integers(len(damage)))](parts[k])
    return b", ".join(parts)


@pytest.mark.parametrize("seed", range(12))
def test_a_split_is_the_same_with_the_compiled_walk(seed):
    data = damaged_range(np.random.default_rng(seed), 400)
    for stop in (None, len(data) // 2, len(data) - 7):
        assert pieces(split(data, stop=stop, base=100, compiled=True)) == pieces(split(data, stop=stop, base=100)), stop


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                                  HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(MUTATION, min_size=1, max_size=12), cut=st.floats(0.2, 1.0))
def test_a_mutated_trace_splits_the_same_with_the_compiled_walk(mutations, cut):
    base = b", ".join(encode(events_with_args(30)) + encode(tricky_events(10)) + encode(events_with_args(30)))
    data, _ = mutate(base.replace(*MISSING_BRACKET) if len(mutations) % 3 == 0 else base, mutations)
    stop = int(cut * len(data))
    assert pieces(split(data, stop=stop, compiled=True)) == pieces(split(data, stop=stop))


def test_dense_damage_is_settled_in_the_compiled_walk(monkeypatch):
    parts = encode(events_with_args(300))
    for k in range(0, 300, 2):
        parts[k] = parts[k].replace(*MISSING_BRACKET)
    for k in range(1, 300, 10):
        parts[k] += b"}"  # a stray '}' after a whole event
    data = b", ".join(parts)
    looks = [0]
    real = range_split._Splitter._look

    def counting(self, s):
        looks[0] += 1
        return real(self, s)

    monkeypatch.setattr(range_split._Splitter, "_look", counting)
    found = split(data, compiled=True)
    assert looks[0] <= 2  # (the last stretches are the tolerant scan's, as without the walk)
    assert sorted(found.unreadable.tolist()) == list(range(0, 298, 2))
    strays = sorted(k for k, p in found.exact.items() if p.value is not None and k < 298)  # (298 on: the tail)
    assert strays == list(range(1, 298, 10))
    texts = [text for _, text in found.info.problems]
    assert texts[:3] == [f"unreadable bytes {found.starts[k]}..{found.starts[k + 1]}" for k in (0,)] + [
        f"stray bytes {found.ends[1]}..{found.starts[2]} between events: b'}}, '",
        f"unreadable bytes {found.starts[2]}..{found.starts[3]}"]
    looks[0] = 0
    assert pieces(split(data)) == pieces(found)
    assert looks[0] > 100  # without it, each damaged event is looked at in Python


@settings(max_examples=300, deadline=None, database=None)
@given(parts=st.lists(st.sampled_from([b"{", b"}", b'"', b",", b" ", b"\n", b"\t", b"[", b"a", b" " * 40, b',{"',
                                       b', {"ph"', b'{ "']), max_size=60),
       cut=st.floats(0, 1))
def test_object_starts_are_the_python_walks(parts, cut):
    """The compiled object starts and element ends equal ``_object_starts`` and the ends the
    Python split derives from them (blanks up to LOOK and past it, the bytes past ``limit``)."""
    sw = walk_kernel()
    data = b"".join(parts)
    limit = int(cut * len(data))
    starts, comma = range_split._object_starts(data, limit)
    a = np.frombuffer(data, dtype=np.uint8)
    out = [np.zeros(len(data) + 1, dtype=np.int64) for _ in range(3)]
    n = sw.object_starts(a, limit, *out)
    assert out[0][:n].tolist() == starts.tolist() and out[1][:n].tolist() == comma.tolist()
    ends = [len(data[:c].rstrip(b" \t\r\n")) for c in comma[1:].tolist()] + [-1]
    assert out[2][:n].tolist() == (ends if n else [])
