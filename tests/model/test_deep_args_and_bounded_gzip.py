"""Two hostile inputs said precisely: args nested 1 000 deep drop only the args (the event keeps its name, time
and duration); a .gz that expands to endless whitespace says it stopped at the expansion bound."""

from __future__ import annotations

import functools
import gzip
import json

import pytest

from timelineview.model import load
from timelineview.model.load import gunzip

from .tracefile import use_jit, x_event

GOOD = [x_event("a", 1, 1, 1.0, 1.0), x_event("b", 1, 2, 5.0, 2.0)]


@pytest.mark.parametrize("jit", ["0", "1"])
@pytest.mark.parametrize("depth", [1000, 5000, 100_000])
def test_args_nested_too_deep_drop_the_args_and_keep_the_event(tmp_path, monkeypatch, jit, depth):
    use_jit(monkeypatch, jit)
    deep = json.dumps(x_event("deep", 1, 3, 2.5, 1.25))[:-1] + ', "args": {"v": ' + "[" * depth + "]" * depth + "}}"
    path = tmp_path / "t.json"
    path.write_text("[" + ",".join([deep, *map(json.dumps, GOOD)]) + "]")
    [store] = load(str(path), workers=1, cache=False)
    slices = {store.strings[int(store.slices.name[i])]: (int(store.slices.start[i]), int(store.slices.dur[i]))
              for i in range(len(store.slices))}
    assert slices == {"deep": (2500, 1250), "a": (1000, 1000), "b": (5000, 2000)}
    assert store.report.dropped_events == 0
    assert f"{path} @ byte 1, event #0: args nested too deep to read: dropped, the event kept" in store.report.warnings


def test_a_whitespace_gzip_bomb_says_it_stopped_at_the_bound(tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb") as f:  # an array opened, then 20 MB of spaces (compresses ~1000x)
        f.write(b"[")
        for _ in range(20):
            f.write(b" " * (1 << 20))
    monkeypatch.setattr(gunzip, "decompress", functools.partial(gunzip.decompress, max_ratio=100,
                                                                min_allowed=1 << 20))
    [store] = load(str(bomb), workers=1)
    report = store.report
    assert report.truncated and report.truncated_offset == 1
    headline = report.headline()
    assert headline.startswith(f"{bomb} is truncated: readable data ends at byte 1, where decompression stopped")
    assert "100x the compressed size" in headline and "gzip bomb" in headline
    assert "gzip bomb" in report.overview(store.card) and report.overview(store.card).count("gzip bomb") == 1
