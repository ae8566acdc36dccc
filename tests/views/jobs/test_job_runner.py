"""The job object: a function on a worker thread whose progress arrives in order on the GUI thread, that a
cancel stops, whose result is dropped once a newer job supersedes it, whose failure is told with its message,
and during which automatic garbage collection waits."""

from __future__ import annotations

import gc
import threading
import time

import pytest

from timelineview.views.jobs.job import Job, JobContext, JobFailed, Progress
from timelineview.views.jobs.runner import JobRunner

LANE = "lane"
TIMEOUT_MS = 10_000
JOB_END_S = 60  # bounds a wait for a job that should end at once (never reached unless it hangs)
NEVER_S = 3600  # a hand-over nobody takes: waited for in full it would outlast JOB_END_S
STEPS = 25


class Heard:
    """Everything a runner delivers, in order, with the thread it was delivered on."""

    def __init__(self, runner: JobRunner) -> None:
        self.events: list[tuple] = []
        self.threads: set[str] = set()
        runner.progressed.connect(lambda job, p: self._add("progress", job, p))
        runner.handedOver.connect(lambda job, kind, payload: self._add("handed", job, (kind, payload)))
        runner.finished.connect(lambda job, result: self._add("finished", job, result))
        runner.failed.connect(lambda job, failure: self._add("failed", job, failure))
        runner.cancelled.connect(lambda job: self._add("cancelled", job, None))
        runner.ended.connect(lambda job: self._add("ended", job, None))

    def _add(self, kind, job, payload) -> None:
        self.threads.add(threading.current_thread().name)
        self.events.append((kind, job, payload))

    def of(self, kind: str) -> list:
        return [payload for k, _, payload in self.events if k == kind]


@pytest.fixture
def runner(qapp):
    r = JobRunner()
    yield r
    r.shutdown()


