"""A summary's ``index.json`` crafted or damaged: one made of tiny values is refused before it is parsed (its
bytes bound, not the memory its parse would take), one that lists a card twice is refused with a word saying so."""

from __future__ import annotations

from pathlib import Path

import orjson

from timelineview.analysis.summaries import summary_session
from timelineview.cli import stats_main
from timelineview.commands.exit_codes import EXIT_NOTHING_READABLE


def _index(folder: Path, cards: list[dict], extra: bytes = b"") -> Path:
    folder.mkdir()
    doc = orjson.dumps({"kind": summary_session.INDEX_KIND, "format": summary_session.INDEX_FORMAT,
                        "state": summary_session.COMPLETE, "run": "r1", "cards": cards})
    (folder / summary_session.INDEX).write_bytes(doc[:-1] + extra + b"}")
    return folder


def _card(rank: int, folder: str | None = None) -> dict:
    return {"card": f"rank {rank}", "rank": rank, "dir": folder or f"rank_{rank}", "status": "ok"}


def test_an_index_of_many_empty_lists_is_refused_before_it_is_parsed(tmp_path, monkeypatch, capsys):
    lists = 5_000
    summary = _index(tmp_path / "summary", [_card(0)], b',"junk":[' + b",".join([b"[]"] * lists) + b"]")
    monkeypatch.setattr(summary_session, "INDEX_MAX_VALUES", lists // 2)  # the same file at a smaller scale
    parsed: list[int] = []
    real = orjson.loads
    monkeypatch.setattr(summary_session.orjson, "loads", lambda data: parsed.append(len(data)) or real(data))
    assert stats_main([str(summary), "--json"]) == EXIT_NOTHING_READABLE
    err = capsys.readouterr().err
    assert "JSON values, more than such a file may hold" in err and "index.json" in err
    assert "internal error" not in err
    assert parsed == []  # refused on its bytes: never parsed


def test_an_index_within_the_bound_is_read(tmp_path, monkeypatch):
    summary = _index(tmp_path / "summary", [_card(0)], b',"junk":[[],[]]')
    doc = summary_session.read_checked_index(summary)
    assert doc["junk"] == [[], []]


def test_an_index_listing_a_card_twice_is_refused_with_a_word(tmp_path, capsys):
    for name, cards in (("same-card", [_card(0), _card(1), {**_card(0), "dir": "rank_2"}]),
                        ("same-folder", [_card(0), _card(1, "rank_0")])):
        summary = _index(tmp_path / name, cards)
        assert stats_main([str(summary), "--json"]) == EXIT_NOTHING_READABLE
        err = capsys.readouterr().err
        assert "twice" in err and ("'rank 0'" in err or "'rank_0'" in err), err
