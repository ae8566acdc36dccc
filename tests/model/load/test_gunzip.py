"""``.gz`` traces: damage keeps the decompressed part, expansion is bounded, no copy outlives
the process."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

from timelineview.model import load
from timelineview.model.load import gunzip

from ..tracefile import reference_slices, slice_set, x_event

ROOT = Path(__file__).resolve().parents[3]


def trace_bytes(n: int) -> tuple[list[dict], bytes, list[int]]:
    """Events, the file, and the offset just after each event."""
    events = [x_event(f"op{i}", 1, 1, f"{1700000000000000 + 3 * i}.250", 1.0) for i in range(n)]
    parts, ends, pos = [], [], 1
    for i, e in enumerate(events):
        text = ("," if i else "") + json.dumps(e)
        parts.append(text)
        pos += len(text)
        ends.append(pos)
    return events, ("[" + "".join(parts) + "]").encode(), ends


def test_a_truncated_gz_loads_what_decompressed_and_says_where_it_stopped(tmp_path):
    events, data, ends = trace_bytes(20000)
    packed = gzip.compress(data)
    cut = len(packed) // 2
    (tmp_path / "t.json.gz").write_bytes(packed[:cut])
    expected = zlib.decompressobj(31).decompress(packed[:cut])  # what the first half holds
    [store] = load(tmp_path / "t.json.gz")
    complete = [e for e, end in zip(events, ends) if end <= len(expected)]
    assert len(complete) > 1000
    assert slice_set(store) == reference_slices(complete)
    assert store.report.truncated and not store.report.error
    assert any(f"ends early (at byte {cut})" in w for w in store.report.warnings), store.report.warnings


def inflate_until_damage(packed: bytes) -> bytes:
    """Reference: feed zlib one byte at a time and keep every byte out before the first error."""
    z = zlib.decompressobj(31)
    out = bytearray()
    for k in range(len(packed)):
        try:
            out += z.decompress(packed[k:k + 1])
        except zlib.error:
            break
    return bytes(out)


def test_a_corrupt_gz_keeps_the_part_before_the_damage(tmp_path):
    events, data, ends = trace_bytes(20000)
    packed = bytearray(gzip.compress(data))
    packed[len(packed) // 2:len(packed) // 2 + 8] = b"\xff" * 8
    (tmp_path / "c.json.gz").write_bytes(bytes(packed))
    out = inflate_until_damage(bytes(packed))
    good = next((k for k, (a, b) in enumerate(zip(out, data)) if a != b), len(out))  # before any garbage
    assert len(out) < len(data)
    [store] = load(tmp_path / "c.json.gz")
    complete = [e for e, end in zip(events, ends) if end <= good]
    assert len(complete) > 5000
    assert slice_set(store) == reference_slices(complete)
    assert any("corrupt compressed data" in w for w in store.report.warnings), store.report.warnings


def test_not_gzip_at_all_is_an_error_not_a_raise(tmp_path):
    _, data, _ = trace_bytes(3)
    (tmp_path / "plain.json.gz").write_bytes(data)
    [store] = load(tmp_path / "plain.json.gz")
    assert len(store.slices) == 0 and "cannot decompress" in store.report.error


def test_concatenated_members_are_one_trace(tmp_path):
    events, data, _ = trace_bytes(100)
    (tmp_path / "m.json.gz").write_bytes(gzip.compress(data[:1000]) + gzip.compress(data[1000:]))
    [store] = load(tmp_path / "m.json.gz")
    assert slice_set(store) == reference_slices(events) and not store.report.warnings


def test_a_gzip_bomb_stops_at_the_bound_with_a_clear_message(tmp_path):
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb") as f:  # a valid start, then 50 MB of spaces (compresses ~1000x)
        f.write(b'[{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},')
        for _ in range(50):
            f.write(b" " * (1 << 20))
    copy = gunzip.decompress(bomb, temp_dir=str(tmp_path), max_ratio=100, min_allowed=1 << 20)
    bound = 100 * os.path.getsize(bomb)
    assert copy.size == max(bound, 1 << 20) < 50 << 20
    assert os.path.getsize(copy.read_path) == copy.size
    assert "gzip bomb" in copy.problem and f"{100}x" in copy.problem


def test_the_copy_is_gone_when_the_process_is_killed(tmp_path):
    _, data, _ = trace_bytes(200000)  # ~12 MB
    (tmp_path / "big.json.gz").write_bytes(gzip.compress(data, compresslevel=1))
    temp = tmp_path / "tmp"
    temp.mkdir()
    script = ("import sys, time\n"
              "from timelineview.model import load\n"
              "[s] = load(sys.argv[1])\n"
              "print(len(s.slices), flush=True)\n"
              "time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "big.json.gz")], cwd=ROOT,
                             env={**os.environ, "TMPDIR": str(temp)}, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "200000"
        held = sum(os.stat(f"/proc/{child.pid}/fd/{fd}").st_size for fd in os.listdir(f"/proc/{child.pid}/fd")
                   if os.path.realpath(f"/proc/{child.pid}/fd/{fd}").startswith(str(temp)))
        assert held == len(data)  # the copy is open in the child ...
        assert list(temp.iterdir()) == []  # ... and already has no name in the folder
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    assert list(temp.iterdir()) == []


def test_leftover_folders_of_dead_processes_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    old = tmp_path / f"{gunzip.FOLDER_PREFIX}{dead}-abc"
    old.mkdir()
    (old / "x.json").write_bytes(b"[]")
    alive = tmp_path / f"{gunzip.FOLDER_PREFIX}{os.getppid()}-def"
    alive.mkdir()
    other = tmp_path / "timelineview-something-else"
    other.mkdir()
    time.sleep(0.01)
    assert gunzip.remove_leftovers(str(tmp_path)) == [old.name]
    assert not old.exists() and alive.exists() and other.exists()
