"""``stats`` over cards all in the card cache keeps its document whole (``card_cache.cluster_record``): the next
``stats`` over the same cards prints it byte for byte as a cold run does, a damaged or edited record is computed
and written again, a changed card is another record, ``--no-cache`` neither reads nor writes one, and the cache's
pruning counts and removes them."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import msgspec
import numpy as np
import pytest

from tests.model.store.entry_files import cluster_records
from timelineview.cli import stats_main
from timelineview.commands.cached_stats import cached_stats_document
from timelineview.model import load_cards
from timelineview.model.load.loader import card_sources, shutdown_pool
from timelineview.model.store.card_cache.cache import prune, remove_stale_partials
from timelineview.model.store.card_cache.cluster_record import read_record, record_path, write_record
from timelineview.model.store.card_cache.json_digest import digest_of
from timelineview.synthetic import CardSpec, generate_card

CARDS = 3


def _write_card(run: Path, rank: int, tasks_per_step: int = 40, seed: int = 0) -> None:
    generate_card(run / f"ascend_timeline_display_{rank}.json",
                  CardSpec(rank=rank, steps=3, tasks_per_step=tasks_per_step, seed=seed), target_bytes=120_000)


@pytest.fixture
def cluster(tmp_path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    for rank in range(CARDS):
        _write_card(run, rank)
    return run


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(folder))
    return folder


def _stats(capsysbinary, *args: str) -> bytes:
    assert stats_main([*args, "--quiet"]) == 0
    return capsysbinary.readouterr().out


def _records(cache: Path) -> list[Path]:
    return cluster_records(cache)


def _rewrite(record: Path, edit) -> None:
    """``record`` with its content edited by ``edit`` and a digest that matches the edit (as a forger would)."""
    body = record.read_bytes().partition(b"\n")[2]
    doc = msgspec.msgpack.decode(body)
    edit(doc)
    new = msgspec.msgpack.encode(doc)
    record.write_bytes(digest_of(new) + b"\n" + new)


@pytest.mark.parametrize("options", [[], ["--json"], ["--peak-tflops", "300"], ["--json", "--min-gap-us", "5"]])
def test_stats_served_from_the_record_is_byte_for_byte_a_cold_run(cluster, cache, capsysbinary, options):
    cold = _stats(capsysbinary, str(cluster), "--no-cache", *options)
    assert _records(cache) == []  # --no-cache writes none
    filled = _stats(capsysbinary, str(cluster), *options)
    [record] = _records(cache)  # every card just saved in the cache: the document kept with them
    os.utime(record, (1, 1))
    served = _stats(capsysbinary, str(cluster), *options)
    assert record.stat().st_mtime > 1  # read (its use touched), not written under another key
    assert _records(cache) == [record]
    assert cold == filled == served
    assert len(cold) > 1000


def test_what_is_served_is_the_record_and_no_cache_reads_none(cluster, cache, capsysbinary):
    cold = _stats(capsysbinary, str(cluster), "--json", "--no-cache")
    _stats(capsysbinary, str(cluster), "--json")
    [record] = _records(cache)
    _rewrite(record, lambda doc: doc["value"]["cards"][0].__setitem__("card", "forged"))
    forged = record.read_bytes()
    assert b'"forged"' in _stats(capsysbinary, str(cluster), "--json")  # the record, not an analysis
    assert _stats(capsysbinary, str(cluster), "--json", "--no-cache") == cold  # neither read ...
    assert record.read_bytes() == forged  # ... nor written


def _flip_a_body_byte(record: Path) -> None:
    data = bytearray(record.read_bytes())
    data[data.index(b"cards")] ^= 0x01  # "cards" -> "bards": a valid record, not the bytes digested
    record.write_bytes(bytes(data))


def _wrong_digest(record: Path) -> None:
    _, _, body = record.read_bytes().partition(b"\n")
    record.write_bytes(b"0" * 40 + b"\n" + body)


def _another_key_inside(record: Path) -> None:
    _rewrite(record, lambda doc: doc.__setitem__("key", "0" * 40))  # another cluster's record under this name


def _another_format(record: Path) -> None:
    _rewrite(record, lambda doc: doc.__setitem__("format", "timelineview-cluster-0"))


def _cut_short(record: Path) -> None:
    data = record.read_bytes()
    record.write_bytes(data[: len(data) // 2])


def _not_a_file(record: Path) -> None:
    record.unlink()
    os.mkfifo(record)  # never waited on


@pytest.mark.parametrize("damage", [_flip_a_body_byte, _wrong_digest, _another_key_inside, _another_format,
                                    _cut_short, _not_a_file])
def test_a_damaged_record_is_not_served_and_is_written_again(cluster, cache, capsysbinary, damage):
    cold = _stats(capsysbinary, str(cluster), "--json", "--no-cache")
    _stats(capsysbinary, str(cluster), "--json")
    [record] = _records(cache)
    written = record.read_bytes()
    damage(record)
    assert _stats(capsysbinary, str(cluster), "--json") == cold
    assert record.read_bytes() == written  # computed again and written anew (put in its place by a rename)
    assert _stats(capsysbinary, str(cluster), "--json") == cold


def test_a_changed_card_is_another_record_with_its_own_numbers(cluster, cache, capsysbinary):
    before = _stats(capsysbinary, str(cluster))
    assert _stats(capsysbinary, str(cluster)) == before
    [old] = _records(cache)
    _write_card(cluster, 1, tasks_per_step=55, seed=7)  # new content for one card
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    assert cold != before
    assert _stats(capsysbinary, str(cluster)) == cold  # its card loaded again: computed, recorded
    assert _stats(capsysbinary, str(cluster)) == cold  # served from the new record
    records = _records(cache)
    assert len(records) == 2 and old in records


def test_records_round_trip_and_are_counted_and_pruned_by_the_cache(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    key_a, key_b = "a" * 40, "b" * 40
    assert write_record(cache, key_a, {"cards": [1, 2.5, "x"]}, lambda size: True)
    assert not write_record(cache, key_b, {"cards": []}, lambda size: False)  # no room: not written
    assert read_record(cache, key_a) == {"cards": [1, 2.5, "x"]}
    assert read_record(cache, key_b) is None
    assert write_record(cache, key_b, {"cards": []}, lambda size: True)
    os.utime(record_path(cache, key_a), (100, 100))  # used long ago: pruned first
    size_b = record_path(cache, key_b).stat().st_size
    assert prune(cache, max_bytes=size_b) == 1
    assert not record_path(cache, key_a).exists() and record_path(cache, key_b).exists()
    assert prune(cache, max_bytes=0) == 1
    assert _records(cache) == []


def test_a_record_write_left_by_a_killed_process_is_removed_once_stale(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    fresh, stale = cache / ".partial-fresh", cache / ".partial-stale"
    fresh.write_bytes(b"half a record")
    stale.write_bytes(b"half a record")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    assert remove_stale_partials(cache) == 1
    assert fresh.exists() and not stale.exists()


def test_a_record_gives_back_every_float_as_computed(cluster, cache):
    """NaN and infinities too (JSON would write them as null, which the text tables print otherwise)."""
    stores = load_cards(card_sources([str(cluster)]), cache=True)
    shutdown_pool()
    calls = []

    def document(values):
        def compute(cards, gap):
            calls.append(gap)
            return {"cards": [{"card": s.card, "values": list(values)} for s in cards]}
        return compute

    computed = cached_stats_document(stores, 1000, document([1.5, float("nan"), float("-inf"), np.float64(0.1)]))
    [record] = _records(cache)
    served = cached_stats_document(stores, 1000, document([9.0]))  # read back, not computed
    assert calls == [1000]
    values = served["cards"][0]["values"]
    assert values[0] == 1.5 and math.isnan(values[1]) and values[2] == float("-inf") and values[3] == 0.1
    assert type(values[3]) is float and repr(values) == repr([float(v) for v in computed["cards"][0]["values"]])
    assert cached_stats_document(stores, 2000, document([9.0]))["cards"][0]["values"] == [9.0]  # another gap
    assert len(_records(cache)) == 2 and record in _records(cache)
