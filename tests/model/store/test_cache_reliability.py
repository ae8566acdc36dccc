"""The card cache never serves stale or damaged columns, never breaks a load, and cleans up after itself.

A store served from the cache has memory-mapped columns: that is how these
tests tell a cached store from a freshly loaded one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from timelineview.model import load
from timelineview.model.store.args_reader import CHANGED, TraceFileChanged
from timelineview.model.store.card_cache import cache as cache_mod
from timelineview.model.store.card_cache import known_keys

from ..tracefile import dump_events, slice_set, x_event
from ..unprivileged import run_unprivileged, shared_dir
from .entry_files import COLUMNS, flip_byte, mapped, place, read_column, write_column, write_meta

N_EVENTS = 60


def events(order: list[int]) -> list[dict]:
    """Slice ``k`` is named ``ev<k>`` and its args say ``{"k": k}``: a slice's args must name it."""
    return [x_event(f"ev{k:03d}", 1, 1, float(10 * k), 5.0, args={"k": k}) for k in order]


def write_trace(path: Path, order: list[int] | None = None) -> Path:
    return dump_events(events(order if order is not None else list(range(N_EVENTS))), path)


def from_cache(store) -> bool:
    return mapped(store.slices.start)


def args_match_names(store) -> bool:
    """Every slice's args are its own event's (independent of the order in the file)."""
    names = [store.strings[int(n)] for n in store.slices.name]
    return all(a == {"k": int(name[2:])} for name, a in zip(names, store.args_many(np.arange(len(names)))))


def entries(cache: Path) -> list[Path]:
    return [d for d in cache.iterdir() if not d.name.startswith(".")]


def listed(cache: Path) -> list[str]:
    """What the cache folder holds besides the record of known keys (written when a load's files were settled:
    written more than ``known_keys.RACY_NS`` before it, as on a slow machine)."""
    return [name for name in os.listdir(cache) if name != known_keys.FOLDER]


def rewrite_same_size_same_mtime(path: Path, order: list[int], atomic: bool) -> None:
    """Other content of exactly the same size, with the modification time put back
    (``touch -r``), in place or by an atomic rename over the file."""
    st = path.stat()
    new = write_trace(path.with_name(path.name + ".new"), order)
    if atomic:
        os.replace(new, path)
    else:
        data = new.read_bytes()
        new.unlink()
        with open(path, "r+b") as f:  # same inode
            f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


@pytest.mark.parametrize("atomic", [False, True])
def test_an_edit_that_keeps_size_and_mtime_is_not_served_from_the_cache(tmp_path, atomic):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    reversed_order = list(range(N_EVENTS))[::-1]
    rewrite_same_size_same_mtime(trace, reversed_order, atomic)
    [again] = load(trace, cache=cache)
    assert not from_cache(again)
    assert args_match_names(again)
    [third] = load(trace, cache=cache)  # the new content is cached in turn
    assert from_cache(third) and args_match_names(third)


@pytest.mark.parametrize("cached", [False, True])
def test_args_of_a_rewritten_file_are_refused_not_mixed_up(tmp_path, cached):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache" if cached else False
    [store] = load(trace, cache=cache)
    if cached:
        [store] = load(trace, cache=cache)
    assert from_cache(store) == cached
    rewrite_same_size_same_mtime(trace, list(range(N_EVENTS))[::-1], atomic=False)
    with pytest.raises(TraceFileChanged, match=CHANGED):
        store.args(3)
    with pytest.raises(TraceFileChanged, match=CHANGED):
        store.event_args(int(store.slices.src[7]))
    with pytest.raises(TraceFileChanged, match=CHANGED):
        store.args_many(np.arange(len(store.slices)))


def test_a_file_changed_during_the_load_is_neither_cached_nor_read_for_args(tmp_path, monkeypatch):
    """The files are stamped before they are read: a change made while the card was decoded
    shows as a change, the card is not saved and its args are refused."""
    from timelineview.model.load import loader

    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    real = loader._load_fresh

    def load_then_edit(*args, **kwargs):
        stores = real(*args, **kwargs)
        rewrite_same_size_same_mtime(trace, list(range(N_EVENTS))[::-1], atomic=True)
        return stores

    monkeypatch.setattr(loader, "_load_fresh", load_then_edit)
    [store] = load(trace, cache=cache)
    assert entries(cache) == []
    with pytest.raises(TraceFileChanged):
        store.args(0)


