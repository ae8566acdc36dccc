"""A first run never waits for the compiler, and a load shows its first part as it
goes (item 7): typed decode while the scanner is not in numba's cache, a background compile started
once, pictures of the load in progress that are exact prefixes of the file."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from timelineview.model import load
from timelineview.model.load import jit, loader, partial_load
from timelineview.model.load.chunked import decode_pool, decode_run, decode_tasks
from timelineview.model.load.loader import shutdown_pool

from ..tracefile import dump_events, reference_slices, slice_set, x_event

STAND_IN_COMPILE_S = 120  # a compile that never ends within the test
N_EVENTS = 90_000  # ~6 MB: above the loader's inline size, so it takes its pool


@pytest.fixture(scope="module")
def events():
    # time grows with the file, as in a profiler's export: a prefix of the file is a prefix of time
    return [x_event(f"op{i % 97}_{'x' * (i % 7)}", 1 + i % 3, i % 5, 1000.0 + i * 0.75, 0.5)
            for i in range(N_EVENTS)]


@pytest.fixture(scope="module")
def trace(tmp_path_factory, events):
    path = dump_events(events, tmp_path_factory.mktemp("first_run") / "t.json")
    assert os.path.getsize(path) > decode_run.INLINE_BYTES
    return path


def _columns(store) -> dict:
    """Every column of the store's slices, names as text, and its lanes: equal stores, equal dicts."""
    s = store.slices
    names = np.array(store.strings, dtype=object)
    return {"start": s.start, "dur": s.dur, "lane": s.lane, "depth": s.depth, "src": s.src, "flags": s.flags,
            "name": names[s.name], "lane_tid": np.array(store.lanes.tid, dtype=object),
            "pid": np.array(store.processes.pid, dtype=object)}


def _assert_same(a, b) -> None:
    ca, cb = _columns(a), _columns(b)
    for key in ca:
        assert np.array_equal(ca[key], cb[key]), key


def test_a_cold_scanner_is_compiled_in_the_background_after_the_typed_decode(trace, events, monkeypatch):
    """Nothing in numba's cache: the load neither compiles nor waits; it decodes with the typed path
    (worker processes), says so, reports progress, starts the background compile for next time only
    once its decode is over (beside the decode, it slowed a first ``stats`` 1.3-1.9x), and gives the
    store the compiled scanner gives."""
    compiled = threading.Event()  # the stand-in compile never ends during the load
    started, flags, progress_seen = [], [], []
    for module in (decode_pool, decode_run):
        monkeypatch.setattr(module, "scanner_is_warm", lambda: False)
    monkeypatch.setattr(decode_pool, "scanner_cached", lambda: False)
    monkeypatch.setattr(loader, "compile_in_background", lambda: started.append(list(progress_seen)) or True)
    monkeypatch.setattr(decode_run, "TYPED_TASK_BYTES", 1 << 20)  # several tasks: progress between them
    monkeypatch.setattr(decode_run, "SCANNER_WORTH_BYTES", decode_run.INLINE_BYTES)  # a large file, as it were

    def waited(*_a):
        raise AssertionError("the load readied the scanner in this process")

    monkeypatch.setattr(decode_run, "warm_scanner", waited)
    real_args = decode_run.task_args
    monkeypatch.setattr(decode_run, "task_args", lambda job, group, scanner: flags.append(scanner)
                        or real_args(job, group, scanner))
    notes: list[str] = []
    try:
        [typed] = load(trace, workers=2, note=notes.append,
                       progress=lambda d, t: progress_seen.append((d, t, compiled.is_set())))
    finally:
        shutdown_pool()
    assert len(started) == 1 and notes == [loader.COMPILING_NOTE]
    assert started[0] and started[0][-1][0] == started[0][-1][1]  # after the decode's last progress
    assert flags and not any(flags)  # every task decoded without the scanner
    assert any(0 < d < t and not done for d, t, done in progress_seen)  # moving before the compile ends
    assert slice_set(typed) == reference_slices(events)
    monkeypatch.undo()
    if not jit.scanner_available():
        return
    jit.warm_scanner()
    try:
        [scanned] = load(trace, workers=2)
    finally:
        shutdown_pool()
    _assert_same(typed, scanned)


