"""A card's analysis kept beside its cache entry: a re-open reads it back instead of computing it, prints
byte for byte what a cold run prints, and computes again when the analysis code, the gap threshold, a kept
file or a memory file beside the card changed."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.model.store.entry_files import forget_cluster_records
from timelineview.analysis import card_analysis
from timelineview.analysis.card_analysis import CARD_STAGES, CardStage, analyse_card
from timelineview.analysis.kept import results
from timelineview.analysis.kept.encoding import Decoder, Encoder, NotKeepable
from timelineview.cli import stats_main
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import write_cluster_memory

EVERY_FIELD = tuple(CARD_STAGES)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Path:
    """Two torch_npu cards with communication and memory files (every field of an analysis has a value)."""
    out = tmp_path_factory.mktemp("kept") / "job"
    truths = generate_cluster(out, cluster_specs(2, seed=3, steps=3, tasks_per_step=60), "msprof",
                              target_bytes=300_000)
    write_cluster_memory(truths)
    return out


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(folder))
    return folder


@pytest.fixture
def computed(monkeypatch) -> Counter:
    """How often each stage of the card analysis ran."""
    calls: Counter = Counter()
    for name, stage in CARD_STAGES.items():
        def counting(store, a, _name=name, _compute=stage.compute):
            calls[_name] += 1
            return _compute(store, a)

        monkeypatch.setitem(CARD_STAGES, name, CardStage(counting, stage.needs))
    return calls


def _card_entries(cache: Path) -> list[Path]:
    """The cards' entries in the cache (not the whole-document records beside them)."""
    return sorted(p for p in cache.iterdir() if not p.name.startswith("cluster-"))


def _stats(capsysbinary, *args: str) -> bytes:
    forget_cluster_records(Path(os.environ["TIMELINEVIEW_CACHE"]))
    assert stats_main([*args, "--json", "--quiet"]) == 0
    return capsysbinary.readouterr().out


def _kept_files(cache: Path) -> list[Path]:
    return sorted(p for entry in cache.iterdir() if entry.is_dir() for p in entry.iterdir()
                  if p.name.startswith(results.PREFIX))