def test_a_name_with_a_lone_surrogate_is_cached(tmp_path):
    trace = tmp_path / "ascend_timeline_display_0.json"
    # json.dumps writes the lone surrogate as the escape "\\ud800", as a producer might
    dump_events([x_event("bad\ud800name", 1, 1, 1.0, 2.0), x_event("ok", 1, 1, 5.0, 1.0)], trace)
    assert "\\ud800" in trace.read_text()
    cache = tmp_path / "cache"
    [fresh] = load(trace, cache=cache)
    assert sorted(listed(cache)) == [d.name for d in entries(cache)]  # no .partial-* left
    [cached] = load(trace, cache=cache)
    assert from_cache(cached)
    # the lone surrogate is shown as U+FFFD from the load on (model/decode/unicode_repair.py), cached as such
    assert cached.strings == fresh.strings and "bad\ufffdname" in cached.strings
    assert slice_set(cached) == slice_set(fresh)


def _flip_a_data_byte(entry: Path) -> None:
    flip_byte(entry, "slices.start")  # in the last value


def _cut_ten_rows(entry: Path) -> None:
    """The columns file cut short, inside the last ten rows of ``slices.dur`` (a torn write)."""
    at, nbytes = place(entry, "slices.dur")
    with open(entry / COLUMNS, "r+b") as f:
        f.truncate(at + nbytes - 10 * 8)


def _as_float32(entry: Path) -> None:
    """``slices.dur`` written as float32, its meta agreeing (a column of a kind it cannot have)."""
    write_column(entry, "slices.dur", read_column(entry, "slices.dur").astype(np.float32))


def _drop_meta_keys(entry: Path) -> None:
    meta = json.loads((entry / "meta.json").read_text())
    del meta["report"], meta["lists"]
    write_meta(entry, json.dumps(meta).encode())  # its digest agreeing: refused for the keys missing


@pytest.mark.parametrize("damage", [_flip_a_data_byte, _cut_ten_rows, _as_float32, _drop_meta_keys])
def test_a_damaged_entry_is_rebuilt_not_served(tmp_path, damage):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    [reference] = load(trace, cache=False)
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    [entry] = entries(cache)
    damage(entry)
    [again] = load(trace, cache=cache)
    assert not from_cache(again)  # loaded from the file, not from the damaged entry
    assert slice_set(again) == slice_set(reference) and again.slices.dur.dtype == np.int64
    [rebuilt] = load(trace, cache=cache)
    assert from_cache(rebuilt) and slice_set(rebuilt) == slice_set(reference)
    assert np.array_equal(rebuilt.slices.start, reference.slices.start)


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_unusable_cache_folder_warns_once_and_loads_without_it(tmp_path, monkeypatch, where, capsys):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(blocker if where == "a file" else blocker / "cache"))
    capsys.readouterr()
    [store] = load(trace, cache=True)
    said = capsys.readouterr().err.splitlines()
    # one plain line (no Python warning with its source line)
    assert len(said) == 1 and said[0].startswith("timelineview: card cache") and "loading without it" in said[0]
    assert len(store.slices) == N_EVENTS and args_match_names(store)
    [again] = load(trace, cache=True)
    assert capsys.readouterr().err == ""  # once is enough
    assert len(again.slices) == N_EVENTS


