"""The lazy args reader: a value nested too deep to show is reported as unreadable, not raised."""

from __future__ import annotations

import copy
import json

from timelineview.model import load
from timelineview.model.store.args_reader import MAX_DEPTH, TOO_DEEP

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
