"""``stats`` and ``diff`` read and fill the card cache as the window does (a second run reopens the columns),
and ``--no-cache`` neither reads nor writes it."""

from __future__ import annotations

import json

from timelineview.cli import stats_main
from timelineview.commands.diff import diff_main
from timelineview.synthetic import CardSpec, generate_card


def _card(tmp_path, rank: int = 0):
    path = tmp_path / "run" / f"ascend_timeline_display_{rank}.json"
    path.parent.mkdir(exist_ok=True)
    generate_card(path, CardSpec(rank=rank, steps=3, tasks_per_step=40), target_bytes=200_000)
    return path.parent


def _entries(cache) -> list:
    """The cards' entries (not the whole-document records beside them: ``test_cluster_record``)."""
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith((".", "cluster-"))) if cache.exists() else []


def test_a_second_stats_reopens_the_cached_card_with_the_same_numbers(tmp_path, monkeypatch, capsys):
    run = _card(tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(cache))
    assert stats_main([str(run), "--json", "--quiet", "--no-cache"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert _entries(cache) == []  # --no-cache wrote nothing
    assert stats_main([str(run), "--json", "--quiet"]) == 0
    first = json.loads(capsys.readouterr().out)
    [entry] = _entries(cache)
    meta = cache / entry / "meta.json"
    used = meta.stat().st_mtime_ns
    assert stats_main([str(run), "--json", "--quiet"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert meta.stat().st_mtime_ns > used  # the entry was opened (its use time touched), not rebuilt
    assert _entries(cache) == [entry]
    assert fresh == first == second


def test_diff_fills_the_cache_unless_told_not_to(tmp_path, monkeypatch, capsys):
    run = _card(tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(cache))
    assert diff_main([str(run), str(run), "--json", "--no-cache"]) == 0
    assert _entries(cache) == []
    without = json.loads(capsys.readouterr().out)
    assert diff_main([str(run), str(run), "--json"]) == 0
    assert len(_entries(cache)) == 1
    assert json.loads(capsys.readouterr().out) == without