def test_a_file_below_the_scanners_worth_is_decoded_here_by_the_typed_path(trace, events, monkeypatch):
    """Without the scanner ready in this process, a file of a few MB is read in the calling thread:
    neither numba's load (~0.45 s) nor worker processes are worth it there, and no compile starts."""
    assert decode_run.INLINE_BYTES < os.path.getsize(trace) <= decode_run.SCANNER_WORTH_BYTES
    for module in (decode_pool, decode_run):
        monkeypatch.setattr(module, "scanner_is_warm", lambda: False)
    monkeypatch.setattr(loader, "compile_in_background", lambda: pytest.fail("compile for a small file"))
    monkeypatch.setattr(decode_run, "get_pool", lambda *a: pytest.fail("a pool for a small file"))
    flags: list[bool] = []
    real_args = decode_run.task_args
    monkeypatch.setattr(decode_run, "task_args", lambda job, group, scanner: flags.append(scanner)
                        or real_args(job, group, scanner))
    notes: list[str] = []
    [store] = load(trace, workers=2, note=notes.append)
    assert slice_set(store) == reference_slices(events) and not notes
    assert flags and not any(flags)


def test_a_scanner_that_turns_out_to_compile_is_not_waited_for(monkeypatch):
    """The cache said ready but readying it takes long (a compile after all): the wait ends."""
    release, finished = threading.Event(), threading.Event()

    def compiling() -> None:
        release.wait(STAND_IN_COMPILE_S)  # bounded, so that a load that waited would fail, not hang
        finished.set()

    monkeypatch.setattr(decode_run, "scanner_is_warm", lambda: False)
    monkeypatch.setattr(decode_run, "warm_scanner", compiling)
    try:
        assert decode_run.ready_scanner(None, limit_s=0.3) is False
        assert not finished.is_set()  # it gave up while the compile was still going on
    finally:
        release.set()


def _freeze_kernels(tmp_path, monkeypatch):
    """A copy of the decode sources for the marker's key (the tree's may be edited meanwhile)."""
    decode = tmp_path / "decode"
    for src in jit._DECODE_DIR.rglob("*.py"):
        copy = decode / src.relative_to(jit._DECODE_DIR)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(src.read_bytes())
    monkeypatch.setattr(jit, "_DECODE_DIR", decode)
    return decode


def test_the_cache_marker_is_keyed_on_the_cache_folder_and_the_kernels(tmp_path, monkeypatch):
    if not jit.scanner_available():
        pytest.skip("numba is not installed")
    decode = _freeze_kernels(tmp_path, monkeypatch)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty"))
    assert not jit.scanner_cached()  # an empty cache folder: nothing compiled there
    jit._mark_cached()
    assert jit.scanner_cached() and jit._marker().parent == tmp_path / "empty"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "other"))
    assert not jit.scanner_cached()
    key = jit._cache_key(tmp_path)
    kernel = decode / "scan" / "byte_scan.py"
    kernel.write_text(kernel.read_text() + "\n# edited\n")
    assert jit._cache_key(tmp_path) != key  # an edited kernel is not the cached one


def test_one_background_compile_per_cache(tmp_path, monkeypatch):
    if not jit.scanner_available():
        pytest.skip("numba is not installed")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    _freeze_kernels(tmp_path, monkeypatch)
    launched: list[list[str]] = []

    children: list[int] = []  # each fake child's copy of the locked descriptor, as a real child inherits it

    class FakePopen:
        def __init__(self, argv, pass_fds=(), **_kw) -> None:
            launched.append(argv)
            children.extend(os.dup(fd) for fd in pass_fds)
            self.pid = 4242 + len(launched)

        def wait(self) -> int:  # the reaper thread waits on the child
            return 0

    monkeypatch.setattr(jit.subprocess, "Popen", FakePopen)
    monkeypatch.setattr(jit, "_compile_started", False)
    assert not jit.scanner_cached()
    assert jit.compile_in_background() and jit.compile_in_background()
    assert len(launched) == 1 and launched[0][-1] == str(jit._compile_lock()), launched
    assert jit._compile_lock().read_text() == "4243"  # the compiling process, for whoever ends it
    monkeypatch.setattr(jit, "_compile_started", False)  # another process: the lock holds it back
    assert jit.compile_in_background() and len(launched) == 1
    os.close(children.pop())  # the compile was killed: the system drops its lock, the file stays
    assert jit._compile_lock().exists()
    monkeypatch.setattr(jit, "_compile_started", False)
    assert jit.compile_in_background() and len(launched) == 2
    assert jit._compile_lock().read_text() == "4244"
    jit._mark_cached()
    monkeypatch.setattr(jit, "_compile_started", False)
    assert not jit.compile_in_background() and len(launched) == 2  # in the cache: nothing to do
    for fd in children:
        os.close(fd)
    monkeypatch.setattr(jit, "warm_scanner", lambda: 1 / 0)
    waited: list[int] = []
    monkeypatch.setattr(jit, "_detach", lambda: None)  # not this test process's group and signals
    monkeypatch.setattr(jit, "wait_for_launcher", waited.append)
    with pytest.raises(ZeroDivisionError):
        jit._compile_main(str(jit._compile_lock()))
    assert waited == [os.getppid()]  # it waited for whoever launched it
    assert not jit._compile_lock().exists()  # a failed compile does not block the next one


