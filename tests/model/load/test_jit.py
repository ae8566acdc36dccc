"""Whether a load runs the compiled scanner is decided in one place (``load.jit``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import timelineview
from timelineview.model import load
from timelineview.model.load import jit

from ..tracefile import dump_events, reference_slices, slice_set, x_event

pytestmark = pytest.mark.skipif(not jit.scanner_available(), reason="numba is not installed")


def _counting_scanner(monkeypatch) -> list[int]:
    from timelineview.model.decode.scan import byte_scan

    calls: list[int] = []
    real = byte_scan.scan_ranges
    monkeypatch.setattr(byte_scan, "scan_ranges", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_warm_scanner_reads_the_load_and_jit_0_turns_it_off(tmp_path, monkeypatch):
    events = [x_event(f"op{i}", 1, i % 2, float(i), 0.5) for i in range(50)]
    path = dump_events(events, tmp_path / "t.json")
    jit.warm_scanner()
    assert jit.scanner_is_warm()
    calls = _counting_scanner(monkeypatch)
    [store] = load(path, workers=1)
    assert calls and slice_set(store) == reference_slices(events)
    calls.clear()
    monkeypatch.setenv("TIMELINEVIEW_JIT", "0")
    assert not jit.scanner_available() and not jit.scanner_is_warm()
    [store] = load(path, workers=1)
    assert not calls and slice_set(store) == reference_slices(events)


CHILD_TIMEOUT_S = 30.0


def _state(pid: int) -> str | None:
    """The process's state letter from /proc (Z: a zombie), None once it is gone (reaped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return None
    return next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_the_background_compile_is_reaped_and_imports_this_package(tmp_path, monkeypatch):
    # a cache of its own (no marker: the scanner counts as not compiled), and a child that only reports
    # which package it imports, so the test does not wait for a real compile
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(jit, "_compile_started", False)
    report = tmp_path / "imported.txt"
    child_code = ("import sys, timelineview; from pathlib import Path; "
                  "Path(sys.argv[1]).write_text(timelineview.__file__)")
    monkeypatch.setattr(jit, "_compile_command", lambda lock: [sys.executable, "-c", child_code, str(report)])
    lock = jit._compile_lock()
    assert jit.compile_in_background()
    pid = int(lock.read_text())
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while _state(pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(pid) is None, "the ended compile is still a zombie"
    with pytest.raises(ChildProcessError):  # and nobody is left to wait for
        os.waitpid(pid, os.WNOHANG)
    assert Path(report.read_text()).resolve() == Path(timelineview.__file__).resolve()
    lock.unlink(missing_ok=True)


def test_the_compile_runs_this_checkouts_module_from_the_temporary_folder():
    # what ``python -m`` finds there with the child's environment is this process's module, not an installed copy
    find = "import importlib.util; print(importlib.util.find_spec('timelineview.model.load.jit').origin)"
    out = subprocess.run([sys.executable, "-c", find], env=jit.compile_child_env(), cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True)
    assert Path(out.stdout.strip()).resolve() == Path(jit.__file__).resolve()
    assert jit._compile_command(Path("x.lock"))[:3] == [sys.executable, "-m", jit.COMPILE_MODULE]
