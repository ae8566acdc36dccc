"""The slow-card rule of metrics.md §4 against hand-computed cases: medians over steps, the practical size,
the robust z against z_N, consistency, and only compute and step interval flagging."""

from __future__ import annotations

import pytest

from timelineview.analysis.cluster.slow_cards import slow_cards
from timelineview.analysis.worst_of_many import z_threshold

BASE = [1000.0, 1200.0, 900.0, 1100.0, 1000.0]  # compute per step: each step runs other work
OFFSETS = [0.0, 2.0, -2.0, 4.0, -4.0, 1.0, -1.0]  # cards 0..6: a few µs apart in every step
SPAN_US = 5000.0


def doc(card: str, compute: list[float], span: list[float] | None = None, interval: float = 100.0) -> dict:
    span = span or [SPAN_US] * len(compute)
    return {"card": card, "steps": [
        {"step": k + 1, "span_us": s, "compute_us": c, "step_interval_us": interval,
         "pure_communication_us": 50.0} for k, (c, s) in enumerate(zip(compute, span, strict=True))]}


def healthy_cards() -> list[dict]:
    return [doc(f"rank {i}", [b + d for b in BASE]) for i, d in enumerate(OFFSETS)]


@pytest.mark.parametrize(("cards", "expected"), [(8, 3.0), (64, 3.6), (1024, 4.3)])
def test_z_n_grows_with_the_number_of_cards(cards, expected):
    assert z_threshold(cards) == pytest.approx(expected, abs=0.05)
    # the chance that one of N healthy normal values passes it is 0.01 / N
    from statistics import NormalDist
    assert 1 - NormalDist().cdf(z_threshold(cards)) == pytest.approx(0.01 / cards)


def test_a_consistent_1_3x_card_is_flagged_with_its_statistics():
    cards = healthy_cards() + [doc("rank 7", [1.3 * b for b in BASE])]
    [flag] = slow_cards(cards)
    assert (flag.card, flag.metric) == ("rank 7", "compute_us")
    # value: its median over its steps, 1.3 x 1000; median: of the cards' values 1000 + offsets and 1300
    assert flag.value == pytest.approx(1300.0)
    assert flag.median == pytest.approx(1000.5)
    # excess over the cards' median in each step (base + 0.5): 0.3 x base - 0.5, typically 299.5; the other
    # cards' excesses -4.5 .. 3.5 have median 0 and MAD 2.0, so z = 299.5 / (1.4826 x 2.0)
    assert flag.z == pytest.approx(299.5 / (1.4826 * 2.0))
    assert flag.z_required == pytest.approx(z_threshold(8))
    # the threshold: median + max(5 % of 1000.5, 1 % of 5000, z_8 x 2.9652) = 1000.5 + 50.025
    assert flag.threshold == pytest.approx(1050.525)
    assert (flag.steps_above, flag.steps) == (5, 5)
    assert set(flag.document()) >= {"card", "metric", "value", "median", "z", "steps_above", "steps", "threshold"}


def test_one_stalled_step_out_of_five_does_not_make_a_card_slow():
    stalled = [b for b in BASE]
    stalled[2] = 2 * BASE[2]  # step 3 takes twice as long on this card
    cards = healthy_cards() + [doc("rank 7", stalled)]
    # its mean over steps (1220) would pass the threshold of about 1050; its median (1000) does not
    assert sum(stalled) / len(stalled) > 1060
    assert slow_cards(cards) == []


def test_step_time_alone_flags_nobody():
    # a card whose steps are 1.5x longer (in a lockstep job they are not; here they are) with the same
    # compute and step interval as the others is not a slow card: step time is shown, never judged
    cards = healthy_cards() + [doc("rank 7", BASE, span=[1.5 * SPAN_US] * len(BASE))]
    assert slow_cards(cards) == []


def test_pure_communication_alone_flags_nobody():
    cards = healthy_cards() + [doc("rank 7", BASE)]
    for s in cards[-1]["steps"]:
        s["pure_communication_us"] = 5000.0  # the card that waits for the others
    assert slow_cards(cards) == []


def test_with_mad_zero_the_practical_size_alone_decides():
    same = [doc(f"rank {i}", [1000.0] * 5) for i in range(7)]
    # practical size: max(5 % of 1000, 1 % of 5000) = 50 µs
    [flag] = slow_cards(same + [doc("rank 7", [1060.0] * 5)])
    assert flag.card == "rank 7" and flag.z is None and flag.threshold == pytest.approx(1050.0)
    assert slow_cards(same + [doc("rank 7", [1040.0] * 5)]) == []


def test_a_slow_data_pipeline_is_flagged_on_the_step_interval():
    cards = healthy_cards() + [doc("rank 7", BASE, interval=400.0)]
    [flag] = slow_cards(cards)
    assert (flag.card, flag.metric, flag.value, flag.median) == ("rank 7", "step_interval_us", 400.0, 100.0)
    assert flag.z is None  # every other card waits 100 µs: MAD 0, the practical size decides


def test_fewer_than_three_steps_use_the_mean():
    cards = [doc(f"rank {i}", [1000.0, 1000.0]) for i in range(7)]
    cards.append(doc("rank 7", [1000.0, 1200.0]))  # mean 1100: 100 µs over, above in 1 of 2 steps
    [flag] = slow_cards(cards)
    assert flag.value == pytest.approx(1100.0) and (flag.steps_above, flag.steps) == (1, 2)