def test_the_scanner_is_marked_ready_before_the_other_kernel_sets_compile(tmp_path, monkeypatch):
    """On a machine where the compile gets a small share of a core, JSON loads take the scanner as soon as it
    is in the cache, not after every other kernel set; a compile that ends between the two leaves the rest to
    the next one."""
    if not jit.scanner_available():
        pytest.skip("numba is not installed")
    _freeze_kernels(tmp_path, monkeypatch)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    seen: list[tuple[str, bool, bool]] = []
    monkeypatch.setattr(jit, "warm_scanner", lambda: seen.append(("scanner", jit.scanner_cached(),
                                                                  jit.kernels_cached())))

    def other_sets(modules):
        seen.append(("others", jit.scanner_cached(), jit.kernels_cached()))
        raise KeyboardInterrupt  # the compile ends here: killed, or its machine shut down

    monkeypatch.setattr(jit, "_warm_sets", other_sets)
    with pytest.raises(KeyboardInterrupt):
        jit.compile_kernels()
    assert seen == [("scanner", False, False), ("others", True, False)]
    assert jit.scanner_cached() and not jit.kernels_cached()
    monkeypatch.setattr(jit, "_compile_started", False)
    launched: list[list[str]] = []

    class FakePopen:
        pid = 4321

        def __init__(self, argv, **_kw) -> None:
            launched.append(argv)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(jit.subprocess, "Popen", FakePopen)
    assert jit.compile_in_background() and len(launched) == 1  # the other sets are still to compile
    jit._touch(jit._kernels_marker())
    monkeypatch.setattr(jit, "_compile_started", False)
    assert jit.kernels_cached() and not jit.compile_in_background() and len(launched) == 1


def test_the_compile_waits_while_its_launcher_works(monkeypatch):
    monkeypatch.setattr(jit, "LAUNCHER_POLL_S", 0.001)
    parent = os.getppid()
    used = iter(range(1000))
    monkeypatch.setattr(jit, "_cpu_seconds", lambda pid: float(next(used)))  # a whole core busy
    assert jit.wait_for_launcher(parent, wait_s=0.01) == "busy"
    monkeypatch.setattr(jit, "_cpu_seconds", lambda pid: 5.0)  # no CPU used since the last look
    assert jit.wait_for_launcher(parent, wait_s=0.01) == "idle"
    looks = iter([5.0, None])
    monkeypatch.setattr(jit, "_cpu_seconds", lambda pid: next(looks))  # gone between two looks
    assert jit.wait_for_launcher(parent) == "ended"


ORPHAN = """
import os, subprocess, sys
# the launcher starts the compile's stand-in and ends at once
subprocess.Popen([sys.executable, "-c", "import sys; from timelineview.model.load import jit; "
                  "print(jit.wait_for_launcher(int(sys.argv[1])), flush=True)", str(os.getpid())], stdout=sys.stdout)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_a_compile_whose_launcher_ended_starts_and_one_beside_an_idle_launcher_too():
    ended = subprocess.run([sys.executable, "-c", ORPHAN], capture_output=True, text=True, timeout=120)
    assert ended.stdout.split() == ["ended"], ended.stderr
    idle = subprocess.run([sys.executable, "-c", "import os; from timelineview.model.load import jit; "
                           "print(jit.wait_for_launcher(os.getppid()))"], capture_output=True, text=True,
                          timeout=120)  # this test process waits for it: idle
    assert idle.stdout.split() == ["idle"], idle.stderr


DETACHED_CHILD = """
import os, signal
from timelineview.model.load import jit
jit._detach()
print(os.nice(0), os.getpgid(0) == os.getpid(), os.getsid(0), signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
      os.sched_getscheduler(0) == os.SCHED_OTHER)
