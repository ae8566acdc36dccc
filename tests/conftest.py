"""Test-wide settings: Qt renders offscreen (no display in CI), and property tests have
no per-example deadline (a busy shared machine made one miss it: speed is measured in
benchmarks, not tests).

Every run starts from the same state of numba's cache, whatever the machine had: before the first test
the compiled kernels are put there (at this run's priority: a compile left to the background at idle
priority got nothing on a busy machine, and each test then saw a cold or a warm cache by chance). The cache
lies outside the checkout, and nothing a test started outlives the run."""

import contextlib
import gc
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("timelineview", deadline=None)
settings.load_profile("timelineview")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the GUI load path caches cards: tests keep that cache out of the user's ~/.cache
_cache = tempfile.TemporaryDirectory(prefix="timelineview-test-cache-")
os.environ.setdefault("TIMELINEVIEW_CACHE", _cache.name)
# numba's compiled code: kept between runs (a second run loads it in ~1 s), never inside the checkout (a
# compile that outlived a run wrote there while the checkout was being removed)
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / f"timelineview-test-numba-{os.getuid()}"))
KERNELS_COMPILE_TIMEOUT_S = 900  # 20-30 s on two quiet cores; several times that when they are busy
LEFT_RUNNING_GRACE_S = 5.0  # what a process left by a test gets to end on SIGTERM before SIGKILL


@pytest.fixture(scope="session", autouse=True)
def _kernels_in_numbas_cache():
    """Compile every kernel set into numba's cache once, in a child at this run's priority, before any test:
    a test then never depends on what an earlier run left there (tests of the first run use caches of their
    own)."""
    from timelineview.model.load import jit

    parts = [("scanner", jit.scanner_cached), ("on_demand", jit.on_demand_cached)]
    if _worker_number() % 2:  # parallel test processes compile the two parts side by side
        parts.reverse()
    for part, cached in parts:
        if jit.scanner_available() and not cached():
            with _held(Path(os.environ["NUMBA_CACHE_DIR"]) / f"test-compile-{part}.lock"):
                if not cached():  # a parallel test process may have compiled it while this one waited
                    code = f"from timelineview.model.load import jit; jit.compile_{part}()"
                    subprocess.run([sys.executable, "-c", code], env=jit.compile_child_env(), check=True,
                                   timeout=KERNELS_COMPILE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    yield


def _worker_number() -> int:
    """This test process's number among parallel ones (pytest-xdist's gw0, gw1, ...); 0 when it is alone."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker[2:]) if worker[2:].isdigit() else 0


@contextlib.contextmanager
def _held(lock: Path):
    """Hold an exclusive advisory lock on ``lock`` (the test processes of one run share numba's cache: one
    compiles, the others wait and then find the kernels there)."""
    import fcntl

    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def _is_parallel_controller(config) -> bool:
    """True in the process that hands tests to parallel test processes (pytest-xdist): its children are those
    processes, which end on their own."""
    return config.pluginmanager.has_plugin("dsession")


def pytest_sessionfinish(session, exitstatus):
    """End whatever a test started and left running (a background compile, a worker, a resource tracker),
    and say which: the run leaves no process behind."""
    import psutil

    if _is_parallel_controller(session.config):
        return
    left = psutil.Process().children(recursive=True)
    if not left:
        return
    for child in left:
        try:
            said = " ".join(child.cmdline())[:160]
        except psutil.Error:
            said = "?"
        sys.stderr.write(f"\nended a process a test left running: {child.pid} {said}")
        try:
            child.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(left, timeout=LEFT_RUNNING_GRACE_S)
    for child in alive:
        try:
            child.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=LEFT_RUNNING_GRACE_S)


@pytest.fixture(autouse=True)
def _qt_garbage_collected_on_the_gui_thread(request):
    """After a test with Qt objects, collect their cycles here, on the GUI thread. Left to the collector, a
    closed window's widgets were freed later by whichever thread allocated next: a load worker ran their C++
    destructors while the GUI thread deleted other widgets, each waiting on a lock the other held (the GIL,
    Qt's signal-slot mutex), and the suite hung."""
    yield
    if {"qapp", "qtbot", "window"} & set(request.fixturenames):
        gc.collect()
