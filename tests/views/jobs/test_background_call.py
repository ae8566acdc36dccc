"""A background call is a job: only the latest call's result arrives; one that raised arrives as a
RuntimeError saying why."""

from __future__ import annotations

import threading

from timelineview.views.background import BackgroundCall

TIMEOUT_MS = 10_000


def test_only_the_latest_call_is_delivered_and_a_failure_says_why(qtbot):
    call = BackgroundCall()
    got: list = []
    call.ready.connect(got.append)
    release = threading.Event()

    def slow() -> str:
        release.wait(5)
        return "stale"

    call.start(slow)
    with qtbot.waitSignal(call.ready, timeout=TIMEOUT_MS):
        call.start(lambda: "latest")
    release.set()
    qtbot.waitUntil(lambda: not call.jobs.superseded, timeout=TIMEOUT_MS)
    assert got == ["latest"]

    def broken():
        raise KeyError("no such lane")

    with qtbot.waitSignal(call.ready, timeout=TIMEOUT_MS):
        call.start(broken)
    assert isinstance(got[-1], RuntimeError) and "KeyError: 'no such lane'" in str(got[-1])
    call.start(lambda: "cancelled")
    call.cancel()
    qtbot.waitUntil(lambda: not call.jobs.superseded, timeout=TIMEOUT_MS)
    assert got[-1] is not None and got[-1] != "cancelled"
