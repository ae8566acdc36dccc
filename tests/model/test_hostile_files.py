"""A folder holding what is not a readable trace: every good card still opens, the others say why.

Dangling symlinks, symlink loops, unreadable files, FIFOs and devices named
like traces or like ``info.json.*`` side files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from timelineview.model import find_cards, load

from .tracefile import dump_events, x_event
from .unprivileged import run_unprivileged, shared_dir

LOAD_LIMIT_S = 60  # a small folder loads in well under a second; a FIFO read would wait forever


def write_card(path: Path, name: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return dump_events([x_event(name, 1, 1, 1.0, 2.0), x_event(name, 1, 1, 5.0, 1.0)], path)


def bounded(fn, fifos: list[Path]):
    """``fn()`` in a thread; fails (and frees the thread by writing to the FIFOs) when it does
    not finish in time: a reader blocked on a FIFO would otherwise hang the test run."""
    result: dict = {}

    def run() -> None:
        try:
            result["value"] = fn()
        except BaseException as exc:  # re-raised below, in the test
            result["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(LOAD_LIMIT_S)
    if worker.is_alive():
        for fifo in fifos:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # its blocked reader sees end of file
            os.close(fd)
        worker.join(5)
        pytest.fail(f"did not finish in {LOAD_LIMIT_S} s (blocked on a FIFO?)")
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_bad_entries_fail_their_card_and_the_others_open(tmp_path):
    write_card(tmp_path / "ascend_timeline_display_0.json", "good0")
    (tmp_path / "ascend_timeline_display_1.json").symlink_to(tmp_path / "gone.json")
    loop = tmp_path / "ascend_timeline_display_2.json"
    loop.symlink_to(loop)
    fifo = tmp_path / "ascend_timeline_display_3.json"
    os.mkfifo(fifo)
    (tmp_path / "ascend_timeline_display_4.json").symlink_to("/dev/zero")
    write_card(tmp_path / "ascend_timeline_display_5.json", "good5")
    stores = bounded(lambda: load(tmp_path, cache=False), [fifo])
    assert [s.rank for s in stores] == [0, 1, 2, 3, 4, 5]
    by_rank = {s.rank: s for s in stores}
    for rank in (0, 5):
        s = by_rank[rank]
        assert not s.report.error
        assert [s.strings[int(n)] for n in s.slices.name] == [f"good{rank}"] * 2
    expected = {1: "dangling symbolic link", 2: "symbolic link loop", 3: "not a regular file (a FIFO)",
                4: "not a regular file (a character device)"}
    for rank, reason in expected.items():
        s = by_rank[rank]
        assert len(s.slices) == 0
        assert f"ascend_timeline_display_{rank}.json: {reason}" in s.report.error


def test_a_fifo_given_directly_is_reported_not_opened(tmp_path):
    fifo = tmp_path / "trace_view.json"
    os.mkfifo(fifo)
    [store] = bounded(lambda: load(fifo, cache=False), [fifo])
    assert len(store.slices) == 0 and "not a regular file (a FIFO)" in store.report.error


def test_a_bad_file_beside_a_good_one_of_the_same_card_is_named(tmp_path):
    """The card opens from what it can read and says what it skipped."""
    good = write_card(tmp_path / "rank_0" / "ascend_timeline_display_0.json", "ok")
    (tmp_path / "rank_0" / "trace_view.json").symlink_to(tmp_path / "missing")
    [card] = find_cards(tmp_path)
    assert card.files == [good]
    assert card.problems == [f"{tmp_path / 'rank_0' / 'trace_view.json'}: dangling symbolic link"]
    [store] = load(tmp_path, cache=False)
    assert len(store.slices) == 2 and not store.report.error
    assert any("trace_view.json: dangling symbolic link" in w for w in store.report.warnings)


def test_fifo_side_file_is_skipped_and_named(tmp_path):
    dev = tmp_path / "PROF_1_20230818142704322_X" / "device_3"
    write_card(dev / "timeline" / "msprof_3_2_1.json", "it1")
    fifo = dev / "info.json.0"
    os.mkfifo(fifo)
    [card] = bounded(lambda: find_cards(tmp_path), [fifo])
    assert card.rank == 3  # from the folder name, the FIFO unread
    assert card.problems == [f"{fifo}: not a regular file (a FIFO), not read"]
    [store] = bounded(lambda: load(tmp_path, cache=False), [fifo])
    assert len(store.slices) == 2 and f"{fifo}: not a regular file (a FIFO), not read" in store.report.warnings


_SIDE_FILE_CHILD = """
import json, resource, sys
from timelineview.model import find_cards
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cards = find_cards(sys.argv[1])
grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"ranks": [c.rank for c in cards], "problems": [p for c in cards for p in c.problems],
                  "grown_mb": grown_kb / 1024}))
"""
SIDE_FILE_RSS_MB = 64  # what reading the first MB of a side file may cost, with room to spare


def _find_cards_in_child(folder: Path) -> dict:
    """``find_cards`` in a child whose address space is capped: a read of /dev/zero without a
    bound ends in MemoryError there, not by exhausting this machine."""
    cap = "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
    out = subprocess.run([sys.executable, "-c", cap + _SIDE_FILE_CHILD, str(folder)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_side_file_reads_are_bounded(tmp_path):
    sparse_dev = tmp_path / "a" / "PROF_1_20230818142704322_X" / "device_1"
    write_card(sparse_dev / "timeline" / "msprof_1_2_1.json", "a")
    with open(sparse_dev / "info.json.1", "wb") as f:  # 1 GB that takes no disk: a hole
        f.write(json.dumps({"rank_id": 5}).encode())
        f.truncate(1 << 30)
    zero_dev = tmp_path / "b" / "PROF_1_20230818142704322_X" / "device_2"
    write_card(zero_dev / "timeline" / "msprof_2_2_1.json", "b")
    (zero_dev / "info.json.2").symlink_to("/dev/zero")
    result = _find_cards_in_child(tmp_path)
    # the sparse file's first MB is not JSON on its own: the rank comes from its name suffix
    assert result["ranks"] == [1, 2]
    assert result["problems"] == [f"{zero_dev / 'info.json.2'}: not a regular file (a character device), not read"]
    assert result["grown_mb"] < SIDE_FILE_RSS_MB


def test_unreadable_file_fails_only_its_card():
    """Run as ``nobody`` (as root, mode 000 does not stop a read): the file's open really fails
    with EACCES, the card says so and the other cards open."""
    folder = shared_dir()
    try:
        write_card(folder / "ascend_timeline_display_0.json", "good0")
        locked = write_card(folder / "ascend_timeline_display_1.json", "locked")
        locked.chmod(0o000)
        write_card(folder / "ascend_timeline_display_2.json", "good2")
        for f in folder.iterdir():
            if f != locked:
                f.chmod(0o644)
        result = run_unprivileged("""
stores = load(sys.argv[1], cache=False)
print(json.dumps([[s.rank, len(s.slices), s.report.error] for s in stores]))
""", str(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result = {rank: (n, error) for rank, n, error in result}
    assert result[0] == (2, "") and result[2] == (2, "")
    assert result[1][0] == 0 and "ascend_timeline_display_1.json: permission denied" in result[1][1]