def _records(pack: Path) -> dict[str, tuple[int, dict, int]]:
    """Each field's record in ``pack`` (read here by its layout: a 64-byte header of magic, JSON length, columns
    length, the JSON's SHA-1 and the columns' CRC-32, the JSON and the columns, each padded to 64 bytes):
    field -> (where its JSON starts, its JSON, where its columns start)."""
    import struct

    data, out, at = pack.read_bytes(), {}, 0
    while at < len(data):
        magic, json_len, columns_len, _, _ = struct.unpack_from("<8sQQ20sI", data, at)
        assert magic == b"TLVKEPT3"
        doc = json.loads(data[at + 64:at + 64 + json_len])
        columns_at = at + 64 + -(-json_len // 64) * 64
        out.setdefault(doc["field"], (at + 64, doc, columns_at))
        at = columns_at + -(-columns_len // 64) * 64
    return out


def _damage_column(pack: Path, field: str) -> None:
    """Flip the first byte of the first non-empty column of ``field``'s record (its JSON untouched)."""
    _, doc, columns_at = _records(pack)[field]
    at = columns_at + next(d["offset"] for d in doc["arrays"] if np.prod(d["shape"]))
    data = bytearray(pack.read_bytes())
    data[at] ^= 0xFF  # a column that is not the one written: its CRC says so
    pack.write_bytes(bytes(data))


def test_stats_from_kept_results_is_byte_for_byte_a_cold_run(cluster, cache, computed, capsysbinary):
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    assert not cache.exists() or not any(cache.iterdir())
    assert _stats(capsysbinary, str(cluster)) == cold  # loads, fills the cache and keeps each field
    assert computed["document"] == 4 and _kept_files(cache)
    computed.clear()
    warm = _stats(capsysbinary, str(cluster))
    assert warm == cold
    assert not computed  # every field read back: nothing computed again


def test_another_spelling_of_the_folder_is_served_the_kept_results(cluster, cache, computed, capsysbinary, tmp_path,
                                                                   monkeypatch):
    """A symlink, a relative path with a trailing slash or a dot: the same card, its kept results served, and
    every path in them spelled as this open spells it (byte for byte what a cold run of that spelling prints)."""
    link = tmp_path / "link"
    link.symlink_to(cluster, target_is_directory=True)
    monkeypatch.chdir(cluster.parent)
    spellings = [str(link), f"{cluster.name}/", f"./{cluster.name}", str(cluster)]
    cold = {s: _stats(capsysbinary, s, "--no-cache") for s in spellings}
    assert cold[str(link)] != cold[str(cluster)]  # the paths differ, so a result served as kept would show
    assert _stats(capsysbinary, str(cluster)) == cold[str(cluster)]  # loads, fills the cache and keeps each field
    computed.clear()
    for spelling in spellings[:-1]:
        assert _stats(capsysbinary, spelling) == cold[spelling], spelling
        assert not computed, (spelling, computed)  # every field read back under this spelling


def test_a_changed_analysis_stamp_computes_again(cluster, cache, computed, capsysbinary, monkeypatch):
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    _stats(capsysbinary, str(cluster))
    before = {p.name for p in _kept_files(cache)}
    computed.clear()
    monkeypatch.setattr(results, "code_stamp", lambda *parts: "another analysis")
    assert _stats(capsysbinary, str(cluster)) == cold
    assert computed["document"] == 2 and computed["classification"] == 2  # each card analysed again
    after = {p.name for p in _kept_files(cache)}
    assert after and not after & before  # kept under the new key; the old files removed
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert not computed


def test_another_gap_threshold_is_not_served_the_kept_results(cluster, cache, computed, capsysbinary):
    _stats(capsysbinary, str(cluster))
    wide = _stats(capsysbinary, str(cluster), "--no-cache", "--min-gap-us", "50")
    assert wide != _stats(capsysbinary, str(cluster), "--no-cache")  # the threshold changes the numbers
    computed.clear()
    assert _stats(capsysbinary, str(cluster), "--min-gap-us", "50") == wide
    assert computed["derived"] == 2


def test_a_damaged_kept_file_is_computed_again(cluster, cache, computed, capsysbinary):
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    _stats(capsysbinary, str(cluster))
    packs = [p for p in _kept_files(cache) if p.suffix == ".pack"]
    assert len(packs) == 2  # one file of kept fields per card
    _damage_column(packs[0], "derived")
    json_at, _, _ = _records(packs[1])["steps"]
    data = bytearray(packs[1].read_bytes())
    data[json_at] = ord("[")  # the JSON no longer the bytes written: its SHA-1 says so
    packs[1].write_bytes(bytes(data))
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert computed["derived"] == 1 and computed["steps"] == 1  # the damaged fields only, on their card
    assert computed["classification"] == 0 and computed["document"] == 0
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert not computed  # and kept again


def test_a_pack_cut_short_keeps_its_whole_records(cluster, cache, computed, capsysbinary):
    """A pack cut inside a record (a write that did not end): the records before the cut are served, the rest
    computed, and the pack written anew whole."""
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    _stats(capsysbinary, str(cluster))
    pack = next(p for p in _kept_files(cache) if p.suffix == ".pack")
    records = _records(pack)
    last = max(records, key=lambda name: records[name][0])
    pack.write_bytes(pack.read_bytes()[:records[last][0] + 10])  # inside the last record's JSON
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert computed == Counter({last: 1})
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert not computed


def test_a_changed_memory_file_computes_the_memory_again(cluster, tmp_path, cache, computed, capsysbinary):
    import shutil

    job = tmp_path / "job"
    shutil.copytree(cluster, job)
    _stats(capsysbinary, str(job))
    csv = next(job.rglob("memory_record.csv"))
    lines = csv.read_text().splitlines(keepends=True)
    csv.write_text("".join(lines[:len(lines) // 2]))  # half the records: other peaks
    computed.clear()
    changed = _stats(capsysbinary, str(job))
    assert computed["memory"] == 1  # the card beside the changed file
    assert changed == _stats(capsysbinary, str(job), "--no-cache")


def test_a_kernel_table_put_beside_a_card_computes_its_kernels_again(cluster, tmp_path, cache, computed,
                                                                     capsysbinary):
    import shutil

    job = tmp_path / "job"
    shutil.copytree(cluster, job)
    before = json.loads(_stats(capsysbinary, str(job)))
    trace = next(job.rglob("trace_view.json"))
    (trace.parent / "kernel_details.csv").write_text("Stream ID,Start Time(us),Type\n")  # describes no task
    computed.clear()
    after = json.loads(_stats(capsysbinary, str(job)))
    assert computed["kernels"] == 1  # the card beside the new file, not the other
    assert [c["kernels"] for c in after["cards"]] == [c["kernels"] for c in before["cards"]]


def _same(a, b, where: str = "") -> None:
    """``a`` and ``b`` are the same value of the same types throughout (a NaN is the same as a NaN)."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc") if a.dtype.kind != "O" else \
            all(_same(x, y, where) is None for x, y in zip(a.ravel(), b.ravel(), strict=True)), where
    elif isinstance(a, float) or isinstance(a, np.floating):
        assert repr(a) == repr(b), where  # NaN as NaN, -0.0 as -0.0
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{k}]")
    elif hasattr(a, "__dataclass_fields__"):
        for name in a.__dataclass_fields__:
            _same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif type(a).__module__.startswith("timelineview."):
        _same(vars(a), vars(b), where)
    else:
        assert a == b, where


def test_every_field_comes_back_as_it_was_computed(cluster):
    store = load(cluster)[0]
    a = analyse_card(store, EVERY_FIELD)
    assert a.memory is not None and a.communication is not None and a.steps  # a card with every part
    for name in EVERY_FIELD:
        value = getattr(a, name)
        siblings = {id(getattr(a, other)): other for other in a.done if other != name}
        enc = Encoder(siblings)
        tree = enc.encode(value)
        back = Decoder(list(enc.arrays), lambda other: getattr(a, other)).decode(tree)
        _same(value, back, name)
    derived = Decoder([], lambda other: getattr(a, other)).decode(
        Encoder({id(a.classification): "classification"}).encode(a.derived.classification))
    assert derived is a.classification  # a reference to another field comes back as that field


def test_every_field_comes_back_through_its_files(cluster, tmp_path):
    store = load(cluster)[0]
    a = analyse_card(store, EVERY_FIELD)
    store.cache_entry = tmp_path  # an entry of the card cache (only its folder matters here)
    kept = results.KeptResults.of(store, a.min_gap_ns)
    for name in EVERY_FIELD:
        siblings = {id(getattr(a, other)): other for other in a.done if other != name}
        assert kept.keep(name, getattr(a, name), siblings), name
    assert kept.flush()  # the fields kept are written together
    other = results.KeptResults.of(store, a.min_gap_ns)  # as the next open reads them
    for name in EVERY_FIELD:
        _same(getattr(a, name), other.restore(name, lambda n: getattr(a, n)), name)
    odd = {"scalar": np.array(3.5), "empty": np.zeros((0, 3), np.int32), "text": np.array(["ab", "c"]),
           "flags": np.array([True, False]), "strided": np.arange(10)[::3], "ns": np.array([1, 2], "M8[ns]")}
    assert kept.keep("odd", odd, {}) and kept.flush()
    _same(odd, results.KeptResults.of(store, a.min_gap_ns).restore("odd", lambda n: None))


def test_exact_types_and_special_values_survive():
    value = {"t": (1, 2.5), "nan": math.nan, "inf": -math.inf, "i": np.int32(7), "f": np.float64(0.1),
             "b": np.bool_(True), "counts": Counter({"a": 2}), "keys": {3: "x", (1, 2): "y"}, "s": {"a"},
             "strs": np.array(["a", None], object),
             "~": "a plain key named like the tag", "big": 1 << 70}
    enc = Encoder()
    back = Decoder(enc.arrays).decode(enc.encode(value))
    _same(value, back)
    shared = np.arange(3)
    enc = Encoder()
    pair = Decoder(enc.arrays).decode(enc.encode([shared, shared]))
    assert pair[0] is pair[1] and len(enc.arrays) == 1  # one array met twice is written once


def test_a_value_of_another_kind_is_not_kept():
    class Foreign:
        pass

    with pytest.raises(NotKeepable):
        Encoder().encode({"x": Foreign()})


def test_a_card_outside_the_cache_keeps_nothing(cluster):
    store = load(cluster)[0]  # no cache: no entry
    assert store.cache_entry is None and card_analysis.CardAnalysis.of(store).kept is None


def test_a_card_opened_under_another_path_is_analysed_for_that_path(cluster, tmp_path, cache, computed,
                                                                    capsysbinary):
    link = tmp_path / "link"
    link.symlink_to(cluster, target_is_directory=True)  # the same files (one cache entry), another path
    _stats(capsysbinary, str(cluster))
    entries = _card_entries(cache)
    computed.clear()
    served = _stats(capsysbinary, str(link))
    assert not computed  # the same real files: the kept results, their paths spelled as this open spells them
    assert served == _stats(capsysbinary, str(link), "--no-cache")  # its paths in it
    assert _card_entries(cache) == entries
    computed.clear()
    _stats(capsysbinary, str(link))
    assert not computed


def test_the_windows_reopen_reads_the_view_fields_and_the_memory_back(cluster, cache, computed):
    from timelineview.analysis.session import AnalysisSession
    from timelineview.viewstate.card_view import prepare_card

    def open_like_the_window():
        stores = load(cluster, cache=True)
        session = AnalysisSession(stores, tolerant=True)
        cards = [prepare_card(s, i, analysis=session.analyse(i)) for i, s in enumerate(stores)]
        return [c.analysis.memory.document() for c in cards], session.comparison

    first, _ = open_like_the_window()
    assert computed["memory"] == 2 and computed["comparison_steps"] == 2
    computed.clear()
    again, comparison = open_like_the_window()
    assert again == first and len(comparison.cards) == 2
    assert not computed  # the view fields, the memory lanes' analysis and the comparison rows read back


def test_a_reopen_reads_the_findings_facts_and_collective_ends_back(cluster, cache, computed, monkeypatch):
    """The findings and clock offsets of a re-open pass over no card's slices: what the rules read of them
    and the collectives' ends are kept with the card; they give the findings of an analysis without them."""
    from timelineview.analysis import card_analysis as ca
    from timelineview.analysis.findings.signals import CardSignals
    from timelineview.analysis.session import AnalysisSession
    from timelineview.analysis.sources import trace_source

    passes: Counter = Counter()
    for name in ("sync_calls", "aicpu_share", "transfers", "operators_followed_by_gaps", "free_gaps_in_fp_bp",
                 "top_operator_slices"):
        real = getattr(CardSignals, name)
        monkeypatch.setattr(CardSignals, name,
                            lambda self, *a, _real=real, _name=name: (passes.update([_name]), _real(self, *a))[1])
    for module in (ca, trace_source):  # wherever the analysis looks the collectives up
        if hasattr(module, "collective_ends"):
            real_ends = module.collective_ends
            monkeypatch.setattr(module, "collective_ends",
                                lambda *a, _real=real_ends: (passes.update(["collective_ends"]), _real(*a))[1])

    def open_like_the_window(cache_on=True):
        session = AnalysisSession(load(cluster, cache=cache_on), tolerant=True)
        return [f.document() for f in session.findings], session.clock_offsets_ns.tolist()

    first = open_like_the_window()
    assert passes["sync_calls"] == 2 and passes["collective_ends"] == 2
    passes.clear()
    computed.clear()
    again = open_like_the_window()
    assert again == first
    assert not passes and not computed  # read back, not one pass over the slices
    # the reference: the rules asking each card's store (no facts, no cache), as before they were kept
    monkeypatch.setattr(trace_source, "fact_signals", lambda sig, facts: sig)
    reference = open_like_the_window(cache_on=False)
    assert reference == first and first[0]  # the same findings (and there are some)
    assert passes["sync_calls"] == 4  # 2 computing the facts the session does not use here, 2 the rules


def test_kept_columns_checked_once_are_only_mapped_after_and_a_change_is_still_seen(cluster, cache, computed,
                                                                                 capsysbinary, monkeypatch):
    """A re-open after a full check computes no CRC-32 at all (card columns and kept columns alike); a kept
    file changed after its check is checked again, found damaged and computed."""
    import time
    import zlib

    from timelineview.model.store.card_cache import check_record

    if check_record.boot_id() is None:
        pytest.skip("no boot id on this system")
    monkeypatch.setattr(check_record, "RACY_NS", -3600 * 10**9)  # the files count as written long ago
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    _stats(capsysbinary, str(cluster))  # computes and keeps
    assert _stats(capsysbinary, str(cluster)) == cold  # reads back, checks in full, records the checks
    packs = [p for p in _kept_files(cache) if p.suffix == ".pack"]
    assert {p.with_suffix(".checked") for p in packs} == {p for p in _kept_files(cache) if p.suffix == ".checked"}
    crcs = []
    real_crc32 = zlib.crc32
    monkeypatch.setattr(zlib, "crc32", lambda *a: (crcs.append(1), real_crc32(*a))[1])
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert not computed and not crcs  # nothing computed, nothing read to be checked
    time.sleep(0.05)  # past a tick of the file system's clock
    _damage_column(packs[0], "derived")
    assert _stats(capsysbinary, str(cluster)) == cold
    assert computed["derived"] == 1 and crcs  # checked again, found damaged, computed


def _change_a_json_number(pack: Path, field: str) -> None:
    """Change one digit of a number in ``field``'s JSON (still JSON, same length, its SHA-1 left as written)."""
    start, doc, _ = _records(pack)[field]
    data = bytearray(pack.read_bytes())
    text = data[start:start + len(json.dumps(doc))]
    digit = next(i for i in range(text.index(b'"value"'), len(text)) if chr(text[i]).isdigit() and chr(text[i]) != "9")
    data[start + digit] += 1
    pack.write_bytes(bytes(data))


def test_a_kept_json_changed_after_its_check_is_checked_again_and_computed(cluster, cache, computed, capsysbinary,
                                                                          monkeypatch):
    """A trusted pack's JSON is parsed without its SHA-1; once the pack changes (its identity), every record's
    JSON is compared with its SHA-1 again: a number changed in one is not served, its field is computed."""
    import time

    from timelineview.model.store.card_cache import check_record

    if check_record.boot_id() is None:
        pytest.skip("no boot id on this system")
    monkeypatch.setattr(check_record, "RACY_NS", -3600 * 10**9)  # the files count as written long ago
    cold = _stats(capsysbinary, str(cluster), "--no-cache")
    _stats(capsysbinary, str(cluster))  # computes and keeps
    assert _stats(capsysbinary, str(cluster)) == cold  # checks in full, records the checks
    packs = [p for p in _kept_files(cache) if p.suffix == ".pack"]
    assert packs and all(p.with_suffix(".checked").exists() for p in packs)
    time.sleep(0.05)  # past a tick of the file system's clock
    _change_a_json_number(packs[0], "document")
    computed.clear()
    assert _stats(capsysbinary, str(cluster)) == cold
    assert computed["document"] == 1 and sum(computed.values()) == 1  # only the changed field, computed


def test_files_in_folders_with_nothing_in_common_respell_only_their_own_paths():
    """A card whose files lie in two relative folders with no common part (opened from the folder above
    them), read back under absolute paths: paths under those folders are respelled, and nothing else (an
    empty text, an absolute path elsewhere, the filesystem's root) is taken for a path under their
    empty common folder."""
    kept, now = ["a/x.json", "b/y.json"], ["/r/a/x.json", "/r/b/y.json"]
    pairs = results._respellings(kept, now)
    tree = {"memory": ["a/m.csv", "b/n.csv"], "name": "", "library": "/usr/lib/z", "root": "/"}
    assert results._respelled(tree, pairs) == {"memory": ["/r/a/m.csv", "/r/b/n.csv"], "name": "",
                                               "library": "/usr/lib/z", "root": "/"}
    roots = results._respellings(["/d/a/x.json", "/e/b/y.json"], ["/r/a/x.json", "/r/b/y.json"])
    assert results._respelled(["/", "/d/a/m.csv", "/usr/lib/z"], roots) == ["/", "/r/a/m.csv", "/usr/lib/z"]


def test_a_card_named_after_its_folder_keeps_its_name_under_another_spelling(cache, computed, capsysbinary,
                                                                             tmp_path, monkeypatch):
    """A card without a rank is named after its folder: opened as a relative path, then by its absolute
    path, the kept results are served and the name (the same text as the folder's relative spelling) is
    not taken for a path and respelled."""
    from timelineview.synthetic import CardSpec, generate_card

    generate_card(tmp_path / "job" / "trace_view.json", CardSpec(steps=2, seed=3), "msprof")
    monkeypatch.chdir(tmp_path)
    cold = _stats(capsysbinary, str(tmp_path / "job"), "--no-cache")
    assert json.loads(cold)["cards"][0]["card"] == "job"
    _stats(capsysbinary, "job")  # kept under the relative spelling
    computed.clear()
    assert _stats(capsysbinary, str(tmp_path / "job")) == cold
    assert not computed  # served from what was kept


def test_a_string_that_only_equals_a_folder_spelling_is_not_respelled():
    pairs = results._respellings(["job/trace_view.json"], ["/r/job/trace_view.json"])
    tree = {"card": "job", "path": "job/trace_view.json", "memory": "job/memory.csv", "line": "job/x.json: 3"}
    assert results._respelled(tree, pairs) == {"card": "job", "path": "/r/job/trace_view.json",
                                               "memory": "/r/job/memory.csv", "line": "/r/job/x.json: 3"}


def test_records_written_piece_by_piece_read_back_the_same(cluster, tmp_path, monkeypatch):
    """A large card's records are appended a piece at a time (its arrays written from where they lie, not
    copied): they read back as the values kept, as the records joined in one write do."""
    monkeypatch.setattr(results, "JOIN_BYTES", 0)
    store = load(cluster)[0]
    store.cache_entry = tmp_path
    values = {"first": {"a": np.arange(1000, dtype=np.int64), "b": np.array([1.5, -0.0]), "none": np.zeros(0)},
              "second": [np.arange(7, dtype=np.uint8), np.array([True]), (1, "x")]}
    for round_ in range(2):  # a new pack, then an append to it
        kept = results.KeptResults.of(store, 0)
        name = list(values)[round_]
        assert kept.restore(name, lambda n: None) is results.MISSING
        assert kept.keep(name, values[name], {}) and kept.flush()
    again = results.KeptResults.of(store, 0)
    for name, value in values.items():
        _same(value, again.restore(name, lambda n: None), name)
