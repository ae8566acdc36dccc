"""Qt-free maths of the Compare tab: the new run's offsets that align a chosen step, the
interleaved card order, the step window, and the paired bars' geometry."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.viewstate.card_view import CardView, StepBars
from timelineview.viewstate.tabs.paired_bars import BAR_H, LABEL_W, VALUE_W, PhaseValues, paired_bars
from timelineview.viewstate.tabs.run_alignment import (
    NEW_RUN_NUMBER_BASE,
    CardPair,
    RunCardView,
    aligned_offsets,
    interleaved,
    step_count,
    step_window_rel,
)


def steps(starts: list[int], length: int) -> StepBars:
    s = np.array(starts, dtype=np.int64)
    return StepBars(np.arange(1, len(s) + 1), s, s + length, s + length // 4, s + length // 2)


def base_card(number: int, starts: list[int], offset: int = 0) -> CardView:
    return CardView(number=number, store=None, offset_ns=offset, steps=steps(starts, 1_000))


def new_card(number: int, starts: list[int], clock: int = 0) -> RunCardView:
    return RunCardView(number=NEW_RUN_NUMBER_BASE + number, store=None, offset_ns=clock, steps=steps(starts, 1_500),
                       run_clock_ns=clock)


def rel(card: CardView, t: int, offset: int, origin: int = 0) -> int:
    return t - offset - origin


def test_the_chosen_step_starts_at_the_same_relative_time():
    pairs = [CardPair(base_card(0, [100, 2_000, 4_000], offset=0), new_card(0, [50_000, 52_500, 55_000])),
             CardPair(base_card(1, [300, 2_200, 4_100], offset=250), new_card(1, [50_400, 52_900, 55_300], clock=90))]
    for position in range(3):
        offsets = aligned_offsets(pairs, [], position)
        for b, n in pairs:
            s_b, s_n = int(b.steps.start[position]), int(n.steps.start[position])
            assert rel(b, s_b, b.offset_ns) == rel(n, s_n, offsets[n.number])


def test_unmatched_and_stepless_new_cards_move_with_their_run():
    pairs = [CardPair(base_card(0, [100, 2_000]), new_card(0, [50_000, 52_500], clock=10)),
             CardPair(base_card(1, [100, 2_000]), new_card(1, [50_000], clock=40))]  # no second step
    extra = new_card(2, [50_000, 52_500], clock=-70)
    offsets = aligned_offsets(pairs, [extra], 1)
    assert offsets[pairs[0].new.number] == 52_500 - 2_000  # its step 2 starts where the base's does
    shift = offsets[pairs[0].new.number] - 10  # how far the alignment moved the new run
    assert offsets[pairs[1].new.number] == 40 + shift
    assert offsets[extra.number] == -70 + shift


def test_no_pair_with_the_step_leaves_offsets_alone():
    pairs = [CardPair(base_card(0, [100]), new_card(0, [500]))]
    assert aligned_offsets(pairs, [], 3) == {}


def test_cards_interleave_base_then_new_and_the_window_covers_both_runs():
    pairs = [CardPair(base_card(0, [100, 2_000]), new_card(0, [5_000, 7_000])),
             CardPair(base_card(1, [120, 2_100, 9_000]), new_card(1, [5_010, 7_020]))]
    extra = new_card(2, [5_000])
    order = interleaved(pairs, [extra])
    assert [c.number for c in order] == [0, NEW_RUN_NUMBER_BASE, 1, NEW_RUN_NUMBER_BASE + 1, NEW_RUN_NUMBER_BASE + 2]
    assert step_count(pairs) == 2
    offsets = aligned_offsets(pairs, [extra], 1)
    t0, t1 = step_window_rel(pairs, 1, offsets, origin=50)
    # base steps last 1000 ns, new ones 1500 ns, all starting together per pair
    assert (t0, t1) == (2_000 - 50, 2_100 + 1_500 - 50)


def test_new_run_cards_are_titled_apart():
    class Store:
        card = "rank 3"

    card = RunCardView(number=NEW_RUN_NUMBER_BASE + 3, store=Store())
    assert card.title == "new · rank 3"


def test_paired_bars_share_one_scale_and_stack_new_under_base():
    rows = [PhaseValues("rank 0", "step_time_us", 100.0, 150.0), PhaseValues("rank 0", "tail_us", 20.0, None),
            PhaseValues("rank 1", "step_time_us", 80.0, 60.0)]
    width = 1000
    bars, height = paired_bars(rows, width)
    span = width - LABEL_W - VALUE_W
    assert bars[0].new.w == pytest.approx(span)  # the longest value spans the chart
    for bar, row in zip(bars, rows, strict=True):
        assert bar.base.x == bar.new.x == LABEL_W
        assert bar.base.w == pytest.approx((row.base_us or 0) * span / 150.0)
        assert bar.new.w == pytest.approx((row.new_us or 0) * span / 150.0)
        assert bar.new.y == pytest.approx(bar.base.y + BAR_H + 2)
    assert bars[1].delta_us is None and bars[2].delta_us == pytest.approx(-20.0)
    assert bars[2].base.y - bars[1].base.y > bars[1].base.y - bars[0].base.y  # a gap between cards
    assert height > bars[-1].new.y + bars[-1].new.h
