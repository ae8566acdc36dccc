"""A card cache entry edited or replaced by hand: a checksummed meta, kept results that are checked before they are
printed, no blocking open of a FIFO, and the same output with and without the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model.store.entry_files import forget_cluster_records
from timelineview.cli import stats_main
from timelineview.synthetic import CardSpec, generate_card


def _card(folder: Path) -> Path:
    path = folder / "run" / "ascend_timeline_display_0.json"
    path.parent.mkdir(parents=True)
    generate_card(path, CardSpec(rank=0, steps=3, tasks_per_step=40), target_bytes=200_000)
    return path.parent


def _stats(capsys, *args: str) -> dict:
    forget_cluster_records(Path(os.environ["TIMELINEVIEW_CACHE"]))
    assert stats_main([*args, "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def _entry(cache: Path) -> Path:
    [entry] = [p for p in cache.iterdir() if not p.name.startswith((".", "cluster-"))]  # the card's folder
    return entry


def _compute_values(tree) -> list:
    """Every ``compute_us`` value in a JSON tree, in order."""
    if isinstance(tree, dict):
        own = [v for k, v in tree.items() if k == "compute_us"]
        return own + [x for v in tree.values() for x in _compute_values(v)]
    if isinstance(tree, list):
        return [x for v in tree for x in _compute_values(v)]
    return []


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(folder))
    return folder


def test_an_edited_kept_result_is_computed_again_not_printed(tmp_path, cache, capsys):
    run = _card(tmp_path)
    cold = _stats(capsys, str(run), "--no-cache")
    assert _stats(capsys, str(run)) == cold  # fills the cache and keeps the analysis
    assert _compute_values(cold), "the document has compute_us values"
    edited = 0
    for kept in _entry(cache).glob("analysis-*.pack"):  # the card's kept fields, one record each
        text = kept.read_bytes()
        if b"compute_us" in text:
            # a digit changed in place: the file keeps its size, its JSON stays valid
            at = text.index(b'"compute_us":') + len(b'"compute_us":')
            digit = b"8" if text[at:at + 1] == b"9" else b"9"
            kept.write_bytes(text[:at] + digit + text[at + 1:])
            edited += 1
    assert edited
    assert _stats(capsys, str(run)) == cold


def test_an_edited_meta_is_not_served(tmp_path, cache, capsys):
    """The load report saved in the meta (its warnings are printed) is checked like the columns."""
    run = _card(tmp_path)
    cold = _stats(capsys, str(run), "--no-cache")
    _stats(capsys, str(run))
    meta = _entry(cache) / "meta.json"
    doc = json.loads(meta.read_bytes())
    doc["report"]["warnings"] = [*doc["report"]["warnings"], "planted by hand"]
    meta.write_text(json.dumps(doc))
    again = _stats(capsys, str(run))
    assert "planted by hand" not in json.dumps(again)
    assert again == cold


def _with_dangling_flow(folder: Path) -> Path:
    """A card whose trace has a flow start with no end (the load report warns of it)."""
    run = _card(folder)
    trace = run / "ascend_timeline_display_0.json"
    events = json.loads(trace.read_bytes())
    events = events["traceEvents"] if isinstance(events, dict) else events
    first = next(e for e in events if e.get("ph") == "X")
    events.append({"ph": "s", "id": "lonely", "cat": "HostToDevice", "name": "flow", "pid": first["pid"],
                   "tid": first["tid"], "ts": first["ts"]})
    trace.write_text(json.dumps(events))
    return run


def test_stats_with_and_without_the_cache_are_the_same(tmp_path, cache, capsys):
    run = _with_dangling_flow(tmp_path)
    without = _stats(capsys, str(run), "--no-cache")
    first = _stats(capsys, str(run))
    second = _stats(capsys, str(run))
    assert "flow point(s) have no other end" in json.dumps(first)  # the damage is said ...
    assert without == first == second  # ... whichever way the card was read


def _stats_apart(run: Path, cache: Path, *args: str) -> subprocess.CompletedProcess:
    """``stats --json`` in a child (a blocking open of a FIFO would hang this test; the child is killed after a
    generous while instead: a guard, not a measure of speed)."""
    env = {**os.environ, "TIMELINEVIEW_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "timelineview", "stats", str(run), "--json", "--quiet", *args],
                          capture_output=True, env=env, timeout=HANG_GUARD_S, check=False)


HANG_GUARD_S = 300


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("name", ["meta.json", "meta.json.sha1", "columns.bin", "verified.json"])
def test_a_fifo_in_an_entry_is_not_opened(tmp_path, name):
    """A FIFO where an entry's file should be: the entry is not used (a blocking open would wait forever)."""
    run = _card(tmp_path)
    cache = tmp_path / "cache"
    cold = _stats_apart(run, cache, "--no-cache")
    _stats_apart(run, cache)
    _stats_apart(run, cache)  # the second open writes the record of the full check
    target = _entry(cache) / name
    assert target.exists() or name == "verified.json"  # a record of a check is written only once files settled
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    served = _stats_apart(run, cache)
    assert served.returncode == 0 and json.loads(served.stdout) == json.loads(cold.stdout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_a_kept_result_is_not_opened(tmp_path):
    run = _card(tmp_path)
    cache = tmp_path / "cache"
    cold = _stats_apart(run, cache, "--no-cache")
    _stats_apart(run, cache)
    _stats_apart(run, cache)
    kept = list(_entry(cache).glob("analysis-*"))
    assert kept
    for path in kept:
        path.unlink()
        os.mkfifo(path)
    served = _stats_apart(run, cache)
    assert served.returncode == 0 and json.loads(served.stdout) == json.loads(cold.stdout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_database_in_a_data_folder_is_named_not_opened(tmp_path):
    run = _card(tmp_path)
    cache = tmp_path / "cache"
    cold = _stats_apart(run, cache, "--no-cache")
    os.mkfifo(run / "ascend_pytorch_profiler_0.db")
    for args in (("--no-cache",), ()):
        done = _stats_apart(run, cache, *args)
        assert done.returncode != 3, done.stderr
        assert b"ascend_pytorch_profiler_0.db" in done.stderr
        assert done.returncode == 0
        [card], [reference] = json.loads(done.stdout)["cards"], json.loads(cold.stdout)["cards"]
        assert any("ascend_pytorch_profiler_0.db: not a regular file" in w for w in card["load"]["warnings"])
        assert _numbers(card) == _numbers(reference)  # the trace beside it read all the same


def _numbers(card: dict) -> dict:
    """A card of ``stats --json`` without what its loads report (the warnings that name a file not read)."""
    memory = {k: v for k, v in card["memory"].items() if k != "load"}
    return {**{k: v for k, v in card.items() if k not in ("load", "memory")}, "memory": memory}


def test_a_cache_size_that_is_not_a_number_is_one_line_and_exit_2(tmp_path, cache, capsys, monkeypatch):
    run = _card(tmp_path)
    monkeypatch.setenv("TIMELINEVIEW_CACHE_MB", "abc")
    assert stats_main([str(run), "--json", "--quiet"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said == ["timelineview stats: TIMELINEVIEW_CACHE_MB='abc': not a whole number of MiB"]
    assert stats_main([str(run), "--json", "--quiet", "--no-cache"]) == 0  # no cache: the setting is not used


def test_a_disk_short_of_room_is_said_once(tmp_path, cache, capsys, monkeypatch):
    """Less than the 1 GiB the cache leaves free: cards are not saved, and one line says why."""
    import shutil as real_shutil

    from timelineview.model.store.card_cache import cache as cache_mod

    run = _card(tmp_path)
    usage = real_shutil.disk_usage(tmp_path)
    short = type(usage)(usage.total, usage.total - (512 << 20), 512 << 20)
    monkeypatch.setattr(cache_mod.shutil, "disk_usage", lambda _path: short)
    cold = _stats(capsys, str(run), "--no-cache")
    assert stats_main([str(run), "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == cold
    lines = [line for line in err.splitlines() if "no room" in line]
    assert len(lines) == 1 and "0.50 GiB free" in lines[0] and "not saved" in lines[0]
    assert not [p for p in cache.iterdir() if not p.name.startswith(".")]
    assert stats_main([str(run), "--json", "--quiet"]) == 0
    assert "no room" not in capsys.readouterr().err  # said once


def test_a_folder_in_place_of_a_kept_results_pack_is_computed_again(tmp_path, cache, capsys):
    """The kept results cannot be read or replaced (a folder where the card's pack was): they are computed,
    not an internal error."""
    run = _card(tmp_path)
    cold = _stats(capsys, str(run), "--no-cache")
    _stats(capsys, str(run))
    packs = sorted(_entry(cache).glob("analysis-*.pack"))
    assert packs
    for pack in packs:
        pack.unlink()
        pack.mkdir()
    assert _stats(capsys, str(run)) == cold
    assert _stats(capsys, str(run)) == cold  # and again, with the folder still there
