"""Typed events into columns: the interning shortcuts give what a plain dictionary gives."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from timelineview.model.decode import event_types as ev
from timelineview.model.decode import typed_columns as tc
from timelineview.model.decode.chunk_result import ChunkResult, Interner, InternTable

TOKENS = st.one_of(st.none(), st.integers(-5, 5), st.integers(2**40, 2**40 + 3),
                   st.sampled_from(["7", "Device", "Ops"]))


@settings(max_examples=80, deadline=None)
@given(pairs=st.lists(st.tuples(TOKENS, TOKENS), max_size=60), seen=st.lists(st.tuples(TOKENS, TOKENS), max_size=5))
def test_pairs_get_one_id_each_like_a_dictionary_of_tuples(pairs, seen):
    table = {key: k for k, key in enumerate(dict.fromkeys(seen))}  # lanes of earlier ranges
    before = dict(table)
    ids = tc._intern_pairs(table, [p for p, _ in pairs], [t for _, t in pairs])
    assert ids.dtype == np.int32 and len(ids) == len(pairs)
    assert [table[key] for key in pairs] == ids.tolist()  # each pair's id is its entry in the table
    assert all(table[k] == v for k, v in before.items())  # earlier ids kept
    assert sorted(table.values()) == list(range(len(table)))  # new ids follow on, none shared
    assert set(table) == set(before) | set(pairs)


def test_integer_pairs_are_numbered_in_numeric_order():
    table: dict = {}
    tc._intern_pairs(table, [9, 3, 9, 3, 1], [0, 5, -1, 0, 7])
    assert list(table) == [(1, 7), (3, 0), (3, 5), (9, -1), (9, 0)]


def test_many_distinct_pids_and_tids_take_the_sorting_path(monkeypatch):
    monkeypatch.setattr(tc, "PAIR_TABLE_LIMIT", 4)
    rng = random.Random(4)
    pid = [rng.randrange(50) for _ in range(500)]
    tid = [rng.randrange(50) for _ in range(500)]
    table: dict = {}
    ids = tc._intern_pairs(table, pid, tid)
    assert [table[key] for key in zip(pid, tid)] == ids.tolist()
    assert list(table) == sorted(set(zip(pid, tid)))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "", "é"])), max_size=40),
       seen=st.lists(st.sampled_from(["b", "z"]), max_size=3, unique=True))
def test_an_intern_table_interns_a_column_as_a_plain_dict_does(values, seen):
    plain = {v: k for k, v in enumerate(seen)}
    fast = InternTable(plain)
    a = tc._intern(plain, values, len(values))
    b = tc._intern(fast, values, len(values))
    assert a.tolist() == b.tolist() == [-1 if v is None else plain[v] for v in values]
    assert dict(fast) == plain and None not in fast  # the same ids, None never one of them
    assert list(fast) == list(plain)  # and the same order (the ids are list positions later)


def test_fields_read_in_blocks_equal_one_pass_per_field(monkeypatch):
    monkeypatch.setattr(tc, "BLOCK", 7)
    xs = [ev.XEvent(name=f"n{k % 4}", pid=k, tid=-k, ts=str(k), dur=k / 2, cat=None, args=None) for k in range(30)]
    got = tc._fields(xs, tc._X_FIELDS)
    assert got == [[getattr(x, f) for x in xs] for f in ("name", "pid", "tid", "ts", "dur", "cat", "args")]


def test_phases_are_counted_from_the_events_types():
    events = [ev.XEvent(name="a", pid=1, tid=1, ts=1.0, dur=1.0), ev.FlowStart(pid=1, tid=1, ts=1.0, id=1),
              ev.FlowEnd(pid=1, tid=2, ts=2.0, id=1, bp="e"), ev.FlowEnd(pid=1, tid=2, ts=3.0, id=2),
              ev.MEvent(name="process_name", pid=1, args={"name": "x"}), ev.FlowStep(pid=1, tid=1, ts=2.0, id=1)]
    res = ChunkResult(0, 0, 0, len(events), True)
    tc.columnarise(res, events, None, interner=Interner())
    assert +res.counts_by_ph == Counter(ev.PHASE_OF[type(e)] for e in events)
    assert res.flows.ph.tolist() == [0, 2, 2, 1] and res.flows.bp_e.tolist() == [False, True, False, False]


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.text(alphabet="0123456789\x00a é", max_size=20), min_size=1, max_size=8))
def test_text_flow_ids_are_numbers_only_when_canonical_decimals(ids):
    """"965" and 965 name one flow; "", "0965", "1\\0" and text are ids of their own (an empty id
    once made the decode raise)."""
    def number(text: str) -> bool:
        return text.isdigit() and text.isascii() and (text == "0" or not text.startswith("0")) and len(text) <= 18

    got = tc._decimal_ids(ids)
    if all(map(number, ids)):
        assert got is not None and got.tolist() == [int(t) for t in ids]
    else:
        assert got is None
