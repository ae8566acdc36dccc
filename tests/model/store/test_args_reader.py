"""The lazy args reader: a value nested too deep to show is reported as unreadable, not raised."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
import numpy as np

from timelineview.model import load
from timelineview.model.store.args_reader import MAX_DEPTH, TOO_DEEP, convert_args

from ..tracefile import x_event


def test_args_nested_900_deep_show_as_unreadable_past_the_limit(tmp_path):
    deep = "[" * 900 + "]" * 900
    event = json.dumps(x_event("deep", 1, 1, 10, 2, args={"k": "v"}))
    event = event.replace('"args": {"k": "v"}', f'"args": {{"k": "v", "v": {deep}}}')
    plain = json.dumps(x_event("plain", 1, 1, 20, 2, args={"k": "w"}))
    path = tmp_path / "t.json"
    path.write_text(f"[{event}, {plain}]")
    [store] = load(path)
    names = [store.strings[int(n)] for n in store.slices.name]
    args = store.args(names.index("deep"))
    # by hand: "v" is the args' second level, so lists at levels 2 .. MAX_DEPTH stay and the one below is the note
    expected = TOO_DEEP
    for _ in range(MAX_DEPTH - 1):
        expected = [expected]
    assert args == {"k": "v", "v": expected}
    copy.deepcopy(args)  # what shows args recurses: 900 levels raised RecursionError
    assert store.args(names.index("plain")) == {"k": "w"}


class Picked(msgspec.Struct):
    """Two args keys, one renamed as a trace spells it."""

    size: Any = msgspec.field(default=None, name="size(Byte)")
    kind: Any = None


def _events(damaged: bool) -> str:
    events = [x_event(f"e{i}", 1, 1, 10 + 10 * i, 2, args={"size(Byte)": 64 + i, "kind": "SDMA", "other": [i]})
              for i in range(40)]
    events[5]["args"] = ["not", "an", "object"]  # decodes as an event, not as these args
    events[6]["args"] = {"kind": "only", "nested": {"deep": [1, 2]}}
    del events[7]["args"]
    text = json.dumps(events)
    return text.replace('"size(Byte)": 90,', '"size(Byte)": NaN,') if damaged else text


def test_args_many_as_gives_what_args_many_gives_converted(tmp_path):
    """The bulk typed read (only the wanted keys decoded) equals the args dicts cut to those keys, on
    fast-path chunks and on tolerant ones (args that are no object; NaN), in any order."""
    tolerant = []
    for damaged in (False, True):
        path = tmp_path / f"t{int(damaged)}.json"
        path.write_text(_events(damaged))
        [store] = load(path, chunk_bytes=1 << 10)  # several chunks
        fast = store._args_reader.chunks.fast
        assert len(fast) > 2 and fast.any()
        tolerant.append(int((~fast).sum()))
        idx = np.random.default_rng(1).permutation(len(store.slices))
        names = [store.strings[int(n)] for n in store.slices.name[idx]]
        by_hand = []  # what each event's args are, as written above
        for name in names:
            i = int(name[1:])
            if i in (5, 7):
                by_hand.append(None)
            elif i == 6:
                by_hand.append(repr(Picked(None, "only")))
            else:
                by_hand.append(repr(Picked(float("nan") if damaged and i == 26 else 64 + i, "SDMA")))
        got = store.args_many_as(idx, Picked)
        assert [None if a is None else repr(a) for a in got] == by_hand
        assert [None if a is None else repr(a) for a in got] == [
            None if a is None else repr(convert_args(a, Picked)) for a in store.args_many(idx)]
    assert 0 < tolerant[0] < tolerant[1]


def test_args_many_as_without_a_file_reader(tmp_path):
    """A card whose args come from elsewhere (built in memory, a database) converts its args dicts."""
    path = tmp_path / "t.json"
    path.write_text(_events(False))
    [store] = load(path)
    store._args_reader = lambda src: [{"size(Byte)": int(s), "x": 1} if s % 2 else None for s in src]
    idx = np.arange(len(store.slices))
    want = [Picked(int(s), None) if s % 2 else None for s in store.slices.src]
    assert store.args_many_as(idx, Picked) == want
