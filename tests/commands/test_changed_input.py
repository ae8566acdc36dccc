"""A trace touched or rewritten while ``stats`` reads it: read again once (the result is not lost); changed on
every read, one line names the file and the exit status is 4 (never "internal error", 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from timelineview.cli import stats_main
from timelineview.commands.exit_codes import EXIT_INPUT_CHANGED
from timelineview.model.store.args_reader import ArgsReader
from timelineview.synthetic import CardSpec, generate_card


@pytest.fixture
def run(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    trace = tmp_path / "run" / "ascend_timeline_display_0.json"
    trace.parent.mkdir()
    generate_card(trace, CardSpec(rank=0, steps=3, tasks_per_step=40), target_bytes=200_000)
    return trace.parent


def _touching(monkeypatch, times: int) -> list[str]:
    """Make the first ``times`` reads of args touch their file first (a new modification time: another file for
    the stamps), as a copy over it or ``touch`` would; returns the files touched."""
    touched: list[str] = []
    real = ArgsReader.read_chunk

    def read_chunk(self, c):
        if len(touched) < times:
            path = self.chunks.path[c]
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
            touched.append(path)
        return real(self, c)

    monkeypatch.setattr(ArgsReader, "read_chunk", read_chunk)
    return touched


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_a_trace_touched_during_stats_is_read_again(run, monkeypatch, capsys, cache):
    assert stats_main([str(run), "--json", "--quiet", "--no-cache"]) == 0
    reference = json.loads(capsys.readouterr().out)
    touched = _touching(monkeypatch, 1)
    assert stats_main([str(run), "--json", "--quiet", *cache]) == 0
    out, err = capsys.readouterr()
    assert touched, "stats read args from the trace"
    assert json.loads(out) == reference
    assert "reading it again" in err and "ascend_timeline_display_0.json" in err


def test_a_trace_changed_on_every_read_is_named_with_exit_4(run, monkeypatch, capsys):
    _touching(monkeypatch, 1000)
    assert stats_main([str(run), "--json", "--quiet", "--no-cache"]) == EXIT_INPUT_CHANGED
    out, err = capsys.readouterr()
    assert out == ""
    last = err.strip().splitlines()[-1]
    assert "ascend_timeline_display_0.json" in last and "changed" in last and "internal error" not in err