def test_a_read_only_cache_folder_is_only_read():
    """As ``nobody`` (root writes anywhere): the folder cannot be written, cards load without
    saving, and an entry already there is still used."""
    folder = shared_dir()
    try:
        trace = write_trace(folder / "ascend_timeline_display_0.json")
        trace.chmod(0o644)
        cache = folder / "cache"
        load(trace, cache=cache)  # as root: one entry
        for path in [cache, *cache.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        other = write_trace(folder / "ascend_timeline_display_1.json", [1, 2, 3])
        other.chmod(0o644)
        result = run_unprivileged("""
import io
said, sys.stderr = sys.stderr, io.StringIO()
stores = load([sys.argv[1], sys.argv[2]], cache=sys.argv[3])
said, sys.stderr = sys.stderr.getvalue(), said
def mapped(column):
    while column is not None and not isinstance(column, __import__("mmap").mmap):
        column = getattr(column, "base", None)
    return column is not None
print(json.dumps({"slices": [len(s.slices) for s in stores], "mapped": [mapped(s.slices.start) for s in stores],
                  "warnings": said.splitlines()}))
""", str(trace), str(other), str(cache))
        assert result["slices"] == [N_EVENTS, 3]
        assert result["mapped"] == [True, False]
        assert len(result["warnings"]) == 1 and "cannot be written" in result["warnings"][0]
        assert len(entries(cache)) == 1
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


_KILLED_SAVE = """
import os, signal, sys
import numpy as np
from timelineview.model import load
from pathlib import Path
real_write = Path.write_bytes

def die_before_the_meta(self, data):
    if self.name == "meta.json":
        os.kill(os.getpid(), signal.SIGKILL)
    return real_write(self, data)

Path.write_bytes = die_before_the_meta
load(sys.argv[1], cache=sys.argv[2])
"""


def test_leftovers_of_killed_saves_are_removed(tmp_path):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    env = {**os.environ, "TIMELINEVIEW_JIT": "0"}
    out = subprocess.run([sys.executable, "-c", _KILLED_SAVE, str(trace), str(cache)], env=env, timeout=120)
    assert out.returncode == -signal.SIGKILL
    [partial] = listed(cache)
    assert partial.startswith(".partial-") and os.listdir(cache / partial) == [COLUMNS]
    load(trace, cache=cache)  # a recent .partial-* may be a save under way in another process: kept
    assert partial in os.listdir(cache)
    old = time.time() - cache_mod.STALE_PARTIAL_S - 60
    for path in [cache / partial, *(cache / partial).iterdir()]:
        os.utime(path, (old, old))
    [again] = load(trace, cache=cache)  # served from the cache: nothing saved, the leftover goes all the same
    assert from_cache(again)
    assert listed(cache) == [d.name for d in entries(cache)] and len(entries(cache)) == 1


class _Disk:
    """``shutil.disk_usage`` of a disk with ``free`` bytes free (the cache's own bytes are on it)."""

    def __init__(self, total: int, free: int) -> None:
        self.total, self.free = total, free

    def __call__(self, path):
        return type("usage", (), {"total": self.total, "used": self.total - self.free, "free": self.free})()


def _fill(tmp_path: Path, cache: Path, n: int) -> list[Path]:
    """``n`` cached cards, used in rank order; their folders, least recently used first."""
    folders = []
    for rank in range(n):
        load(write_trace(tmp_path / f"ascend_timeline_display_{rank}.json", list(range(20 * (rank + 1)))),
             cache=cache)
        [new] = [d for d in entries(cache) if d not in folders]
        os.utime(new / "meta.json", (1000.0 + rank, 1000.0 + rank))
        folders.append(new)
    return folders


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.iterdir())


def test_prune_keeps_the_disk_free(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    folders = _fill(tmp_path, cache, 3)
    sizes = [_size(f) for f in folders]
    total_disk = 10 << 30
    reserve = max(cache_mod.MIN_FREE_BYTES, int(total_disk * cache_mod.MIN_FREE_FRACTION))
    # free space falls short of the reserve by one byte more than the oldest entry
    monkeypatch.setattr(cache_mod.shutil, "disk_usage", _Disk(total_disk, reserve - sizes[0] - 1))
    assert cache_mod.prune(cache, max_bytes=1 << 40) == 2  # removing the oldest alone leaves 1 byte short
    assert entries(cache) == [folders[2]]


def test_no_room_on_disk_means_no_save_and_a_normal_load(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setattr(cache_mod.shutil, "disk_usage", _Disk(10 << 30, 0))
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    [store] = load(trace, cache=cache)
    assert len(store.slices) == N_EVENTS and args_match_names(store)
    assert entries(cache) == [] and listed(cache) == []


def test_flow_names_of_a_rewritten_file_fall_back_to_flow(tmp_path):
    """A flow's name is its start event's, read from the file: after a rewrite the event at that
    ordinal is another one, so the name is not read (the details panel shows plain "flow")."""
    start = {"ph": "s", "name": "send-42", "id": 1, "pid": 1, "tid": 1, "ts": 12.0, "cat": "c"}
    end = {"ph": "f", "name": "send-42", "id": 1, "pid": 1, "tid": 1, "ts": 31.0, "cat": "c", "bp": "e"}
    body = events(list(range(6)))
    trace = dump_events(body + [start, end], tmp_path / "ascend_timeline_display_0.json")
    [store] = load(trace, cache=False)
    assert len(store.flows) == 1
    st = trace.stat()
    dump_events([start, end] + body, trace)  # same bytes, other order: ordinals point elsewhere
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert trace.stat().st_size == st.st_size
    assert store.flow_name(0) == "flow"
    [again] = load(trace, cache=False)
    assert again.flow_name(0) == "send-42"
