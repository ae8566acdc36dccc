"""The on-disk card cache gives back the same store, and notices changed files."""

from __future__ import annotations

import json
import os

import numpy as np

from timelineview.model import load
from timelineview.model.store.card_cache.cache import cache_size
from timelineview.synthetic import CardSpec, generate_card

from ..tracefile import slice_set


def _entries(cache):
    """The cache's entries (not the record of known keys beside them, written when a load's files were settled:
    older than ``known_keys.RACY_NS``, as on a slow machine)."""
    return [d for d in cache.iterdir() if not d.name.startswith(".")]


def test_cached_store_equals_the_loaded_one(tmp_path):
    trace = tmp_path / "ascend_timeline_display_4.json"
    generate_card(trace, CardSpec(seed=2, rank=4, steps=2, tasks_per_step=50, with_overlaps=True), "msprof")
    cache = tmp_path / "cache"
    [fresh] = load(trace, cache=cache)
    assert cache_size(cache) > 0
    seen = []
    [cached] = load(trace, cache=cache, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1][0] == seen[-1][1]
    assert slice_set(cached) == slice_set(fresh)
    for name in ("start", "dur", "lane", "name", "task_type", "depth", "src"):
        assert np.array_equal(getattr(cached.slices, name), getattr(fresh.slices, name))
    for name in ("order", "starts", "ends", "row_ptr"):
        assert np.array_equal(getattr(cached.index, name), getattr(fresh.index, name))
    assert cached.strings == fresh.strings and cached.lanes.name == fresh.lanes.name
    assert cached.rank == 4 and cached.report.to_json() == fresh.report.to_json()
    assert len(cached.flows) == len(fresh.flows)
    assert np.array_equal(cached.flows.dst_slice, fresh.flows.dst_slice)
    assert cached.args(5) == fresh.args(5)
    assert len(cached.counters.ts) == len(fresh.counters.ts)
    # a changed file is read again
    st = trace.stat()
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    [again] = load(trace, cache=cache)
    assert len(again.slices) == len(fresh.slices)
    assert len(_entries(cache)) == 2


def test_prune_drops_the_least_recently_used_cards(tmp_path):
    import time

    from timelineview.model.store.card_cache.cache import prune

    cache = tmp_path / "cache"
    paths = []
    for rank in range(3):
        trace = tmp_path / f"ascend_timeline_display_{rank}.json"
        generate_card(trace, CardSpec(seed=rank, rank=rank, steps=1, tasks_per_step=20), "msprof")
        load(trace, cache=cache)
        paths.append(trace)
        time.sleep(0.02)
    load(paths[0], cache=cache)  # rank 0 used again: now the most recent
    sizes = sorted(sum(f.stat().st_size for f in d.iterdir()) for d in _entries(cache))
    assert prune(cache, max_bytes=sum(sizes) - 1) == 1
    left = {json.loads((d / "meta.json").read_text())["rank"] for d in _entries(cache)}
    assert left == {0, 2}


def test_one_load_of_many_cards_keeps_the_cache_under_its_cap(tmp_path, monkeypatch):
    """The saves of one load count their bytes instead of listing the cache each time; a save the count says
    does not fit lists it again and prunes, so the cache ends under its cap all the same."""
    from timelineview.model.store.card_cache import cache as cache_mod

    folder, cache = tmp_path / "job", tmp_path / "cache"
    folder.mkdir()
    for rank in range(6):
        generate_card(folder / f"ascend_timeline_display_{rank}.json",
                      CardSpec(seed=rank, rank=rank, steps=1, tasks_per_step=20), "msprof")
    stores = load(folder, cache=cache)
    assert len(stores) == 6 and len(_entries(cache)) == 6  # no cap reached: every card saved
    sizes = [cache_size(d) for d in _entries(cache)]
    cap = sum(sorted(sizes)[:3]) + min(sizes) // 2  # room for three cards at most, not four
    for d in _entries(cache):
        for f in d.iterdir():
            f.unlink()
        d.rmdir()
    listings = []
    real_entries = cache_mod._entries
    monkeypatch.setattr(cache_mod, "_entries", lambda c: (listings.append(c), real_entries(c))[1])
    monkeypatch.setattr(cache_mod, "max_cache_bytes", lambda: cap)
    again = load(folder, cache=cache)
    assert [len(s.slices) for s in again] == [len(s.slices) for s in stores]
    assert sum(map(cache_size, _entries(cache))) <= cap and len(_entries(cache)) == 3
    assert 1 < len(listings) < 6  # listed at the first save and when the count said a save would not fit
