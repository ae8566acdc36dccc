"""A summary folder is one run of ``summarize`` or says it is not: the key covers every byte of a card's
files (and the code that summarises them), a second ``summarize`` into a folder being written refuses, a
run that stops midway leaves an index that says so, and a card of another run is never read as this
run's — on a real local cluster."""

from __future__ import annotations

import fcntl
import os
import re

import orjson
import pytest

from timelineview import cli
from timelineview.commands import diff
from timelineview.commands.exit_codes import EXIT_NOTHING_READABLE, EXIT_OK
from timelineview.distributed.card_task import summary_key
from timelineview.distributed.cli import summarize_main
from timelineview.distributed.summarize import LOCK_FILE, SummaryBusy, summarize
from timelineview.model.discovery import CardSource
from timelineview.model.store.file_stamp import sample_offsets

from .test_summarize import _stats_on_traces, _trace_of, _without_workers

OLD_KEY_BLOCK = 4096  # the key sampled 18 blocks of this many bytes before it read every byte
DUR = re.compile(rb'"dur": ?(\d{3,})')


def _edit_between_samples(path) -> int:
    """Change durations of ``path`` where the old sampled key never looked, keeping its size and its
    modification time; returns how many durations changed."""
    st = os.stat(path)
    data = bytearray(path.read_bytes())
    sampled = [(a, a + OLD_KEY_BLOCK) for a in sample_offsets(len(data), 16, OLD_KEY_BLOCK)]
    changed = 0
    for m in DUR.finditer(bytes(data)):
        a, b = m.span(1)
        if any(a < hi and lo < b for lo, hi in sampled):
            continue
        data[a] = ord("9") if data[a] != ord("9") else ord("8")  # a longer (or shorter) duration, same width
        changed += 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns
    return changed


def test_the_key_covers_every_byte(tmp_path):
    """An edit between the blocks the old key sampled, size and modification time put back, is a new key."""
    path = tmp_path / "trace_view.json"
    path.write_bytes(b'[{"dur": 1234}, ' * 40_000 + b"{}]")
    source = CardSource("rank 0", 0, [path])
    before = summary_key(source, 1000)
    assert _edit_between_samples(path) > 0
    assert summary_key(source, 1000) != before


def test_a_rerun_redoes_a_card_edited_between_samples(traces_copy, dask_client, tmp_path):
    out = tmp_path / "s"
    summarize(traces_copy, out, client=dask_client, progress=None)
    assert _edit_between_samples(_trace_of(traces_copy, 6)) > 10
    again = summarize(traces_copy, out, client=dask_client, progress=None)
    assert [c["card"] for c in again["cards"] if not c["reused"]] == ["rank 6"]
    session_doc = orjson.loads(orjson.dumps(_stats_of(out)))
    assert _without_workers(session_doc) == _stats_on_traces(traces_copy)


def _stats_of(folder):
    from timelineview.analysis.summaries.summary_session import SummarySession

    return SummarySession(folder).stats_document()


def test_a_second_summarize_into_a_folder_being_written_refuses(traces, dask_client, tmp_path, capsys):
    out = tmp_path / "s"
    out.mkdir()
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running summarize holds it
        os.write(fd, b"pid 4242 on node7 since Thu")
        with pytest.raises(SummaryBusy, match="being written by another summarize"):
            summarize(traces, out, client=dask_client, progress=None)
        assert summarize_main([str(traces), "--out", str(out)]) == 1
        err = capsys.readouterr().err
        assert f"timelineview summarize: {out} is being written by another summarize (pid 4242 on node7" in err
        assert not (out / "index.json").exists()  # nothing was touched
    finally:
        os.close(fd)
    index = summarize(traces, out, client=dask_client, progress=None)  # once it is free
    assert all(c["status"] == "ok" for c in index["cards"])


class _Killed(BaseException):
    """The client dying mid-run (as kill -9 would: nothing after it runs)."""


def test_a_run_stopped_midway_leaves_an_incomplete_summary(traces_copy, dask_client, tmp_path, capsys):
    out = tmp_path / "s"
    summarize(traces_copy, out, client=dask_client, progress=None)
    with _trace_of(traces_copy, 3).open("ab") as f:
        f.write(b"\n")

    def die(done, total, result):
        if done == 4:
            raise _Killed

    with pytest.raises(_Killed):
        summarize(traces_copy, out, client=dask_client, progress=die, batch_cards=1)
    assert cli.stats_main([str(out), "--json"]) == EXIT_NOTHING_READABLE
    line = capsys.readouterr().err.splitlines()[-1]
    assert line.startswith(f"timelineview stats: incomplete summary ({out}: run ")
    assert "did not finish or is still writing it" in line
    assert diff.diff_main([str(out), str(traces_copy)]) == EXIT_NOTHING_READABLE  # diff says the same
    assert capsys.readouterr().err.splitlines() == [line.replace("timelineview stats:", "timelineview diff:")]
    summarize(traces_copy, out, client=dask_client, progress=None)
    assert cli.stats_main([str(out), "--json"]) == EXIT_OK
