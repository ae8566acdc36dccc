"""The card cache serves only what this code would build from the file: entries made by another version of
the code are rebuilt, and an entry whose checksums agree but whose columns do not describe a card (ids past
their tables, unsorted index rows, chunks past the end of the file) is deleted and the card loaded again."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import orjson
import pytest

from timelineview import provenance
from timelineview.model import load
from timelineview.model.store.card_cache import cache as cache_mod

from ..tracefile import dump_events, x_event
from .entry_files import mapped, read_column, write_column, write_meta

N_EVENTS = 40


def write_trace(path: Path) -> Path:
    """Two lanes of slices, slice k named ``ev<k>`` with args ``{"k": k}``, one flow between the lanes."""
    events = [x_event(f"ev{k:03d}", 1, 1 + k % 2, float(10 * k), 5.0, args={"k": k}) for k in range(N_EVENTS)]
    events += [{"ph": "s", "id": 7, "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 1.0},
               {"ph": "f", "id": 7, "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 11.0, "bp": "e"}]
    return dump_events(events, path)


def from_cache(store) -> bool:
    return mapped(store.slices.start)


def the_entry(cache: Path) -> Path:
    [entry] = [d for d in cache.iterdir() if not d.name.startswith(".")]
    return entry


def rewrite_column(entry: Path, name: str, change) -> None:
    """Change column ``name`` and write checksums that agree with the change: what a crafted entry holds."""
    write_column(entry, name, change(read_column(entry, name)))


def _set(index: int, value: int):
    def change(arr):
        arr[index] = value
        return arr
    return change


def _swap_first_two(arr):
    arr[[0, 1]] = arr[[1, 0]]
    return arr


CRAFTED = {
    "a name past the strings": ("slices.name", _set(3, 10_000)),
    "a lane past the lanes": ("slices.lane", _set(0, 99)),
    "a negative duration": ("slices.dur", _set(2, -5)),
    "a category below none": ("slices.cat", _set(0, -7)),
    "a lane whose process is missing": ("lanes.process", _set(0, 42)),
    "the index holding a slice twice": ("index.order", _set(1, 0)),
    "an index row out of order": ("index.order", _swap_first_two),
    "a slice moved out of its index row's order": ("slices.start", _set(0, 1 << 50)),
    "a flow bound to a slice that does not exist": ("flows.src_slice", _set(0, 500)),
    "counter pointers past their samples": ("counters.offsets", lambda a: a + 3),
    "a chunk past the end of the file": ("chunks.end", _set(0, 1 << 40)),
    "chunks that skip events": ("chunks.first", lambda a: a + 1),
    "a chunk of a file the card does not have": ("chunks.file", _set(0, 3)),
}


@pytest.mark.parametrize("what", CRAFTED)
def test_a_crafted_entry_with_consistent_checksums_is_rebuilt_not_served(tmp_path, what):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    [reference] = load(trace, cache=False)
    load(trace, cache=cache)
    entry = the_entry(cache)
    name, change = CRAFTED[what]
    rewrite_column(entry, name, change)
    [again] = load(trace, cache=cache)
    assert not from_cache(again), f"{what}: served"
    assert np.array_equal(again.slices.start, reference.slices.start)
    assert [again.strings[i] for i in again.slices.name] == [reference.strings[i] for i in reference.slices.name]
    assert again.args(5) == reference.args(5) == {"k": int(reference.strings[reference.slices.name[5]][2:])}
    [rebuilt] = load(trace, cache=cache)  # the crafted entry was replaced by a good one
    assert from_cache(rebuilt)
    assert rebuilt.args(5) == reference.args(5)


def test_an_untouched_entry_is_served(tmp_path):
    """The checks accept what this code writes (otherwise every test above would pass for nothing)."""
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    [store] = load(trace, cache=cache)
    assert from_cache(store) and len(store.flows) == 1


def test_an_entry_of_other_code_is_rebuilt(tmp_path, monkeypatch):
    """An upgraded install (another version, or the same version with other decoding code) keys its cards
    anew and never opens an entry that older code wrote."""
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    [served] = load(trace, cache=cache)
    assert from_cache(served)
    old = the_entry(cache)
    monkeypatch.setattr(cache_mod, "code_stamp", lambda *parts: "9.9.9+" + "0" * 32)
    [upgraded] = load(trace, cache=cache)
    assert not from_cache(upgraded)
    # an old entry put under the new key (its meta saying which code made it) is refused all the same
    src = load_source(trace)
    new_key = cache_mod.card_key(src)
    assert new_key != old.name
    shutil.rmtree(cache / new_key)
    moved = old.rename(cache / new_key)
    meta = orjson.loads((moved / "meta.json").read_bytes())
    write_meta(moved, {**meta, "key": new_key})  # its digest agreeing: refused for the code that made it
    assert cache_mod.load_cached(src, cache) is None
    assert not moved.exists()


def load_source(trace: Path):
    from timelineview.model.load.cached_cards import card_files
    from timelineview.model.load.loader import card_sources

    [src] = card_sources(trace)
    return card_files(src)


def test_the_code_stamp_follows_every_source_file_and_the_version(tmp_path, monkeypatch):
    root = tmp_path / "pkg"
    (root / "model" / "decode").mkdir(parents=True)
    (root / "views").mkdir()
    files = [root / "model" / "a.py", root / "model" / "decode" / "b.py", root / "views" / "c.py"]
    for k, f in enumerate(files):
        f.write_text(f"X = {k}\n")
    first = provenance.source_digest(root, ("model",))
    assert provenance.source_digest(root, ("model",)) == first
    files[2].write_text("X = 20\n")  # outside the parts: the same
    assert provenance.source_digest(root, ("model",)) == first
    files[1].write_text("X = 10\n")  # a nested module of the part
    assert provenance.source_digest(root, ("model",)) != first
    files[1].write_text("X = 1\n")
    assert provenance.source_digest(root, ("model",)) == first
    files[0].rename(root / "model" / "renamed.py")  # a rename counts
    assert provenance.source_digest(root, ("model",)) != first
    stamp = provenance.code_stamp("model")
    assert stamp.startswith(provenance.package_version() + "+")
    provenance.code_stamp.cache_clear()
    monkeypatch.setattr(provenance, "package_version", lambda: "0.0.1")
    assert provenance.code_stamp("model") != stamp
    provenance.code_stamp.cache_clear()