def test_a_card_whose_slow_steps_are_as_common_as_the_others_stalls_is_not_named():
    # 20 cards, 3 steps of 1000 µs (a few µs apart). Cards 0-9 stall 100 µs in one step each; card 19 in
    # two of its three, so its median (1100) passes the practical size (50 µs) and, against a spread of
    # a few µs, any z. But 10 of the other 57 steps reach its level: by chance a card has 2 of 3 such
    # steps with probability 3 x 0.175^2 x 0.825 + 0.175^3 = 0.081, far above 0.01 / 20.
    offsets = [(-1.0) ** i * (i % 3) for i in range(20)]
    cards = []
    for i in range(19):
        compute = [1000.0 + offsets[i]] * 3
        if i < 10:
            compute[i % 3] += 100.0
        cards.append(doc(f"rank {i}", compute))
    cards.append(doc("rank 19", [1100.0, 1100.0, 1000.0]))
    assert slow_cards(cards) == []
    # the same card 1.3x slower in every step is beyond any other card's step: named
    cards[-1] = doc("rank 19", [1300.0, 1300.0, 1300.0])
    assert [(f.card, f.steps_above) for f in slow_cards(cards)] == [("rank 19", 3)]


def test_two_stalls_as_large_as_a_rare_other_one_do_not_name_one_of_many_cards():
    # 256 cards, 3 steps of 1000 µs (a few µs apart). Ten cards stall once: eight by 100-135 µs, two by
    # 300 and 320 µs. Card 255 stalls by 310 and 400 µs: its median passes the practical size (50 µs) and
    # any z, and at its level (310 µs) one other step of 765 stands. Taken as it stands, that share makes
    # 2 of 3 such steps look impossible by chance (3 x (1/765)^2 = 5e-6 < 0.01 / 256); one step is all
    # there is to go by, and its count's one-sigma upper bound, (1 + 1 + sqrt(1.75)) / 765, gives
    # 3 x 0.0043^2 = 5.6e-5 > 3.9e-5: a heavy tail that makes such a card likely enough by chance.
    offsets = [(-1.0) ** i * (i % 3) for i in range(256)]
    stalls = [100.0, 105.0, 110.0, 115.0, 120.0, 125.0, 130.0, 135.0, 300.0, 320.0]
    cards = []
    for i in range(255):
        compute = [1000.0 + offsets[i]] * 3
        if i < len(stalls):
            compute[i % 3] += stalls[i]
        cards.append(doc(f"rank {i}", compute))
    cards.append(doc("rank 255", [1310.0, 1400.0, 1000.0]))
    upper = (1 + 1 + 1.75 ** 0.5) / 765
    assert 3 * (1 / 765) ** 2 < 0.01 / 256 < 3 * upper ** 2 * (1 - upper) + upper ** 3
    assert slow_cards(cards) == []
    # slow in every step, beyond every other card's stall: named
    cards[-1] = doc("rank 255", [1400.0, 1400.0, 1400.0])
    assert [(f.card, f.steps_above) for f in slow_cards(cards)] == [("rank 255", 3)]


def _three_step_cards(n: int, spread: float = 10.0) -> list[dict]:
    # n cards, 3 steps of about 1000 µs: each step's values spread evenly over ±spread µs (card i is i-th
    # in step 1, in another order in the other steps), so no healthy card sits on top of every step
    cards = []
    for i in range(n):
        compute = [1000.0 + spread * (2 * ((i * m) % n) / (n - 1) - 1) for m in (1, 3, 5)]
        cards.append(doc(f"rank {i}", compute))
    return cards


def test_two_stalls_of_three_steps_at_the_top_do_not_name_one_of_32_cards():
    # Card 31 stalls 300 µs in 2 of its 3 steps; no other step comes near. Its median (1300) passes the
    # practical size (50 µs) and, against a spread of a few µs, any z; no other step reaches its level, so a
    # count of them says p = 0. But if card 31 were like the others, its 3 steps would be any 3 of the 96:
    # the chance that 2 of them are the 2 highest is C(3, 2) / C(96, 2) = 3 / 4560 = 6.6e-4, and some card
    # of 32 has that about 2 % of the time: above 0.01 / 32 = 3.1e-4 per card, whatever the noise's tail.
    cards = _three_step_cards(32)
    cards[31] = doc("rank 31", [1300.0, 1300.0, 1000.0])
    assert 3 / 4560 > 0.01 / 32
    assert slow_cards(cards) == []
    # slow in all 3 steps: the 3 highest of 96, C(3, 3) / C(96, 3) = 1 / 142,880 (twice that for the two
    # looks at the card, 2 or 3 of its steps): far below 3.1e-4, named
    cards[31] = doc("rank 31", [1300.0, 1300.0, 1300.0])
    assert 2 / 142_880 < 0.01 / 32
    assert [(f.card, f.steps_above) for f in slow_cards(cards)] == [("rank 31", 3)]


def test_a_card_slow_in_all_three_steps_is_named_among_eight():
    # 8 cards x 3 steps = 24 steps: all 3 of the card's at the top, C(3, 3) / C(24, 3) = 1 / 2024, twice that
    # for the two looks = 9.9e-4 < 0.01 / 8 = 1.25e-3: the fewest steps at which 8 cards can name anyone on
    # ranks; with 2 of 3 at the top (3 / C(24, 2) = 0.011) the ranks say chance.
    cards = _three_step_cards(8)
    cards[7] = doc("rank 7", [1300.0, 1300.0, 1300.0])
    assert 2 / 2024 < 0.01 / 8
    assert [f.card for f in slow_cards(cards)] == ["rank 7"]
    cards[7] = doc("rank 7", [1300.0, 1300.0, 1000.0])
    assert slow_cards(cards) == []
