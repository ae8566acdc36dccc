"""While a worker runs, the cyclic collector waits; when the last worker ends, the GUI thread collects and
turns it back on (a collection in a worker could run Qt destructors there and hang the window)."""

from __future__ import annotations

import gc
import threading

from timelineview.views import worker_gc


def test_collection_waits_for_the_workers_and_resumes_on_the_gui_thread(qapp, qtbot, monkeypatch):
    collected_on: list[str] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: collected_on.append(threading.current_thread().name) or
                        real_collect(*a))
    assert gc.isenabled()
    inside: list[bool] = []
    release = threading.Event()

    @worker_gc.off_gui_thread
    def work(wait: bool) -> None:
        inside.append(gc.isenabled())
        if wait:
            release.wait(10)

    first = threading.Thread(target=work, args=(True,), name="first worker")
    first.start()
    qtbot.waitUntil(lambda: bool(inside), timeout=5_000)
    second = threading.Thread(target=work, args=(False,), name="second worker")
    second.start()
    second.join()
    qapp.processEvents()
    assert inside == [False, False] and not gc.isenabled()  # the first still runs: still paused
    release.set()
    first.join()
    qtbot.waitUntil(gc.isenabled, timeout=5_000)
    assert collected_on == [threading.main_thread().name]


def test_a_worker_that_fails_still_resumes_collection(qapp, qtbot):
    @worker_gc.off_gui_thread
    def fail() -> None:
        raise RuntimeError("boom")

    errors = []

    def run() -> None:
        try:
            fail()
        except RuntimeError as exc:
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    qtbot.waitUntil(gc.isenabled, timeout=5_000)
    assert len(errors) == 1


def test_a_collection_turned_off_by_the_application_stays_off(qapp, qtbot):
    gc.disable()
    try:
        t = threading.Thread(target=worker_gc.off_gui_thread(lambda: None))
        t.start()
        t.join()
        qapp.processEvents()
        assert not gc.isenabled()
    finally:
        gc.enable()