def test_progress_arrives_in_order_on_the_gui_thread_then_the_result(qtbot, runner):
    heard = Heard(runner)
    ran_on: list[str] = []

    def work(ctx: JobContext) -> int:
        ran_on.append(threading.current_thread().name)
        for i in range(1, STEPS + 1):
            ctx.progress(i, STEPS, f"step {i}")  # a new text each time: every count is delivered
        ctx.hand_over("half", STEPS // 2)
        return sum(range(STEPS + 1))

    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        job = runner.start(Job("Counting", work), LANE)
    assert ran_on and ran_on[0] != threading.main_thread().name  # the work ran off the GUI thread
    assert heard.threads == {threading.main_thread().name}  # everything was delivered on it
    assert heard.of("progress") == [Progress(i, STEPS, f"step {i}") for i in range(1, STEPS + 1)]
    assert heard.of("handed") == [("half", STEPS // 2)]
    assert heard.of("finished") == [STEPS * (STEPS + 1) // 2]
    assert [k for k, _, _ in heard.events][-2:] == ["finished", "ended"]  # ended last
    assert {j for _, j, _ in heard.events} == {job} and job.outcome == "result" and not runner.busy


def test_progress_is_throttled_but_the_last_count_always_arrives():
    got = []
    ctx = JobContext(lambda kind, payload: got.append(payload), interval_s=3600)
    for i in range(1, 1001):
        ctx.progress(i, 1000, "reading")
    assert got == [Progress(1, 1000, "reading"), Progress(1000, 1000, "reading")]  # the new text, the last
    assert Progress(250, 1000, "").share == 0.25 and Progress(3, 0, "").share == 0.0


def test_cancel_stops_the_job(qtbot, runner):
    heard = Heard(runner)
    turns: list[int] = []
    started = threading.Event()

    def work(ctx: JobContext) -> str:
        while True:
            ctx.check()
            turns.append(1)
            started.set()
            time.sleep(0.005)

    job = runner.start(Job("Forever", work), LANE)
    assert started.wait(5)
    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        assert runner.cancel(LANE)
    assert job.done.wait(JOB_END_S)  # the work's loop was left: no turn comes after this
    assert heard.of("cancelled") == [None] and not heard.of("finished") and not heard.of("failed")
    assert job.outcome == "cancelled" and not job.running and runner.running(LANE) is None


def test_a_superseded_job_s_result_is_dropped(qtbot, runner):
    heard = Heard(runner)
    release = threading.Event()

    def slow(ctx: JobContext) -> str:
        release.wait(5)  # it does not check for a cancel: it finishes, late
        ctx.progress(1, 1, "late")
        return "first"

    first = runner.start(Job("First", slow), LANE)
    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        second = runner.start(Job("Second", lambda ctx: "second"), LANE)
    assert first.superseded and first.context.cancelled  # asked to stop
    release.set()
    qtbot.waitUntil(lambda: not runner.superseded, timeout=TIMEOUT_MS)  # its thread ended and was let go
    assert heard.of("finished") == ["second"]
    assert {j for _, j, _ in heard.events} == {second}  # nothing of the first, not even its late progress


def test_jobs_of_other_lanes_run_side_by_side(qtbot, runner):
    heard = Heard(runner)
    with qtbot.waitSignals([runner.ended, runner.ended], timeout=TIMEOUT_MS):
        runner.start(Job("A", lambda ctx: "a"), "one")
        runner.start(Job("B", lambda ctx: "b"), "two")
    qtbot.waitUntil(lambda: len(heard.of("ended")) == 2, timeout=TIMEOUT_MS)
    assert sorted(heard.of("finished")) == ["a", "b"]


def test_a_failure_is_told_with_its_message(qtbot, runner):
    heard = Heard(runner)

    def broken(ctx: JobContext):
        raise ValueError("the third card is broken")

    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        runner.start(Job("Loading cards", broken), LANE)
    [failure] = heard.of("failed")
    assert failure.text == "Loading cards failed."
    assert failure.details.startswith("ValueError: the third card is broken")
    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        runner.start(Job("Reading", lambda ctx: (_ for _ in ()).throw(JobFailed("No card in it.", "why"))), LANE)
    assert (heard.of("failed")[-1].text, heard.of("failed")[-1].details) == ("No card in it.", "why")
    assert not heard.of("finished")


def test_a_hand_over_can_wait_for_the_gui(qtbot, runner):
    shown: list[str] = []
    seen_by_job: list[list[str]] = []

    def work(ctx: JobContext) -> None:
        ctx.hand_over("comparison", "table", wait_s=5)
        seen_by_job.append(list(shown))  # the GUI had shown it before the job went on

    runner.handedOver.connect(lambda job, kind, payload: shown.append(payload))
    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        runner.start(Job("Open", work), LANE)
    assert seen_by_job == [["table"]]


def test_collection_waits_while_a_job_runs_and_resumes_after(qtbot, runner):
    # an earlier test's last worker turns collection back on through the event loop: let that arrive first
    qtbot.waitUntil(gc.isenabled, timeout=TIMEOUT_MS)
    inside: list[bool] = []
    release = threading.Event()

    def work(ctx: JobContext) -> None:
        inside.append(gc.isenabled())
        release.wait(5)

    runner.start(Job("Wait", work), LANE)
    qtbot.waitUntil(lambda: bool(inside), timeout=TIMEOUT_MS)
    assert inside == [False] and not gc.isenabled()
    with qtbot.waitSignal(runner.ended, timeout=TIMEOUT_MS):
        release.set()
    qtbot.waitUntil(gc.isenabled, timeout=TIMEOUT_MS)


def test_a_job_superseded_before_its_hand_over_does_not_wait_for_the_gui(qtbot, runner):
    release, started, handed = threading.Event(), threading.Event(), threading.Event()

    def work(ctx: JobContext) -> None:
        started.set()
        release.wait(5)
        try:  # nobody takes it: the job was superseded, and a job that waited would outlive the test's wait
            ctx.hand_over("comparison", "table", wait_s=NEVER_S)
        finally:
            handed.set()

    first = runner.start(Job("Open", work), LANE)
    assert started.wait(5)
    runner.supersede(LANE)
    release.set()
    assert first.done.wait(JOB_END_S) and handed.is_set()
