"""The one step the timeline's window shows: a step's window with a drill-down's margins, a zoom inside
a step, a window over two steps (none), the steps of several cards (the same number on each)."""

from __future__ import annotations

from timelineview.viewstate.timeline.steps_on_screen import StepSpan, StepSpans

STEPS = StepSpans([StepSpan(1, 0, 1000), StepSpan(2, 1000, 2000), StepSpan(3, 2000, 3000)])


def test_a_step_with_margins_names_that_step():
    assert STEPS.step_shown(980, 2020) == 2  # 2 % either side: a sliver of steps 1 and 3
    assert STEPS.on_screen(980, 2020) == [2]


def test_a_zoom_inside_a_step_names_it():
    assert STEPS.step_shown(1400, 1410) == 2
    assert STEPS.step_shown(1990, 2030) == 3  # three quarters of the window in step 3


def test_several_steps_or_none_name_none():
    assert STEPS.on_screen(500, 1500) == [1, 2] and STEPS.step_shown(500, 1500) is None
    assert STEPS.step_shown(0, 3000) is None
    assert STEPS.step_shown(5000, 6000) is None
    assert StepSpans([]).step_shown(0, 10) is None


def test_cards_with_shifted_steps_agree_on_the_number():
    cards = StepSpans([StepSpan(1, 0, 1000), StepSpan(2, 1000, 2000), StepSpan(1, 30, 1040), StepSpan(2, 1040, 2050)])
    assert cards.step_shown(1100, 1900) == 2
