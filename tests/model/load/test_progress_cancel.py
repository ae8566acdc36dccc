"""Progress reaches the total, cancellation stops a load, and the pool gives the same store."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from timelineview.model import LoadCancelled, load
from timelineview.model.load.loader import shutdown_pool

from ..tracefile import slice_set


def big_file(path, n=60000):
    with open(path, "w") as f:
        f.write("[")
        for i in range(n):
            sep = "," if i else ""
            f.write(f'{sep}{{"name":"op{i % 97}","ph":"X","pid":1,"tid":{i % 4},"ts":"{1000000 + i * 3}.250",'
                    f'"dur":2.5,"args":{{"Task Type":"AI_CORE","pad":"{"x" * 40}"}}}}\n')
        f.write("]")
    return path


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return big_file(tmp_path_factory.mktemp("big") / "t.json")


def test_progress_is_monotonic_and_complete(trace):
    seen = []
    [store] = load(trace, progress=lambda done, total: seen.append((done, total)), workers=1)
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1]
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    assert len(store.slices) == 60000


@pytest.mark.parametrize("workers", [1, 2])
def test_cancel_stops_the_load(trace, workers):
    cancel = threading.Event()

    def progress(done, total):
        if done > 0:
            cancel.set()

    try:
        with pytest.raises(LoadCancelled):
            load(trace, progress=progress, cancel=cancel, workers=workers)
    finally:
        shutdown_pool()


def test_worker_pool_gives_the_same_store_as_one_process(trace):
    try:
        [pooled] = load(trace, workers=2)
    finally:
        shutdown_pool()
    [single] = load(trace, workers=1)
    assert slice_set(pooled) == slice_set(single)
    assert np.array_equal(pooled.slices.src, single.slices.src)
    assert pooled.args(123) == single.args(123) == {"Task Type": "AI_CORE", "pad": "x" * 40}


def test_card_progress_reports_each_card(tmp_path, trace):
    import shutil

    for rank in (0, 1):
        shutil.copy(trace, tmp_path / f"ascend_timeline_display_{rank}.json")
    seen: dict[int, list] = {0: [], 1: []}
    stores = load(tmp_path, workers=1, card_progress=lambda c, done, total: seen[c].append((done, total)))
    assert [s.rank for s in stores] == [0, 1]
    for c in (0, 1):
        done, total = seen[c][-1]
        assert seen[c][0][0] == 0 and done == total
        assert 0.99 * trace.stat().st_size < total <= trace.stat().st_size  # separators between ranges


def test_a_corrupt_card_does_not_stop_the_others(tmp_path, trace):
    import shutil

    shutil.copy(trace, tmp_path / "ascend_timeline_display_0.json")
    (tmp_path / "ascend_timeline_display_1.json").write_bytes(b"\x00garbage")
    good, bad = load(tmp_path)
    assert len(good.slices) == 60000 and not good.report.error
    assert len(bad.slices) == 0 and "not a JSON trace" in bad.report.error


def test_cancel_is_honoured_while_the_scanner_is_still_being_compiled(trace, monkeypatch):
    """A first run compiles the scanner for seconds before decoding starts: a cancel in
    that time stops the load without waiting for the compiler."""
    from timelineview.model.load.chunked import decode_pool, decode_run

    if not decode_pool.use_threads():
        pytest.skip("no compiled scanner here")
    cancel = threading.Event()
    started, release = threading.Event(), threading.Event()

    def compiling() -> None:
        started.set()
        cancel.set()  # the user gives up while it compiles
        release.wait()

    for module in (decode_pool, decode_run):
        monkeypatch.setattr(module, "scanner_is_warm", lambda: False)
    monkeypatch.setattr(decode_run, "warm_scanner", compiling)
    monkeypatch.setattr(decode_pool, "scanner_cached", lambda: True)  # the cache says ready: it is readied here
    monkeypatch.setattr(decode_run, "SCANNER_WORTH_BYTES", 0)  # as for a file worth the scanner
    timer = threading.Timer(10, release.set)  # "compiling" ends on its own after a while
    timer.start()
    try:
        with pytest.raises(LoadCancelled):
            load(trace, cancel=cancel, workers=2)
        assert started.is_set() and not release.is_set()  # it did not wait for the compiler
    finally:
        timer.cancel()
        release.set()
        shutdown_pool()