"""


def test_the_background_compile_keeps_the_sessions_priority_in_a_group_of_its_own():
    """Linux shares the CPU between sessions before it looks at nice values: the compile stays in the
    launching session at its priority (the idle class in a session of its own at the lowest weight starved
    on a busy machine); a process group of its own keeps a Ctrl+C for the launching command from ending it."""
    out = subprocess.run([sys.executable, "-c", DETACHED_CHILD], capture_output=True, text=True, check=True)
    nice, own_group, session, ignores_ctrl_c, normal_class = out.stdout.split()
    assert int(nice) == os.nice(0) and own_group == "True" and ignores_ctrl_c == "True"
    assert int(session) == os.getsid(0) and normal_class == "True"


class _Feed:
    def __init__(self) -> None:
        self.taken = self.taken_bytes = 0
        self.snapshots = 0

    def snapshot(self):
        self.snapshots += 1
        return f"store {self.taken}"


class _Meter:
    def __init__(self) -> None:
        self.done, self.total, self.card_total = 0, 100, [100]


def test_pictures_are_spaced_by_their_own_cost():
    now = [0.0]
    got = []
    feed, meter = _Feed(), _Meter()

    def callback(part):
        got.append(part)
        now[0] += 0.5  # this picture took 0.5 s to show

    cards = partial_load.PartialCards(callback, [None, "cached card"], clock=lambda: now[0])
    feed.taken, feed.taken_bytes, meter.done = 10, 20, 20
    assert not cards.offer([feed], meter)  # too soon after the start
    now[0] = partial_load.FIRST_PICTURE_S
    assert cards.offer([feed], meter)
    [part] = got
    assert part.stores == ["store 10", "cached card"] and part.card_done == [20, 0]
    assert part.fraction(0) == 0.2 and part.fraction(1) == 1.0
    feed.taken, meter.done = 20, 40
    now[0] += partial_load.COST_FACTOR * 0.5 - 0.01
    assert not cards.offer([feed], meter)  # the next waits four times the last one's cost
    now[0] += 0.02
    assert cards.offer([feed], meter)
    now[0] += 10
    assert not cards.offer([feed], meter)  # nothing new arrived
    feed.taken, meter.done = 30, 100
    assert not cards.offer([feed], meter)  # everything read: the final store comes next
    assert feed.snapshots == 2


def test_partial_stores_are_prefixes_of_the_file_and_the_final_store_is_unchanged(trace, events, monkeypatch):
    monkeypatch.setattr(partial_load, "FIRST_PICTURE_S", 0.0)
    monkeypatch.setattr(partial_load, "MIN_INTERVAL_S", 0.0)
    monkeypatch.setattr(partial_load, "COST_FACTOR", 0.0)
    monkeypatch.setattr(decode_tasks, "TASK_BYTES", 256 << 10)  # many tasks: many pictures
    parts = []
    try:
        [store] = load(trace, workers=2, partial=parts.append)
        [plain] = load(trace, workers=2)
    finally:
        shutdown_pool()
    assert len(parts) >= 3
    sizes = [len(p.stores[0].slices) for p in parts]
    assert sizes == sorted(sizes) and 0 < sizes[0] and sizes[-1] < len(events)
    for p, n in zip(parts, sizes):
        part = p.stores[0]
        assert slice_set(part) == reference_slices(events[:n])  # the file's first n events, whole
        assert 0 < p.fraction(0) < 1
        span = p.unloaded()
        assert span.start == part.t_end and span.end > span.start
        assert span.end >= plain.t_end * 0.9 // 1 or p.fraction(0) < partial_load.MIN_FRACTION * 2
    _assert_same(store, plain)
    assert slice_set(store) == reference_slices(events)


def test_stats_imports_neither_qt_nor_numba_for_a_small_file(tmp_path):
    """``timelineview stats`` pays for no GUI library, and a small file is not worth loading the
    compiled scanner (numba and its machine code cost more than they save there)."""
    import json
    import subprocess
    import sys

    path = dump_events([x_event(f"op{i}", 1, 1, float(i), 0.5) for i in range(200)], tmp_path / "s.json")
    child = ("import json, sys\n"
             "from timelineview.app import main\n"
             "code = main(['stats', sys.argv[1], '--json', '--quiet'])\n"
             "heavy = ('PySide6', 'pyqtgraph', 'numba', 'llvmlite')\n"
             "print(json.dumps({'code': code, 'loaded': [m for m in heavy if m in sys.modules]}), file=sys.stderr)\n")
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    run = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["cards"][0]["events"] == 200
    assert json.loads(run.stderr.strip().splitlines()[-1]) == {"code": 0, "loaded": []}


def test_readying_the_scanner_skips_numbas_blas_check(trace, events):
    """numba looks for BLAS by importing scipy's linear algebra (~40 % of readying the cached scanner);
    the scanner uses none: in a fresh process it is readied without it and still reads the trace."""
    import subprocess
    import sys

    if not jit.scanner_available():
        pytest.skip("numba is not installed")
    child = ("import sys\n"
             "from timelineview.model.load.jit import warm_scanner, scanner_is_warm\n"
             "from timelineview.model.decode.scan.scan_decode import decode_group\n"
             "from timelineview.model.decode.layout_scan import locate_array, plan_ranges\n"
             "warm_scanner()\n"
             "bounds = locate_array(sys.argv[1])\n"
             "packed = decode_group(sys.argv[1], 0, plan_ranges(sys.argv[1], bounds, 1 << 30), True, True)\n"
             "print(scanner_is_warm(), 'scipy.linalg' in sys.modules, sum(r.n_elements for r in packed.results))\n")
    run = subprocess.run([sys.executable, "-c", child, str(trace)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "False", str(len(events))]
