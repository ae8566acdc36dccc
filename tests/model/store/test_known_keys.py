"""A load of settled files records its cards' keys; the next load of the same files takes them without sampling
the files, and never takes them for files that changed, a record that is damaged or one of other cards."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import orjson
import pytest

from timelineview.model import load
from timelineview.model.store.card_cache import cache as cache_mod
from timelineview.model.store.card_cache import check_record, known_keys

from ..tracefile import dump_events, x_event
from .test_cache_trust import from_cache

N_EVENTS = 30


def write_card(path: Path, name_prefix: str = "ev") -> Path:
    events = [x_event(f"{name_prefix}{k:03d}", 1, 1, float(10 * k), 5.0, args={"k": k}) for k in range(N_EVENTS)]
    path.parent.mkdir(parents=True, exist_ok=True)
    return dump_events(events, path)


@pytest.fixture
def samples(monkeypatch):
    """Counts the files sampled for a key; every file counts as settled (as files written minutes ago are)."""
    calls = []
    real = cache_mod.sample_digest
    monkeypatch.setattr(cache_mod, "sample_digest", lambda path, size: (calls.append(str(path)), real(path, size))[1])
    monkeypatch.setattr(known_keys, "RACY_NS", -3600 * 10**9)
    if check_record.boot_id() is None:
        pytest.skip("no boot id on this system: no record is written")
    return calls


def _cluster(root: Path, cards: int = 3) -> Path:
    for rank in range(cards):
        write_card(root / f"rank{rank}" / f"ascend_timeline_display_{rank}.json", name_prefix=f"r{rank}_")
    return root


def _records(cache: Path) -> list[Path]:
    folder = cache / known_keys.FOLDER
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


def _names(store) -> list[str]:
    return [store.strings[i] for i in np.asarray(store.slices.name)]


def test_a_second_load_takes_the_keys_without_sampling_and_serves_the_same_cards(tmp_path, samples):
    root = _cluster(tmp_path / "run")
    cache = tmp_path / "cache"
    first = load(root, cache=cache)
    assert len(samples) == 3 and len(_records(cache)) == 1  # each file sampled once (not again after the load)
    samples.clear()
    again = load(root, cache=cache)
    assert samples == []
    assert all(from_cache(s) for s in again)
    assert [_names(s) for s in again] == [_names(s) for s in first]
    assert sorted(_names(again[0]))[:2] == ["r0_000", "r0_001"]


def test_a_file_changed_with_its_size_and_time_kept_is_sampled_and_read_again(tmp_path, samples):
    root = _cluster(tmp_path / "run")
    cache = tmp_path / "cache"
    load(root, cache=cache)
    path = root / "rank1" / "ascend_timeline_display_1.json"
    before = os.stat(path)
    data = path.read_bytes().replace(b"r1_007", b"r1_x07")  # same size
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the modification time put back
    samples.clear()
    cards = load(root, cache=cache)
    assert len(samples) == 3  # another identity (its change time): no record of it, every file sampled
    assert "r1_x07" in _names(cards[1]) and "r1_007" not in _names(cards[1])
    assert from_cache(cards[0]) and not from_cache(cards[1])


def _rewrite(record: Path, change) -> None:
    data = record.read_bytes()
    record.write_bytes(change(data))


def _with_digest(body: bytes) -> bytes:
    import hashlib

    return hashlib.sha1(body).hexdigest().encode("ascii") + b"\n" + body


DAMAGE = {
    "a flipped byte": lambda data: data[:-5] + bytes([data[-5] ^ 0x20]) + data[-4:],
    "cut short": lambda data: data[:len(data) // 2],
    "empty": lambda data: b"",
    "a key that is not one, digest agreeing": lambda data: _with_digest(orjson.dumps(
        {**orjson.loads(data[41:]), "keys": ["x" * 39, *orjson.loads(data[41:])["keys"][1:]]})),
    "one key short, digest agreeing": lambda data: _with_digest(orjson.dumps(
        {**orjson.loads(data[41:]), "keys": orjson.loads(data[41:])["keys"][:-1]})),
    "another format, digest agreeing": lambda data: _with_digest(orjson.dumps(
        {**orjson.loads(data[41:]), "format": "timelineview-known-keys-0"})),
}


@pytest.mark.parametrize("what", DAMAGE)
def test_a_damaged_or_crafted_record_is_not_taken(tmp_path, samples, what):
    root = _cluster(tmp_path / "run")
    cache = tmp_path / "cache"
    [reference] = load(root / "rank2", cache=False)
    load(root, cache=cache)
    [record] = _records(cache)
    _rewrite(record, DAMAGE[what])
    samples.clear()
    cards = load(root, cache=cache)
    assert len(samples) == 3  # not taken: every file sampled
    assert _names(cards[2]) == _names(reference)
    assert all(from_cache(c) for c in cards)


def test_files_changed_just_before_the_load_leave_no_record(tmp_path, monkeypatch):
    monkeypatch.setattr(known_keys, "RACY_NS", 3600 * 10**9)
    root = _cluster(tmp_path / "run")
    cache = tmp_path / "cache"
    load(root, cache=cache)
    load(root, cache=cache)
    assert _records(cache) == []


def test_another_set_of_cards_has_its_own_record(tmp_path, samples):
    root = _cluster(tmp_path / "run")
    cache = tmp_path / "cache"
    load(root, cache=cache)
    [one] = load(root / "rank0", cache=cache)
    assert len(_records(cache)) == 2
    samples.clear()
    [again] = load(root / "rank0", cache=cache)
    assert samples == [] and from_cache(again) and _names(again) == _names(one)


@pytest.mark.parametrize("atomic", [True, False], ids=["renamed over", "in place"])
def test_a_settled_file_changed_during_the_load_is_not_cached(tmp_path, samples, monkeypatch, atomic):
    """A card whose files were settled is compared by identity after its load, not sampled again: a change made
    while it was decoded (same size, modification time put back) still shows, and the card is not saved."""
    from timelineview.model.load import loader

    from .test_cache_reliability import N_EVENTS as EVENTS
    from .test_cache_reliability import entries, rewrite_same_size_same_mtime, write_trace

    trace = write_trace(tmp_path / "ascend_timeline_display_0.json")
    cache = tmp_path / "cache"
    real = loader._load_fresh

    def load_then_edit(*args, **kwargs):
        stores = real(*args, **kwargs)
        rewrite_same_size_same_mtime(trace, list(range(EVENTS))[::-1], atomic=atomic)
        return stores

    monkeypatch.setattr(loader, "_load_fresh", load_then_edit)
    load(trace, cache=cache)
    assert len(samples) == 1  # sampled for its key before the load only
    assert entries(cache) == []
