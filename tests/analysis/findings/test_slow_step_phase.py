"""A slow step is filed under the method step of the phase that holds its excess (metrics.md §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from timelineview.analysis.findings import evaluate_findings
from timelineview.analysis.findings.rules import METHOD_FORWARD_BACKWARD, METHOD_STEP_INTERVAL, METHOD_TAIL
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

from .planted import StepShape, card

SAMPLE = Path(__file__).resolve().parents[4] / "shared" / "samples" / "cann_per_iteration"
STEPS, SLOW = 5, 3  # the slow step's position (step SLOW + 1)
EXTRA_US = 1500  # the slow step's excess, all in one phase (2.3x the 1170 µs step: past the 2x floor)


def slow_step_of(slow_shape: StepShape):
    """The one slow_step finding of a two-card lockstep cluster whose step SLOW + 1 has ``slow_shape``."""
    shapes = [StepShape()] * STEPS
    shapes[SLOW] = slow_shape
    stores = [card(shapes, f"rank {r}", r) for r in range(2)]
    [f] = [f for f in evaluate_findings(AnalysisSession(stores)) if f.rule == "slow_step"]
    assert f.step == SLOW + 1 and f.cards == []  # slow on every card: the job's step, no card list
    base = StepShape()
    assert f.value - f.reference == pytest.approx(EXTRA_US) and f.reference == pytest.approx(
        base.interval_us + base.ops * base.op_us + base.comm_us + base.tail_pad_us)
    return f


def test_excess_in_the_gradient_all_reduce_is_filed_under_the_tail():
    f = slow_step_of(StepShape(comm_us=StepShape().comm_us + EXTRA_US))
    assert f.method == METHOD_TAIL
    assert "tail (gradient synchronisation and the update): 1.62 ms against 120 µs" in f.advice


def test_excess_in_the_data_wait_is_filed_under_the_step_interval():
    f = slow_step_of(StepShape(interval_us=StepShape().interval_us + EXTRA_US))
    assert f.method == METHOD_STEP_INTERVAL
    assert "step interval (waiting for data): 1.55 ms against 50 µs" in f.advice


def test_excess_in_the_operators_is_filed_under_forward_backward():
    f = slow_step_of(StepShape(ops=StepShape().ops + EXTRA_US // StepShape().op_us))
    assert f.method == METHOD_FORWARD_BACKWARD
    assert f.document()["method"] == METHOD_FORWARD_BACKWARD


@pytest.mark.samples
@pytest.mark.skipif(not SAMPLE.is_dir(), reason="../shared/samples is absent")
def test_the_samples_slow_first_step_is_filed_under_its_long_all_reduce():
    session = AnalysisSession(load(SAMPLE))
    [f] = [f for f in session.findings if f.rule == "slow_step"]
    [doc] = session.card_documents
    step = next(s for s in doc["steps"] if s["step"] == f.step)
    assert step["step_interval_us"] < 10 and step["tail_us"] > 40_000  # its excess is the tail's all-reduce
    assert f.method == METHOD_TAIL
