"""An entry that passed the full check in this boot is re-opened without reading its columns again, and
still never serves a column changed since: the record of the check names each column file's identity."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from timelineview.model import load
from timelineview.model.store.card_cache import cache as cache_mod
from timelineview.model.store.card_cache import check_record

from .entry_files import flip_byte, write_meta
from .test_cache_trust import CRAFTED, from_cache, rewrite_column, the_entry, write_trace

pytestmark = []
TICK_S = 0.05  # longer than a tick of the file system's coarse clock (1-10 ms)


@pytest.fixture
def full_checks(monkeypatch):
    """Counts the full checks (the reference checks run only with the checksums); the files of a save count
    as old enough for a record, as they are on any re-open seconds later."""
    calls = []
    real = cache_mod.check_entry
    monkeypatch.setattr(cache_mod, "check_entry", lambda store: (calls.append(store.card), real(store)))
    monkeypatch.setattr(check_record, "RACY_NS", -3600 * 10**9)
    return calls


def _flip_a_data_byte(entry: Path) -> None:
    flip_byte(entry, "slices.start")


def test_a_verified_entry_is_reopened_without_the_full_check(tmp_path, full_checks):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    [reference] = load(trace, cache=False)
    load(trace, cache=cache)
    [checked] = load(trace, cache=cache)
    assert from_cache(checked) and len(full_checks) == 1
    assert (the_entry(cache) / "verified.json").exists()
    for _ in range(2):
        [again] = load(trace, cache=cache)
        assert from_cache(again)
        assert np.array_equal(again.slices.start, reference.slices.start)
        assert again.args(5) == reference.args(5)
    assert len(full_checks) == 1  # read back twice, checked once


def test_a_racy_check_writes_no_record(tmp_path, monkeypatch):
    """Columns changed less than ``RACY_NS`` before the check: it leaves no record, the next open checks again."""
    monkeypatch.setattr(check_record, "RACY_NS", 3600 * 10**9)
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    [checked] = load(trace, cache=cache)
    assert from_cache(checked) and not (the_entry(cache) / "verified.json").exists()


DAMAGE = {"a flipped data byte": _flip_a_data_byte,
          **{f"crafted: {what}": (lambda e, c=CRAFTED[what]: rewrite_column(e, *c))
             for what in ("a name past the strings", "an index row out of order", "a negative duration")}}


@pytest.mark.parametrize("what", DAMAGE)
def test_a_column_changed_after_the_check_is_checked_again_and_not_served(tmp_path, full_checks, what):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    [reference] = load(trace, cache=False)
    load(trace, cache=cache)
    load(trace, cache=cache)
    entry = the_entry(cache)
    assert (entry / "verified.json").exists()
    time.sleep(TICK_S)
    DAMAGE[what](entry)
    [again] = load(trace, cache=cache)
    assert not from_cache(again), f"{what}: served"
    assert np.array_equal(again.slices.start, reference.slices.start)
    assert np.array_equal(again.slices.dur, reference.slices.dur)
    assert [again.strings[i] for i in again.slices.name] == [reference.strings[i] for i in reference.slices.name]


def test_after_a_reboot_the_entry_is_checked_in_full_once(tmp_path, full_checks, monkeypatch):
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    load(trace, cache=cache)
    load(trace, cache=cache)
    assert len(full_checks) == 1
    boot = tmp_path / "boot_id"
    boot.write_text("another-boot\n")
    monkeypatch.setattr(check_record, "BOOT_ID", boot)
    [checked] = load(trace, cache=cache)
    [again] = load(trace, cache=cache)
    assert from_cache(checked) and from_cache(again)
    assert len(full_checks) == 2  # once after the "reboot", then trusted again
    monkeypatch.setattr(check_record, "BOOT_ID", tmp_path / "none")  # no boot id: checked on every open
    load(trace, cache=cache)
    load(trace, cache=cache)
    assert len(full_checks) == 4


def test_a_record_of_another_meta_is_not_trusted(tmp_path, full_checks):
    """The record names the meta's digest: a meta rewritten with other checksums is checked in full."""
    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    load(trace, cache=cache)
    load(trace, cache=cache)
    entry = the_entry(cache)
    meta = entry / "meta.json"
    write_meta(entry, meta.read_bytes().replace(b'"crc32":', b'"crc32": ', 1))  # same meaning, other bytes
    [again] = load(trace, cache=cache)
    assert from_cache(again) and len(full_checks) == 2


def test_the_span_is_saved_with_the_columns_and_a_wrong_one_is_refused(tmp_path):
    """A re-open takes the slices' first start and last end from the meta (no pass over the slices); a meta
    whose span is not the slices' is not served."""
    import orjson

    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    [reference] = load(trace, cache=False)
    sl = reference.slices
    span = [int(np.asarray(sl.start).min()), int((np.asarray(sl.start) + np.asarray(sl.dur)).max())]
    load(trace, cache=cache)
    entry = the_entry(cache)
    meta = orjson.loads((entry / "meta.json").read_bytes())
    assert meta["span"] == span
    [served] = load(trace, cache=cache)
    assert from_cache(served) and [served.t_origin, served.t_end] == span
    write_meta(entry, {**meta, "span": [span[0], span[1] + 1]})  # its digest agreeing: the span check refuses it
    [again] = load(trace, cache=cache)
    assert not from_cache(again) and [again.t_origin, again.t_end] == span


def test_the_span_follows_the_slice_columns(tmp_path):
    """The remembered span is that of the columns it was taken from: other columns get their own."""
    import dataclasses

    [store] = load(write_trace(tmp_path / "ascend_timeline_display_0.json"), cache=False)
    first = (store.t_origin, store.t_end)
    sl = store.slices
    store.slices = dataclasses.replace(sl, start=np.asarray(sl.start) + 1000)
    assert (store.t_origin, store.t_end) == (first[0] + 1000, first[1] + 1000)
