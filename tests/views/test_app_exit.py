"""The app leaves nothing behind: Ctrl+C in the launching terminal or SIGTERM closes the window (exit 130 or
143, as a shell reports a signal), and decode workers end with the app even when it is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parents[2]
HANG_S = 180  # only stops a hung test
WORKERS = 2


def _app_with_workers(tmp_path: Path) -> tuple[subprocess.Popen, list]:
    """The window on the bundled sample with decode worker processes; the app and its workers once running."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TIMELINEVIEW_POOL": "processes",
           "TIMELINEVIEW_CACHE": str(tmp_path / "cache")}
    app = subprocess.Popen([sys.executable, "-m", "timelineview"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    process = psutil.Process(app.pid)
    ready = threading.Event()
    for _ in range(HANG_S * 10):
        kids = [k for k in process.children(recursive=True) if "resource_tracker" not in _command(k)]
        if len(kids) >= WORKERS or app.poll() is not None or ready.wait(0.1):
            break
    assert app.poll() is None, app.stderr.read()
    return app, process.children(recursive=True)


def _command(process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:  # ended meanwhile
        return ""


def _all_gone(processes: list) -> bool:
    _, alive = psutil.wait_procs(processes, timeout=HANG_S)
    return not alive


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_closes_the_window_and_its_workers(tmp_path, sig):
    app, workers = _app_with_workers(tmp_path)
    assert len(workers) >= WORKERS
    app.send_signal(sig)
    _, err = app.communicate(timeout=HANG_S)
    assert app.returncode == 128 + sig and "Traceback" not in err, err
    assert _all_gone(workers), [_command(w) for w in workers if w.is_running()]


def test_workers_end_when_the_app_is_killed(tmp_path):
    app, workers = _app_with_workers(tmp_path)
    assert len(workers) >= WORKERS
    app.kill()
    app.communicate(timeout=HANG_S)
    assert _all_gone(workers), [_command(w) for w in workers if w.is_running()]
